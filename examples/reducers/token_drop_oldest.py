#!/usr/bin/env python3
"""Example external reducer for token budgets that is NOT safe: the classic
"drop the oldest message until the rest fits, then strip a leading tool
message" loop (spec/spec.md, section 11).

It reads runner protocol 2 correctly (maxTokens, tokens, countPinned), drops
messages from the front of M until what is left costs at most B, and then,
knowing that a history must not start with a tool result, removes one
leading tool message. One is not enough: when the cut falls before the
second of two tool messages answering parallel calls, the second result is
kept without its call, and reducer-kit reports `no-orphan-result` (and
`valid-output`) with a minimal counterexample of two tool messages.

    python3 token_drop_oldest.py [--format canonical|openai|anthropic] [--persistent]
"""

from reducer_protocol import main


def select(history, budget):
    roles = history.roles()
    pinned = history.pinned()
    kept = [i for i in range(len(roles)) if i != pinned]
    room = history.available()
    while kept and sum(history.cost(i) for i in kept) > room:
        kept.pop(0)
    if kept and roles[kept[0]] == "tool":
        kept.pop(0)
    if pinned is not None:
        kept.append(pinned)
    return history.take(sorted(kept))


if __name__ == "__main__":
    main(select, protocol=2)
