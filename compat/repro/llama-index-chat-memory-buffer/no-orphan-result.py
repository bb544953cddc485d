#!/usr/bin/env python3
"""llama-index-core 0.14.25, ChatMemoryBuffer.get(): a tool result without
its call.

As llama-index's docs show a chat engine's memory
(ChatMemoryBuffer.from_defaults(chat_history=..., token_limit=...,
tokenizer_fn=...), then memory.get(); llama_index/core/memory/
chat_memory_buffer.py:56-90, 113-151), with the assistant's tool calls in
additional_kwargs as llama-index's OpenAI integration stores them and a
tokenizer_fn that counts words.

Input: the kit's minimal counterexample (corpus/compat/
llama-index-chat-memory-buffer/, clause no-orphan-result): an assistant
message calling c1 and the tool message with its result, over the budget
together. The texts are words, so that the word count (the tokenizer) puts
the pair over token_limit and the result alone within it.

Exits 0 when get() returns a TOOL message whose call (an assistant
tool_calls entry with its id) is not earlier in what it returns: an
orphan result (the clause no-orphan-result fails), 1 otherwise.
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
called = set()
orphan = None
for m in out:
    for c in m.additional_kwargs.get("tool_calls") or []:
        called.add(c["id"])
    if m.role == MessageRole.TOOL and m.additional_kwargs.get("tool_call_id") not in called:
        orphan = m.additional_kwargs.get("tool_call_id")
        break
print("orphan result for call %r" % orphan if orphan else "every result has its call")
raise SystemExit(0 if orphan else 1)
