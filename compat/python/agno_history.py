#!/usr/bin/env python3
"""reducer-kit compat adapter: agno `num_history_messages`.

An agno Agent with `add_history_to_context=True, num_history_messages=N`
replays the newest N messages of its session into each run, through
`AgentSession.get_messages(limit=N, skip_roles=["system"])` (the agent
builds its own system message and skips stored ones). That call is the
reducer certified here, on a session holding the history as one completed
run.

Wire format: openai (agno's Message has role, content, `tool_calls` in
the Chat Completions shape and `tool_call_id`).

System prompt: out of band, as in agno (the agent's `instructions` /
`system_message`): the pinned system message is held aside and put back
in its place. Later system messages are stored in the session like any message,
and agno's skip_roles=["system"] leaves them out of the replay.

Budget: limit = N messages.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import Unsupported, IdentityMap, require, with_pinned, serve  # noqa: E402


def to_agno(m, agno_message):
    d = m.data
    content = d.get("content")
    if not isinstance(content, (str, list)):
        content = None
    # roles lowercased (the kit compares them without case; agno only knows lowercase)
    return agno_message.Message(role=m.role,
                                content=content, tool_calls=d.get("tool_calls") or None,
                                tool_call_id=d.get("tool_call_id"))


def reduce(request):
    agno_message = require("agno.models.message", "agno")
    session_mod = require("agno.session.agent", "agno")
    run_mod = require("agno.run.agent", "agno")
    base = require("agno.run.base", "agno")
    if request.budget_kind != "messages":
        raise Unsupported("num_history_messages counts messages, not tokens")
    ident = IdentityMap()
    pinned = request.pinned
    history = [ident.add(to_agno(m, agno_message), m) for m in request.messages if m is not pinned]
    run = run_mod.RunOutput(run_id="compat-run", messages=history, status=base.RunStatus.completed)
    session = session_mod.AgentSession(session_id="compat", runs=[run])
    kept = session.get_messages(limit=request.budget, skip_roles=["system"])
    out = []
    for k in kept:
        m = ident.get(k)
        if m is None:
            raise ValueError("agno returned a message it was not given")
        out.append(m)
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="openai", package="agno", module="agno.session.agent")
