#!/usr/bin/env python3
"""litellm 1.110.2, trim_messages: an assistant message keeps its tool call, the result is gone (BerriAI/litellm#10696).

As LiteLLM's docs show it ("Trimming Input Messages",
https://docs.litellm.ai/docs/completion/message_trimming, "Usage - set
max_tokens"): trim_messages(messages, model, max_tokens=N), which "ensures
tokens(messages) < max_tokens", with LiteLLM's own tokenizer for the model.
LITELLM_LOCAL_MODEL_COST_MAP=True keeps LiteLLM from fetching its model cost
map over the network at import (it then uses the copy it ships).

Input: as for no-orphan-result.py (a question, an assistant message
calling c1, its tool message, the answer), trimmed to 14 tokens of gpt-4o.

Exits 0 when the output keeps an assistant message's tool call while the
tool message answering it is gone, 1 otherwise.
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
out = trim_messages(history, "gpt-4o", max_tokens=14)
for m in out:
    print(m)
answered = {m.get("tool_call_id") for m in out if m["role"] == "tool"}
lost = [c["id"] for m in out for c in m.get("tool_calls") or [] if c["id"] not in answered]
print("calls kept without their result: %s" % lost if lost else "every kept call keeps its result")
raise SystemExit(0 if lost else 1)
