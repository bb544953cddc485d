#!/usr/bin/env python3
"""reducer-kit compat adapter: llama-index-core `Memory`.

`llama_index.core.memory.Memory`, the documented replacement of the
deprecated ChatMemoryBuffer (chat_memory_buffer.py:21), certified as an
agent uses it: `Memory.from_defaults(token_limit=..., tokenizer_fn=...)`,
each message of the history added with `memory.put(message)` (which runs
the FIFO queue's waterfall after every message, memory.py:811-819,
672-809), then `memory.get()` for the messages the next LLM call gets
(memory.py:624-670, 849-853). The adapter awaits their async twins
`aput` and `aget` (put and get are asyncio_run of them, memory.py:849-861)
on its own event loop, and disposes of the chat store's in-memory SQLite
engine afterwards, so that no event loop or connection thread outlives a
request (the zygote forks the adapter, spec of compat_wire.py). The memory has no memory blocks, so
nothing else is inserted.

Wire format: openai (llama-index's ChatMessage roles system, user,
assistant and tool; the OpenAI integration keeps an assistant message's
`tool_calls` and a tool message's `tool_call_id` in `additional_kwargs`).

System prompt: out of band (llama-index agents keep `system_prompt`
outside the memory): the pinned system message is held aside and put back
in its place; later system messages go into the memory as SYSTEM messages.

Budget: the queue keeps its messages within token_limit *
chat_history_token_ratio (memory.py:696); with no memory blocks the whole
limit is the chat history's, so chat_history_token_ratio=1.0 and
token_limit = the budget (less the pinned system message's cost under
countPinned: the room the application leaves for its system prompt; a
limit below 1 cannot be expressed and is answered `unsupported`).
token_flush_size keeps its default (from_defaults lowers it to 70% of a
smaller token_limit, memory.py:325-326).

Costs: through the documented `tokenizer_fn` hook. The memory counts a
message as the tokens of its text blocks plus those of
`str(additional_kwargs)` (memory.py:343-444), so each message carries its
wire index in `additional_kwargs` ("__kit__"), which the chat store keeps
and gives back, and the tokenizer returns, for the text of a message's
additional_kwargs, as many tokens as the message's cost from the request
(`Request.cost`) and none for its text blocks. The same index maps the
messages get() returns, which the SQL chat store rebuilds, back to the
request's messages.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import Unsupported, require, run_async, with_pinned, serve  # noqa: E402
from openai_wire import text_of  # noqa: E402

MARK = "__kit__"
MARK_RE = re.compile(r"'__kit__': (\d+)")


def to_llama(m, li):
    d = m.data
    roles = {"system": li.MessageRole.SYSTEM, "user": li.MessageRole.USER,
             "assistant": li.MessageRole.ASSISTANT, "tool": li.MessageRole.TOOL}
    kwargs = {MARK: m.index}
    if d.get("tool_calls"):
        kwargs["tool_calls"] = d["tool_calls"]
    if d.get("tool_call_id") is not None:
        kwargs["tool_call_id"] = d["tool_call_id"]
    role = roles.get(m.role, li.MessageRole.USER)  # llama-index has no other roles here
    return li.ChatMessage(role=role, content=text_of(d.get("content")), additional_kwargs=kwargs)


def reduce(request):
    li = require("llama_index.core.llms", "llama-index-core")
    memory = require("llama_index.core.memory", "llama-index-core")
    pinned = request.pinned
    by_index = {m.index: m for m in request.messages}
    limit = request.budget - (request.cost(pinned) if pinned is not None else 0)
    if limit < 1:
        raise Unsupported("the system prompt takes the whole budget (Memory's token_limit must be >= 1)")

    def tokenizer(text):
        found = MARK_RE.search(text)
        if found is None:
            return []  # a text block: the message's cost is charged on its additional_kwargs
        return [0] * request.cost(by_index[int(found.group(1))])

    mem = memory.Memory.from_defaults(token_limit=limit, tokenizer_fn=tokenizer,
                                      chat_history_token_ratio=1.0)
    try:
        for m in request.messages:
            if m is not pinned:
                run_async(mem.aput(to_llama(m, li)))
        kept = run_async(mem.aget())
    finally:
        engine = mem.sql_store._async_engine
        if engine is not None:
            run_async(engine.dispose())
    out = []
    for k in kept:
        m = by_index.get((k.additional_kwargs or {}).get(MARK))
        if m is None:
            raise ValueError("Memory.get() returned a message it was not given")
        out.append(m)
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="openai", package="llama-index-core", module="llama_index.core.memory")
