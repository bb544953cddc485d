#!/usr/bin/env python3
"""reducer-kit compat adapter: openai-agents sessions, with a history limit
(a reducer) or without one (the runner's sanitizer).

The Agents SDK keeps a conversation in a Session and, with
`SessionSettings(limit=N)` (on the session or in RunConfig), replays only
the newest N items of it into the next run. The runner does not hand the
model what `session.get_items(limit)` returns as such: it prepares the
model input with `prepare_input_with_session` (agents/run.py:734-742),
which reads the newest `limit` items (run_internal/session_persistence.py:
457-463) and then drops the call items whose output is not there and the
outputs whose call was cut off (`drop_orphan_function_calls`,
session_persistence.py:579-583, run_internal/items.py:211), normalises and
deduplicates them. That function, the runner's own path, is the reducer
certified here, called as the runner calls it for a new turn with no new
input items, on an in-memory SQLiteSession holding the history.

Wire format: responses. A session holds Responses API input items, and the
kit's `responses` format is those items, each one message of the kit's
list: a text message is one `message` item, each call a `function_call`
item, each result a `function_call_output` item. The items are stored as
they come (plain JSON) and what the runner gives back is matched to the
stored items in order and checked equal (SQLite returns new dicts); a kept
item is written back as the exact text it came as, an item that does not
match (changed by the SDK) as the SDK gave it, for the kit to judge.

System prompt: out of band (`Agent(instructions=...)`); later system
messages are session items with role system.

Configurations (--config):
  limit     (default) `SessionSettings(limit=N)`: the reducer. Budget: limit
            = N items, which under this format is N messages, the kit's own
            unit; a token budget is answered `unsupported`.
  callback  no limit, and `RunConfig(session_input_callback=lambda history,
            new_input: history[-N:] + new_input)`, as the sessions guide
            shows an application keeping the newest N items
            (https://openai.github.io/openai-agents-python/sessions/, the
            session_input_callback example; RunConfig.session_input_callback,
            run_config.py:448-453): the runner prunes call items whose
            output is missing but asks for no output pruning when a callback
            is set (session_persistence.py:489-499), so outputs whose call
            the callback cut stay. Budget as for limit.
  sanitize  the runner's sanitization of what a history limit read:
            `SessionSettings(limit=L)` with L the number of stored items, so
            that the session hands back every item and the runner prunes
            them as after a limit cut (`drop_orphan_function_calls` with
            pruning and output pruning over the whole history,
            session_persistence.py:497-499 and 579-583, then normalisation
            and deduplication): a sanitizer, certified under `--policy
            repair` within the scope its docstring states (items.py:217-225):
            calls without their output (a run interrupted after its calls,
            or some of its parallel outputs lost) and outputs whose call a
            limit cut (`repairs=limit-cut,interrupted-run,
            lost-parallel-result`). Budget: none (spec §17.1).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import Unsupported, require, run_async, serve, with_pinned  # noqa: E402

_counter = [0]


def reduce(request):
    memory = require("agents.memory", "openai-agents")
    persistence = require("agents.run_internal.session_persistence", "openai-agents")
    config = request.config
    if config in ("limit", "callback") and request.budget_kind != "messages":
        raise Unsupported("the session limit counts items, not tokens")
    pinned = request.pinned
    stored = [m for m in request.messages if m is not pinned]
    _counter[0] += 1
    callback = None
    if config == "limit":
        settings = memory.SessionSettings(limit=request.budget)
    elif config == "callback":
        n = request.budget
        settings = memory.SessionSettings()

        def callback(history, new_input):
            return history[-n:] + new_input
    else:
        settings = memory.SessionSettings(limit=max(1, len(stored)))
    session = memory.SQLiteSession("compat-%d" % _counter[0], ":memory:", session_settings=settings)
    try:
        run_async(session.add_items([m.data for m in stored]))
        prepared, _ = run_async(persistence.prepare_input_with_session([], session, callback))
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
          module="agents.run_internal.session_persistence",
          configs=("limit", "callback", "sanitize"), default_config="limit")
