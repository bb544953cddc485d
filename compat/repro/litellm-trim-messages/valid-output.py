#!/usr/bin/env python3
"""litellm 1.110.2, trim_messages: a history the model rejects.

As LiteLLM's docs show it ("Trimming Input Messages",
https://docs.litellm.ai/docs/completion/message_trimming, "Usage - set
max_tokens"): trim_messages(messages, model, max_tokens=N), which "ensures
tokens(messages) < max_tokens", with LiteLLM's own tokenizer for the model.
LITELLM_LOCAL_MODEL_COST_MAP=True keeps LiteLLM from fetching its model cost
map over the network at import (it then uses the copy it ships).

Input: as for no-orphan-result.py (a valid history: a question, an
assistant message calling c1, its tool message, the answer), trimmed to 20
tokens of gpt-4o.

Exits 0 when the output is no valid history: a tool message that does not
answer a call of the assistant message before its run of tool messages
(the validator's rule result-follows-call, the Chat Completions rule that
a tool message responds to a preceding tool_calls entry), 1 otherwise.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from litellm.utils import trim_messages  # noqa: E402

history = [
    {"role": "user", "content": "Weather?"},
    {"role": "assistant", "content": "",
     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny and warm all day long in the city of Paris today"},
    {"role": "assistant", "content": "Sunny."},
]
out = trim_messages(history, "gpt-4o", max_tokens=20)
for m in out:
    print(m)
broken = None
calls = set()  # the calls of the assistant message before the current run of tool messages
for i, m in enumerate(out):
    if m["role"] == "assistant":
        calls = {c["id"] for c in m.get("tool_calls") or []}
    elif m["role"] == "tool":
        if m.get("tool_call_id") not in calls:
            broken = "message %d: a tool message for %r follows no call of that id" % (i, m.get("tool_call_id"))
            break
    else:
        calls = set()
print("invalid: " + broken if broken else "a valid history")
raise SystemExit(0 if broken else 1)
