#!/usr/bin/env python3
"""litellm 1.110.2, trim_messages: a tool message whose call was cut.

As LiteLLM's docs show it ("Trimming Input Messages",
https://docs.litellm.ai/docs/completion/message_trimming, "Usage - set
max_tokens"): trim_messages(messages, model, max_tokens=N), which "ensures
tokens(messages) < max_tokens", with LiteLLM's own tokenizer for the model.
LITELLM_LOCAL_MODEL_COST_MAP=True keeps LiteLLM from fetching its model cost
map over the network at import (it then uses the copy it ships).

Input: the shape of the kit's minimal counterexample (corpus/compat/
litellm-trim-messages/, clause no-orphan-result) with real texts: a
question, an assistant message calling c1, the tool message with its
result and the answer, trimmed to 20 tokens of gpt-4o.

Exits 0 when the output holds a tool message whose tool_call_id no
assistant message before it in the output calls, 1 otherwise.
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
called = set()
orphan = None
for i, m in enumerate(out):
    if m["role"] == "tool" and m.get("tool_call_id") not in called:
        orphan = "output message %d: tool message %r answers no call kept before it" % (i, m.get("tool_call_id"))
        break
    called |= {c["id"] for c in m.get("tool_calls") or []}
print(orphan or "every tool message keeps its call")
raise SystemExit(0 if orphan else 1)
