#!/usr/bin/env python3
"""langchain-core 1.8.3, trim_messages(strategy="last") with its defaults:
a history a chat model rejects.

The call of langchain-ai/langchain#33245: trim_messages(messages,
strategy="last", token_counter=len, max_tokens=N), no start_on
(langchain_core/messages/utils.py, the docstring of trim_messages,
lines 1165-1240). The docstring itself says that "a ToolMessage can only
appear after an AIMessage that involved a tool call" (lines 1173-1174).

Input: the kit's minimal counterexample (corpus/compat/langchain-trim-last/,
clause valid-output): an AIMessage calling c1 and the ToolMessage with its
result (a valid history), and a budget of one message.

Exits 0 when the output is no valid history: a ToolMessage that does not
answer a call of the AIMessage before its run of ToolMessages (the
validator's rule result-follows-call, the Chat Completions rule that a
tool message responds to a preceding tool_calls entry), 1 otherwise.
"""

from langchain_core.messages import AIMessage, ToolMessage, trim_messages

history = [
    AIMessage(content="", tool_calls=[{"name": "get_weather", "args": {}, "id": "c1",
                                       "type": "tool_call"}]),
    ToolMessage(content="sunny", tool_call_id="c1"),
]
out = trim_messages(history, strategy="last", token_counter=len, max_tokens=1)
print("output:", out)
broken = None
calls = set()  # the calls of the AIMessage before the current run of ToolMessages
for i, m in enumerate(out):
    if isinstance(m, AIMessage):
        calls = {c["id"] for c in m.tool_calls}
    elif isinstance(m, ToolMessage):
        if m.tool_call_id not in calls:
            broken = "message %d: a ToolMessage for %r follows no call of that id" % (i, m.tool_call_id)
            break
    else:
        calls = set()
print("invalid: " + broken if broken else "a valid history")
raise SystemExit(0 if broken else 1)
