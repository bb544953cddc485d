#!/usr/bin/env python3
"""Example external reducer for token budgets (spec/spec.md, section 11),
policy `suffix` (default) or `turns` (--policy).

Reads runner protocol 2: a request carries "maxTokens": N with "tokens", one
cost per message, and "countPinned", or "maxMessages" as in version 1 (every
message costing 1). B is N less the pinned system message's cost when
countPinned.

  suffix  walk back from the newest message adding costs and stop at the
          first message that does not fit in B; then move the start later
          while it would begin with a tool message, an approval-only user
          message, or a result / approval response whose partner lies before
          it (spec/spec.md 11.5).
  turns   when all of M fits, keep it; else add whole turns from the newest
          while the total fits and stop at the first that does not; when
          even the newest turn does not fit, keep its question (if it fits)
          and the longest run of its most recent messages that fits in what
          is left (spec/spec.md 11.4).

Then orphan removal, as in version 1. It conforms exactly, so reducer-kit
should certify it up to the exact level under `certify --protocol 2`:

    python3 token_reducer.py [--policy suffix|turns] [--format canonical|openai|anthropic] [--persistent]
"""

from reducer_protocol import RESPONSE, RESULT, main, pair, pinned_index


def fits_from_end(history, indices, room):
    """The smallest position s such that the messages indices[s:] cost at
    most `room` together: walk back from the end, stop at the first message
    that does not fit."""
    total = 0
    s = len(indices)
    while s > 0 and total + history.cost(indices[s - 1]) <= room:
        total += history.cost(indices[s - 1])
        s -= 1
    return s


def split_turns(views, rest):
    """Turns over the non-pinned messages, oldest first: (indices, has_question)."""
    turns = []
    for i in rest:
        if views[i].turn_start() or not turns:
            turns.append(([], views[i].turn_start()))
        turns[-1][0].append(i)
    return turns


def suffix_selection(history, room):
    """The kept messages of M (before orphan removal) under policy suffix
    with `room` for M."""
    views = history.views()
    pinned = pinned_index(v.role for v in views)
    rest = [i for i in range(len(views)) if i != pinned]
    partner = pair(views, range(len(views)))
    start = fits_from_end(history, rest, room)
    # A run from M's first message starts where M does: when all of M
    # fits, it is kept whole, whatever its first message.
    while 0 < start < len(rest):
        m = rest[start]
        v = views[m]
        splits_group = any(
            kind in (RESULT, RESPONSE) and (m, k) in partner and partner[(m, k)][0] < m
            for k, (kind, _, _) in enumerate(v.items))
        if v.role == "tool" or v.approval_only() or splits_group:
            start += 1
        else:
            break
    return rest[start:]


def turns_selection(history, room):
    """The kept messages of M (before orphan removal) under policy turns
    with `room` for M."""
    views = history.views()
    pinned = pinned_index(v.role for v in views)
    rest = [i for i in range(len(views)) if i != pinned]
    if sum(history.cost(i) for i in rest) <= room:
        return rest
    turns = split_turns(views, rest)
    total = 0
    first = len(turns)
    for t in range(len(turns) - 1, -1, -1):
        size = sum(history.cost(i) for i in turns[t][0])
        if total + size > room:
            break
        total += size
        first = t
    if first < len(turns):
        return [i for msgs, _ in turns[first:] for i in msgs]
    msgs, has_question = turns[-1]
    if has_question and history.cost(msgs[0]) <= room:
        tail = msgs[1:]
        s = fits_from_end(history, tail, room - history.cost(msgs[0]))
        return [msgs[0]] + tail[s:]
    return msgs[fits_from_end(history, msgs, room):]


def with_pinned(history, chosen):
    pinned = history.pinned()
    if pinned is not None:
        chosen = chosen + [pinned]
    return sorted(chosen)


def select_suffix(history, budget):
    return history.remove_orphans(with_pinned(history, suffix_selection(history, history.available())))


def select_turns(history, budget):
    return history.remove_orphans(with_pinned(history, turns_selection(history, history.available())))


POLICIES = {"suffix": select_suffix, "turns": select_turns}

if __name__ == "__main__":
    main(POLICIES, protocol=2)
