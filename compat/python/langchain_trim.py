#!/usr/bin/env python3
"""reducer-kit compat adapter: langchain-core `trim_messages`.

Wire format: openai (LangChain's messages are Chat Completions messages:
SystemMessage, HumanMessage, AIMessage with `tool_calls`, ToolMessage with
`tool_call_id`).

Configurations (--config), each as LangChain's docs show it:
  last                 trim_messages(strategy="last")
  last-human-system    strategy="last", start_on="human", include_system=True
  last-human-system-end  the same and end_on=("human", "tool")
  first                strategy="first"

Budget: max_tokens = the request's budget, with a token counter that
charges every message its cost from the request (`Request.cost`: 1 per
message under protocol v1, the request's `tokens` under v2) and the pinned
system message 0. LangChain's docs count messages with token_counter=len,
which charges the kept SystemMessage one of the N slots under
include_system=True (an off-by-one against the kit's budget, which never
counts the pinned system message); the per-message counter is LangChain's
own documented alternative and expresses the kit's budget exactly.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import IdentityMap, require, serve  # noqa: E402
from openai_wire import arguments_text, calls_of, text_of  # noqa: E402

CONFIGS = {
    "last": dict(strategy="last"),
    "last-human-system": dict(strategy="last", start_on="human", include_system=True),
    "last-human-system-end": dict(strategy="last", start_on="human", include_system=True,
                                  end_on=("human", "tool")),
    "first": dict(strategy="first"),
}


def content_for_langchain(content):
    """LangChain takes a string or a list of parts; null becomes ""."""
    if isinstance(content, (str, list)):
        return content
    return ""


def to_langchain(m, lc):
    d = m.data
    content = content_for_langchain(d.get("content"))
    if m.role == "system":
        return lc.SystemMessage(content=content)
    if m.role == "user":
        return lc.HumanMessage(content=content)
    if m.role == "assistant":
        calls = [{"name": name, "args": args, "id": cid, "type": "tool_call"}
                 for cid, name, args in calls_of(d)]
        return lc.AIMessage(content=content, tool_calls=calls)
    if m.role == "tool":
        return lc.ToolMessage(content=content, tool_call_id=d.get("tool_call_id"))
    return lc.ChatMessage(role=d.get("role"), content=content)


def from_langchain(msg, lc):
    """A message LangChain made (or changed), in the OpenAI format."""
    content = msg.content
    if isinstance(msg, lc.SystemMessage):
        return {"role": "system", "content": content}
    if isinstance(msg, lc.HumanMessage):
        return {"role": "user", "content": content}
    if isinstance(msg, lc.ToolMessage):
        return {"role": "tool", "tool_call_id": msg.tool_call_id, "content": content}
    if isinstance(msg, lc.AIMessage):
        out = {"role": "assistant", "content": content}
        if msg.tool_calls:
            out["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["name"],
                                               "arguments": arguments_text(c["args"])}}
                                 for c in msg.tool_calls]
        return out
    return {"role": getattr(msg, "role", "user"), "content": content}


def reduce(request):
    lc = require("langchain_core.messages", "langchain-core")
    ident = IdentityMap()
    history = [ident.add(to_langchain(m, lc), m) for m in request.messages]

    def count(message: lc.BaseMessage) -> int:
        # LangChain calls a counter whose first parameter is annotated
        # BaseMessage once per message.
        m = ident.get(message)
        return request.cost(m) if m is not None else request.created_cost()

    kept = lc.trim_messages(history, max_tokens=request.budget, token_counter=count,
                            **CONFIGS[request.config])
    return [ident.get(k) or from_langchain(k, lc) for k in kept]


if __name__ == "__main__":
    serve(reduce, fmt="openai", package="langchain-core", module="langchain_core.messages",
          configs=list(CONFIGS), default_config="last")
