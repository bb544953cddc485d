#!/usr/bin/env python3
"""Example sanitizer with a bug of the field: it pairs by id *set* across the
whole history, as `drop_orphan_function_calls` does: a result stays when some
call anywhere has its id, a call stays when some result anywhere has its id
(approval items alike). Right while every id is used once and every result
sits right after its call. A result stored twice by a retry, a result whose
own call was lost while the id is used again elsewhere, a call whose result
came after another message: each keeps an item whose own partner is gone.
reducer-kit convicts it of `no-orphan-result` (spec/spec.md 6.3, read by
policy `repair` in 17.3) and shrinks the failure to three messages:

    reducer-kit certify --policy repair --persistent -- python3 examples/reducers/call_id_set_sanitizer.py --persistent

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only:

    python3 call_id_set_sanitizer.py [--format canonical|openai|anthropic] [--persistent]
"""

from reducer_protocol import CALL, REQUEST, RESPONSE, RESULT, main

PARTNER = {CALL: RESULT, RESULT: CALL, REQUEST: RESPONSE, RESPONSE: REQUEST}


def select(history, budget):
    views = history.views()
    ids = {kind: set() for kind in PARTNER}
    for v in views:
        for kind, item_id, _ in v.items:
            if kind in ids:
                ids[kind].add(item_id)
    out = []
    for m, v in enumerate(views):
        drop = [k for k, (kind, item_id, _) in enumerate(v.items)
                if kind in PARTNER and item_id not in ids[PARTNER[kind]]]
        msg = history.without_items(m, drop)
        if msg is not None:
            out.append(msg)
    return out


if __name__ == "__main__":
    main(select)
