#!/usr/bin/env python3
"""Example external reducer that is NOT safe: the classic "last N" cut.

Keeps the pinned system message (the first `system` or `developer` message)
plus the last maxMessages other messages, and nothing else. When the cut
falls inside a tool group it keeps tool results whose calls were cut away,
so reducer-kit reports `no-orphan-result` (and `valid-output`) against it.
It is here to show what a failing certificate looks like.

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only
(the protocol and the formats are in reducer_protocol.py):

    python3 naive_last_n.py [--format canonical|openai|anthropic] [--persistent]

The format only names the wire format; this reducer looks at nothing but
roles (and, in the Anthropic format, keeps the top-level `system`).
"""

from reducer_protocol import main, pinned_index


def select(history, budget):
    roles = history.roles()
    pinned = pinned_index(roles)
    rest = [i for i in range(len(roles)) if i != pinned]
    kept = rest[max(0, len(rest) - budget):]
    if pinned is not None:
        kept.append(pinned)
    return history.take(sorted(kept))


if __name__ == "__main__":
    main(select)
