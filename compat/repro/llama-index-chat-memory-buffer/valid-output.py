#!/usr/bin/env python3
"""llama-index-core 0.14.25, ChatMemoryBuffer.get(): a history the model
cannot take.

As llama-index's docs show a chat engine's memory
(ChatMemoryBuffer.from_defaults(chat_history=..., token_limit=...,
tokenizer_fn=...), then memory.get(); llama_index/core/memory/
chat_memory_buffer.py:56-90, 113-151), with the assistant's tool calls in
additional_kwargs as llama-index's OpenAI integration stores them and a
tokenizer_fn that counts words.

Input: the kit's minimal counterexample (corpus/compat/
llama-index-chat-memory-buffer/, clause valid-output): an assistant
message calling c1 and the tool message with its result, over the budget
together. The texts are words, so that the word count (the tokenizer) puts
the pair over token_limit and the result alone within it.

Exits 0 when what get() returns is no valid history: a TOOL message that
does not answer a call of the assistant message before its run of tool
messages (the rule result-follows-call of the validator, the rule of the
Chat Completions API that a tool message responds to a preceding
tool_calls entry; the clause valid-output fails), 1 otherwise.
"""

from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.core.memory import ChatMemoryBuffer

call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
history = [
    ChatMessage(role=MessageRole.ASSISTANT, content="Let me check the weather.",
                additional_kwargs={"tool_calls": [call]}),
    ChatMessage(role=MessageRole.TOOL, content="sunny",
                additional_kwargs={"tool_call_id": "c1"}),
]
memory = ChatMemoryBuffer.from_defaults(chat_history=history, token_limit=3,
                                        tokenizer_fn=lambda text: text.split())
out = memory.get()
for m in out:
    print(m.role.value, repr(m.content), m.additional_kwargs)
broken = None
calls = set()  # the calls of the assistant message before the current run of tool messages
for i, m in enumerate(out):
    if m.role == MessageRole.ASSISTANT:
        calls = {c["id"] for c in m.additional_kwargs.get("tool_calls") or []}
    elif m.role == MessageRole.TOOL:
        if m.additional_kwargs.get("tool_call_id") not in calls:
            broken = "message %d: a tool message for %r follows no call of that id" % (
                i, m.additional_kwargs.get("tool_call_id"))
            break
    else:
        calls = set()
print("invalid: " + broken if broken else "a valid history")
raise SystemExit(0 if broken else 1)
