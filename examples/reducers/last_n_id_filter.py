#!/usr/bin/env python3
"""Example external reducer with one subtle bug: reused call ids.

Keeps the pinned system message (the first `system` or `developer` message)
plus the last maxMessages other messages, then removes the tool results and
approval responses whose id is not among the ids of the calls and approval
requests it kept: an orphan filter by id *set*. That is right as long as
every call id is used once. When an id is used again after its result came
(spec/spec.md section 2, pairing is positional), a kept result can match a
call that comes *after* it, so with budget 3 the reducer keeps
[tool(x), assistant(call x), tool(x)] and the first tool message is an
orphan: reducer-kit convicts it of `no-orphan-result` and shrinks the
failure to four messages.

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only
(the protocol and the formats are in reducer_protocol.py):

    python3 last_n_id_filter.py [--format canonical|openai|anthropic] [--persistent]
"""

from reducer_protocol import CALL, REQUEST, RESPONSE, RESULT, Obj, is_array, main, pinned_index


def select(history, budget):
    views = history.views()
    pinned = pinned_index(v.role for v in views)
    rest = [i for i in range(len(views)) if i != pinned]
    kept = rest[max(0, len(rest) - budget):]
    if pinned is not None:
        kept.append(pinned)
    kept.sort()
    calls = {item_id for m in kept for kind, item_id, _ in views[m].items if kind == CALL}
    requests = {item_id for m in kept for kind, item_id, _ in views[m].items if kind == REQUEST}
    out = []
    for m in kept:
        v = views[m]
        gone = [k for k, (kind, item_id, _) in enumerate(v.items)
                if (kind == RESULT and item_id not in calls)
                or (kind == RESPONSE and item_id not in requests)]
        if not gone:
            out.append(history.messages[m])
        elif len(gone) < len(v.items):
            elems = {v.items[k][2] for k in gone}
            msg = Obj()
            for name, value in history.messages[m]:
                if name == v.key and is_array(value):
                    value = [e for i, e in enumerate(value) if i not in elems]
                msg.append((name, value))
            out.append(msg)
    return out


if __name__ == "__main__":
    main(select)
