#!/usr/bin/env python3
"""reducer-kit compat adapter: openai-agents, the runner's session sanitizer.

Before every model call of a run with a Session, the runner prepares the
model input with `prepare_input_with_session` (agents/run.py:734-742): it
reads the session's items and, over the stored history, drops the call
items whose output is not in the list (`drop_orphan_function_calls`,
run_internal/session_persistence.py:580, run_internal/items.py:211, "so
resumptions or retries do not replay stale calls"), with the reasoning
items right before a dropped call, then normalises and deduplicates the
items (session_persistence.py:585-586). With no history limit (the
default `SessionSettings()`, no `session_input_callback`) nothing is cut
first, so this path is a sanitizer of the whole stored history: the
repair certified here (`--policy repair`), called as the runner calls it
for a new turn with no new input items, on an in-memory SQLiteSession.
Outputs whose call is missing are dropped only after a history limit cut
(`output_pruning_indexes`, session_persistence.py:498-499; the docstring,
items.py:219-220): without a limit they stay.

Wire format: responses. A session holds Responses API input items; the
kit's `responses` format is those items, one item one message of the kit's
list. The items are stored as they come (plain JSON), and what the runner
gives back is matched to the stored items in order and checked equal
(SQLite returns new dicts); a kept item is written back as the exact text
it came as, an item that does not match (changed by the SDK) as the SDK
gave it, for the kit to judge.

System prompt: out of band (`Agent(instructions=...)`); later system
messages are session items with role system.

Budget: none. A repair has no budget (spec/spec.md §17.1): the request's
budget is checked (a bad one is rejected) and otherwise not used.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import require, run_async, serve, with_pinned  # noqa: E402

_counter = [0]


def reduce(request):
    memory = require("agents.memory", "openai-agents")
    persistence = require("agents.run_internal.session_persistence", "openai-agents")
    pinned = request.pinned
    stored = [m for m in request.messages if m is not pinned]
    _counter[0] += 1
    session = memory.SQLiteSession("compat-%d" % _counter[0], ":memory:")
    try:
        run_async(session.add_items([m.data for m in stored]))
        prepared, _ = run_async(persistence.prepare_input_with_session([], session, None))
    finally:
        session.close()
    out = []
    at = 0
    for item in prepared:
        j = at
        while j < len(stored) and stored[j].data != item:
            j += 1
        if j < len(stored):
            out.append(stored[j])
            at = j + 1
        else:
            out.append(item)  # an item the SDK changed: the kit judges it
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="responses", package="openai-agents",
          module="agents.run_internal.session_persistence")
