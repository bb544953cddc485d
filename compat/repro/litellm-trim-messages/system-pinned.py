#!/usr/bin/env python3
"""litellm 1.110.2, trim_messages: the developer message is trimmed away.

As LiteLLM's docs show it ("Trimming Input Messages",
https://docs.litellm.ai/docs/completion/message_trimming, "Usage - set
max_tokens"): trim_messages(messages, model, max_tokens=N), which "ensures
tokens(messages) < max_tokens", with LiteLLM's own tokenizer for the model.
LITELLM_LOCAL_MODEL_COST_MAP=True keeps LiteLLM from fetching its model cost
map over the network at import (it then uses the copy it ships).

Input: the kit's case spec/developer-role with real texts: a developer
message (the Chat Completions API's system prompt for newer models)
followed by a conversation over the budget, trimmed to 30 tokens of
gpt-4o.

Exits 0 when the output has lost the developer message, 1 otherwise.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from litellm.utils import trim_messages  # noqa: E402

history = [
    {"role": "developer", "content": "You are terse."},
    {"role": "user", "content": "What is the capital of France, and what is it known for?"},
    {"role": "assistant", "content": "Paris, known for the Eiffel Tower, the Louvre and its cafes."},
    {"role": "user", "content": "Thanks!"},
]
out = trim_messages(history, "gpt-4o", max_tokens=30)
for m in out:
    print(m)
lost = not any(m["role"] in ("developer", "system") for m in out)
print("the developer message is %s" % ("lost" if lost else "kept"))
raise SystemExit(0 if lost else 1)
