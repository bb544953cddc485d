#!/usr/bin/env python3
"""reducer-kit compat adapter: strands-agents `SlidingWindowConversationManager`.

Wire format: anthropic (Strands messages are Bedrock Converse messages:
roles user and assistant, content blocks `text`, `toolUse` and
`toolResult`, tool results in a user message, several of them together as
Anthropic sends them; the system prompt lives outside the messages).

System prompt: out of band, as in Strands (`Agent(system_prompt=...)`):
the request's top-level `system` is held aside and given back.

Budget: window_size = N. The manager is applied as the agent applies it
after every cycle (`apply_management`, which reduces only when there are
more than window_size messages); it edits the agent's message list in
place, so kept messages are the very dicts the adapter made.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import Unsupported, IdentityMap, require, with_pinned, serve  # noqa: E402


def result_blocks(content):
    """A tool_result's content as Strands ToolResultContent blocks."""
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, list):
        return [{"text": b.get("text", "")} for b in content
                if isinstance(b, dict) and b.get("type") == "text"]
    return []


def to_strands(m):
    d = m.data
    content = d.get("content")
    blocks = []
    if isinstance(content, str):
        blocks.append({"text": content})
    elif isinstance(content, list):
        for b in content:
            t = b.get("type") if isinstance(b, dict) else None
            if t == "text":
                blocks.append({"text": b.get("text", "")})
            elif t == "tool_use":
                blocks.append({"toolUse": {"toolUseId": b.get("id"), "name": b.get("name", "tool"),
                                           "input": b.get("input", {})}})
            elif t == "tool_result":
                blocks.append({"toolResult": {"toolUseId": b.get("tool_use_id"),
                                              "status": "error" if b.get("is_error") else "success",
                                              "content": result_blocks(b.get("content"))}})
            # other blocks (approvals, images, ...) have no Strands counterpart here
    role = d.get("role") if d.get("role") in ("user", "assistant") else "user"
    return {"role": role, "content": blocks}


class _AgentView:
    """What the manager uses of an Agent: its message list."""

    def __init__(self, messages):
        self.messages = messages


def reduce(request):
    swcm = require("strands.agent.conversation_manager", "strands-agents")
    ident = IdentityMap()
    pinned = request.pinned
    history = [ident.add(to_strands(m), m) for m in request.messages if m is not pinned]
    if request.budget_kind != "messages":
        raise Unsupported("SlidingWindowConversationManager counts messages, not tokens")
    manager = swcm.SlidingWindowConversationManager(window_size=request.budget,
                                                    should_truncate_results=False)
    agent = _AgentView(history)
    manager.apply_management(agent)
    out = []
    for k in agent.messages:
        m = ident.get(k)
        if m is None:
            raise ValueError("the manager returned a message it was not given")
        out.append(m)
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="anthropic", package="strands-agents", module="strands.agent.conversation_manager")
