#!/usr/bin/env python3
"""Example external reducer for policy `turns` (spec/spec.md, section 3).

Keeps the pinned system message plus the newest whole turns that fit in
maxMessages; when even the newest turn does not fit, keeps its question and
its most recent messages. Then removes results and approval responses whose
call or request was cut away (positional pairing). It conforms exactly to the
policy, so reducer-kit should certify it up to the exact level.

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only
(the protocol, the formats and orphan removal are in reducer_protocol.py):

    python3 turns_reducer.py [--format canonical|openai|anthropic|responses|gemini|bedrock] [--persistent]
"""

from reducer_protocol import linked_to_previous, main, pinned_index


def split_turns(views, rest):
    """Turns over the non-pinned messages, oldest first: (indices, has_question)."""
    turns = []
    for i in rest:
        if views[i].turn_start() or not turns:
            turns.append(([], views[i].turn_start()))
        turns[-1][0].append(i)
    return turns


def select(history, budget):
    views = history.views()
    pinned = pinned_index(v.role for v in views)
    rest = [i for i in range(len(views)) if i != pinned]
    if len(rest) <= budget:
        chosen = list(rest)
    else:
        turns = split_turns(views, rest)
        total = 0
        first = len(turns)
        for t in range(len(turns) - 1, -1, -1):
            size = len(turns[t][0])
            if total + size > budget:
                break
            total += size
            first = t
        if first < len(turns):
            chosen = [i for msgs, _ in turns[first:] for i in msgs]
        else:
            msgs, has_question = turns[-1]
            # The tail never starts inside a call group or right after an
            # attached reasoning item (spec/spec.md 14.5-14.6).
            start = len(msgs) - (budget - 1 if has_question else budget)
            while start < len(msgs) and linked_to_previous(views, msgs[start]):
                start += 1
            chosen = ([msgs[0]] if has_question else []) + msgs[start:]
    if pinned is not None:
        chosen.append(pinned)
    return history.remove_orphans(sorted(chosen))


if __name__ == "__main__":
    main(select)
