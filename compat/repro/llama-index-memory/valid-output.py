#!/usr/bin/env python3
"""llama-index-core 0.14.25, Memory: a history the model rejects.

As llama-index's docs show the memory of an agent (Memory.from_defaults(
token_limit=..., tokenizer_fn=...), messages added with memory.put() as
the agent stores them, then memory.get() for the next LLM call;
llama_index/core/memory/memory.py:289-341, 811-861), with the assistant's
tool calls in additional_kwargs as llama-index's OpenAI integration stores
them and tokenizer_fn counting words (the documented tokenizer hook).

Input: the shape of the kit's minimal counterexample (corpus/compat/
llama-index-memory/, clause valid-output; the kit's case
spec/overflow-without-question): an agent's steps with no user message in
the queue (two tool calls with their results, each followed by an answer),
put one by one into a memory of 30 tokens.

Exits 0 when what get() returns is no valid history: a TOOL message that
does not answer a call of the ASSISTANT message before its run of tool
messages (the validator's rule result-follows-call, the Chat Completions
rule that a tool message responds to a preceding tool_calls entry), 1
otherwise.
"""

from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.core.memory import Memory


def call(cid, name):
    return ChatMessage(role=MessageRole.ASSISTANT, content="",
                       additional_kwargs={"tool_calls": [{"id": cid, "type": "function",
                                                          "function": {"name": name, "arguments": "{}"}}]})


def result(cid, text):
    return ChatMessage(role=MessageRole.TOOL, content=text, additional_kwargs={"tool_call_id": cid})


history = [call("c1", "get_weather"), result("c1", "sunny"),
           ChatMessage(role=MessageRole.ASSISTANT, content="It is sunny in Paris."),
           call("c2", "get_forecast"), result("c2", "rain tomorrow"),
           ChatMessage(role=MessageRole.ASSISTANT, content="Rain is expected tomorrow.")]
memory = Memory.from_defaults(token_limit=30, tokenizer_fn=lambda text: text.split())
for message in history:
    memory.put(message)
out = memory.get()
for m in out:
    print(m.role.value, repr(m.content), m.additional_kwargs)
broken = None
calls = set()  # the calls of the ASSISTANT message before the current run of TOOL messages
for i, m in enumerate(out):
    if m.role == MessageRole.ASSISTANT:
        calls = {c["id"] for c in m.additional_kwargs.get("tool_calls") or []}
    elif m.role == MessageRole.TOOL:
        if m.additional_kwargs.get("tool_call_id") not in calls:
            broken = "message %d: a TOOL message for %r follows no call of that id" % (
                i, m.additional_kwargs.get("tool_call_id"))
            break
    else:
        calls = set()
print("invalid: " + broken if broken else "a valid history")
raise SystemExit(0 if broken else 1)
