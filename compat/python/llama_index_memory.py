#!/usr/bin/env python3
"""reducer-kit compat adapter: llama-index-core `ChatMemoryBuffer`.

Wire format: openai (llama-index's ChatMessage has the roles system, user,
assistant and tool; its OpenAI integration keeps an assistant message's
`tool_calls` and a tool message's `tool_call_id` in `additional_kwargs`).

System prompt: out of band. llama-index's chat engines and agents keep the
system prompt outside the memory (`prefix_messages`, `system_prompt`) and
put it in front of what `memory.get()` returns, so the pinned system
message is held aside and put back in its place; later system messages go into the
memory as MessageRole.SYSTEM.

Budget: ChatMemoryBuffer counts tokens of the text of the newest messages
(`token_limit`, `tokenizer_fn` over the contents joined by spaces). The
adapter sets token_limit = N and a tokenizer that returns, for the text of
the newest k messages, a list as long as their summed cost from the
request (1 per message under protocol v1, so the buffer keeps messages by
count; the request's `tokens` under v2). The buffer only ever measures a
suffix of the history, and the texts of different suffixes differ in
length, so the text determines the suffix exactly.

The system prompt's cost: llama-index's chat engines pass the tokens of the
prefix messages (the system prompt) as `get(initial_token_count=...)`
(llama_index/core/chat_engine/simple.py:82-99); the adapter does the same
with the pinned system message's cost (0 unless the request says
countPinned), so the buffer fits the rest into what is left.

The buffer is deprecated in favour of `llama_index.core.memory.Memory`
(chat_memory_buffer.py:21) and still what `ChatMemoryBuffer.from_defaults`
gives the chat engines.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import IdentityMap, require, with_pinned, serve  # noqa: E402
from openai_wire import text_of  # noqa: E402


def to_llama(m, li):
    d = m.data
    roles = {"system": li.MessageRole.SYSTEM, "user": li.MessageRole.USER,
             "assistant": li.MessageRole.ASSISTANT, "tool": li.MessageRole.TOOL}
    kwargs = {}
    if d.get("tool_calls"):
        kwargs["tool_calls"] = d["tool_calls"]
    if d.get("tool_call_id") is not None:
        kwargs["tool_call_id"] = d["tool_call_id"]
    role = roles.get(m.role, li.MessageRole.USER)  # llama-index has no other roles here
    return li.ChatMessage(role=role, content=text_of(d.get("content")), additional_kwargs=kwargs)


def reduce(request):
    li = require("llama_index.core.llms", "llama-index-core")
    memory = require("llama_index.core.memory", "llama-index-core")
    ident = IdentityMap()
    pinned = request.pinned
    history = [ident.add(to_llama(m, li), m) for m in request.messages if m is not pinned]

    # The cost of every suffix of the history, keyed by the text the buffer
    # measures for it.
    table = {}
    total = 0
    for k in range(1, len(history) + 1):
        total += request.cost(ident.get(history[-k]))
        table[" ".join(str(m.content) for m in history[-k:])] = total

    def tokenizer(text):
        if text not in table:
            raise ValueError("the buffer measured a text that is not a suffix of the history")
        return [0] * table[text]

    buf = memory.ChatMemoryBuffer.from_defaults(chat_history=history, token_limit=request.budget,
                                                tokenizer_fn=tokenizer)
    kept = buf.get(initial_token_count=request.cost(pinned) if pinned is not None else 0)
    out = []
    for k in kept:
        m = ident.get(k)
        if m is None:
            raise ValueError("ChatMemoryBuffer returned a message it was not given")
        out.append(m)
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="openai", package="llama-index-core", module="llama_index.core.memory")
