#!/usr/bin/env python3
"""Example external summarizing reducer that is NOT safe: its summary
boundary splits a tool call from its result (spec/spec.md, section 12).

When the request allows a summary and the history does not fit, it drops
the oldest messages until the rest fits beside a summary of cost S, and puts
the summary first (after the pinned system message). It never looks at tool
groups: when the cut falls between an assistant message with calls and the
tool messages answering them, the call goes into the summary and its result
stays, an orphan. reducer-kit reports `no-orphan-result` (and
`valid-output`) under `certify --protocol 2 --summaries`; the issue's
example is spec/summary-across-group: costs 5, 1, 40, 3, 2 and maxTokens 50
with S = 5 give [summary, result of c1, answer, question].

    python3 summarize_across_group.py [--format canonical|openai|anthropic] [--persistent]
"""

from reducer_protocol import main


def select(history, budget):
    pinned = history.pinned()
    rest = [i for i in range(len(history.messages)) if i != pinned]
    room = history.available()
    keep_pinned = [pinned] if pinned is not None else []
    if sum(history.cost(i) for i in rest) <= room:
        return history.take(sorted(rest + keep_pinned))
    summarize = history.summary and history.summary_tokens <= room
    if summarize:
        room -= history.summary_tokens
    kept = list(rest)
    while kept and sum(history.cost(i) for i in kept) > room:
        kept.pop(0)
    out = history.take(sorted(kept + keep_pinned))
    if not summarize:
        return out
    summary = history.summary_message(
        "Summary of the %d earlier messages of this conversation." % (len(rest) - len(kept)))
    at = 1 if keep_pinned and (not kept or pinned < kept[0]) else 0
    return out[:at] + [summary] + out[at:]


if __name__ == "__main__":
    main(select, protocol=2)
