#!/usr/bin/env python3
"""reducer-kit compat adapter: openai-agents session history limit.

The Agents SDK keeps a conversation in a Session and, with
`SessionSettings(limit=N)` (on the session or in RunConfig), replays only
the newest N items of it into the next run (`session.get_items()` with the
limit: "returns the latest N items in chronological order"). That is the
reducer certified here, on an in-memory SQLiteSession.

Wire format: openai. A session holds Responses API items, not Chat
Completions messages: a user/system/assistant text is one message item,
each tool call of an assistant message is its own `function_call` item, and
a tool message is a `function_call_output` item. A wire message is kept
when all its items come back; when only some do (the limit fell inside an
assistant message with several calls), the message is written back with
the items that came back, so the kit sees what the next run would see.

System prompt: out of band (`Agent(instructions=...)`); later system
messages are session items with role system.

Budget: limit = N items. Every wire message is at least one item, so at
most N messages come back; a message with k calls takes k (or k + 1) of
the N items.

Items come back from SQLite as new dicts; they are matched to the items
stored by position (the newest N) and checked equal, never guessed.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import require, run_async, serve, with_pinned  # noqa: E402
from openai_wire import calls_of, arguments_text, text_of  # noqa: E402


def to_items(m):
    """The session items of one wire message."""
    d = m.data
    if m.role == "tool":
        content = d.get("content")
        return [{"type": "function_call_output", "call_id": d.get("tool_call_id"),
                 "output": content if isinstance(content, str) else text_of(content)}]
    out = []
    calls = calls_of(d)
    text = text_of(d.get("content"))
    if text or not calls:
        role = m.role if m.role in ("user", "assistant", "system") else "user"
        if str(d.get("role")).lower() == "developer":
            role = "developer"
        out.append({"type": "message", "role": role, "content": text})
    for cid, name, args in calls:
        out.append({"type": "function_call", "call_id": cid, "name": name,
                    "arguments": arguments_text(args)})
    return out


def from_items(m, kept):
    """A wire message of which only the items `kept` came back."""
    d = m.data
    out = {"role": d.get("role")}
    texts = [i for i in kept if i.get("type") == "message"]
    out["content"] = texts[0]["content"] if texts else None
    calls = [i for i in kept if i.get("type") == "function_call"]
    if calls:
        out["tool_calls"] = [{"id": c["call_id"], "type": "function",
                              "function": {"name": c["name"], "arguments": c["arguments"]}}
                             for c in calls]
    return out


_counter = [0]


def reduce(request):
    memory = require("agents.memory", "openai-agents")
    if request.budget_kind != "messages":
        raise ValueError("the session limit counts items, not tokens")
    pinned = request.pinned
    stored = []  # (wire message, item)
    for m in request.messages:
        if m is not pinned:
            stored.extend((m, item) for item in to_items(m))
    _counter[0] += 1
    session = memory.SQLiteSession("compat-%d" % _counter[0], ":memory:",
                                   session_settings=memory.SessionSettings(limit=request.budget))
    try:
        run_async(session.add_items([item for _, item in stored]))
        got = run_async(session.get_items())
    finally:
        session.close()
    base = len(stored) - len(got)
    if base < 0:
        raise ValueError("the session returned more items than it was given")
    kept = []
    for j, item in enumerate(got):
        m, original = stored[base + j]
        if item != original:
            raise ValueError("item %d came back changed" % (base + j))
        kept.append((m, item))
    out = []
    for m, item in kept:
        if out and out[-1][0] is m:
            out[-1][1].append(item)
        else:
            out.append((m, [item]))
    answer = [m if len(items) == len(to_items(m)) else from_items(m, items) for m, items in out]
    return with_pinned(request, answer)


if __name__ == "__main__":
    serve(reduce, fmt="openai", package="openai-agents", module="agents.memory")
