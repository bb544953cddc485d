#!/usr/bin/env python3
"""Example sanitizer with a bug of the field: it drops the tool messages at
the start of the history (what a trimmer that cut a tool exchange in two
leaves there) and nothing else, as "strip orphaned tool_result messages after
truncation" does. An orphan result anywhere else (a retry's duplicate, a
result whose call was lost) stays, and so does a call never answered.
reducer-kit convicts it of `no-orphan-result` (spec/spec.md 6.3, read by
policy `repair` in 17.3) and shrinks the failure to two messages, a question
and a tool result:

    reducer-kit certify --policy repair --persistent -- python3 examples/reducers/leading_orphans_only.py --persistent

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only:

    python3 leading_orphans_only.py [--format canonical|openai|anthropic] [--persistent]
"""

from reducer_protocol import RESULT, main


def select(history, budget):
    views = history.views()
    out = []
    leading = True
    for m, v in enumerate(views):
        # A tool message of results only: a tool message holding a note
        # (text, no result) is no orphan and stays.
        if leading and v.role == "tool" and v.items and all(
                kind == RESULT for kind, _, _ in v.items):
            continue
        if v.role != "system":
            leading = False
        out.append(history.messages[m])
    return out


if __name__ == "__main__":
    main(select)
