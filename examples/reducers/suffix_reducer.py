#!/usr/bin/env python3
"""Example external reducer for policy `suffix` (spec/spec.md, section 4).

Keeps the pinned system message plus the newest run of messages that fits in
maxMessages (all of them when they fit), moving the start of a shorter run
later while it would begin with a
tool message, an approval-only user message, or a result / approval response
whose partner lies before the start. Then removes results and approval
responses whose call or request is not kept (positional pairing). It conforms
exactly to the policy, so reducer-kit should certify it up to the exact level.

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only
(the protocol, the formats and orphan removal are in reducer_protocol.py):

    python3 suffix_reducer.py [--format canonical|openai|anthropic|responses|gemini|bedrock] [--persistent]

In the Responses format the start also never continues a call group nor
follows an attached reasoning item (spec/spec.md 14.5-14.6).
"""

from reducer_protocol import RESPONSE, RESULT, linked_to_previous, main, pair, pinned_index


def select(history, budget):
    views = history.views()
    pinned = pinned_index(v.role for v in views)
    rest = [i for i in range(len(views)) if i != pinned]
    partner = pair(views, range(len(views)))
    start = max(0, len(rest) - budget)
    # A run from M's first message starts where M does: when all of M
    # fits, it is kept whole, whatever its first message.
    while 0 < start < len(rest):
        m = rest[start]
        v = views[m]
        splits_group = any(
            kind in (RESULT, RESPONSE) and (m, k) in partner and partner[(m, k)][0] < m
            for k, (kind, _, _) in enumerate(v.items))
        if v.role == "tool" or v.approval_only() or splits_group or linked_to_previous(views, m):
            start += 1
        else:
            break
    chosen = rest[start:]
    if pinned is not None:
        chosen.append(pinned)
    return history.remove_orphans(sorted(chosen))


if __name__ == "__main__":
    main(select)
