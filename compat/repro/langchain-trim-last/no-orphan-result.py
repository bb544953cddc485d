#!/usr/bin/env python3
"""langchain-core 1.8.3, trim_messages(strategy="last") with its defaults:
a ToolMessage whose call was cut.

The call of langchain-ai/langchain#33245: trim_messages(messages,
strategy="last", token_counter=len, max_tokens=N), no start_on
(langchain_core/messages/utils.py, the docstring of trim_messages,
lines 1165-1240: token_counter=len "to count the number of messages").

Input: the kit's minimal counterexample (corpus/compat/langchain-trim-last/,
clause no-orphan-result): an AIMessage calling c1 and the ToolMessage
with its result, and a budget of one message.

Exits 0 when the output holds a ToolMessage whose tool_call_id no
AIMessage before it in the output calls (the clause no-orphan-result
fails), 1 otherwise.
"""

from langchain_core.messages import AIMessage, ToolMessage, trim_messages

history = [
    AIMessage(content="", tool_calls=[{"name": "get_weather", "args": {}, "id": "c1",
                                       "type": "tool_call"}]),
    ToolMessage(content="sunny", tool_call_id="c1"),
]
out = trim_messages(history, strategy="last", token_counter=len, max_tokens=1)
print("output:", out)
called = set()
orphan = None
for i, m in enumerate(out):
    if isinstance(m, ToolMessage) and m.tool_call_id not in called:
        orphan = "output message %d: ToolMessage %r answers no call kept before it" % (i, m.tool_call_id)
        break
    if isinstance(m, AIMessage):
        called |= {c["id"] for c in m.tool_calls}
print(orphan or "every ToolMessage keeps its call")
raise SystemExit(0 if orphan else 1)
