#!/usr/bin/env python3
"""litellm 1.110.2, trim_messages: a later system message is merged into the first.

As LiteLLM's docs show it ("Trimming Input Messages",
https://docs.litellm.ai/docs/completion/message_trimming, "Usage - set
max_tokens"): trim_messages(messages, model, max_tokens=N), which "ensures
tokens(messages) < max_tokens", with LiteLLM's own tokenizer for the model.
LITELLM_LOCAL_MODEL_COST_MAP=True keeps LiteLLM from fetching its model cost
map over the network at import (it then uses the copy it ships).

Input: the kit's case spec/later-system-message with real texts: a system
message, a turn, a later system message and a question, over the budget,
trimmed to 40 tokens of gpt-4o.

Exits 0 when the output holds a system message that is none of the input's
(their contents joined into one), 1 otherwise.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from litellm.utils import trim_messages  # noqa: E402

history = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "What is the capital of France, and what is it known for?"},
    {"role": "assistant", "content": "Paris, known for the Eiffel Tower, the Louvre and its cafes."},
    {"role": "system", "content": "The user is a gold member."},
    {"role": "user", "content": "Can I upgrade my seat?"},
]
out = trim_messages(history, "gpt-4o", max_tokens=40)
for m in out:
    print(m)
made = [m for m in out if m["role"] == "system" and m not in history]
print("system messages that are no input message: %s" % made if made else "every system message is an input message")
raise SystemExit(0 if made else 1)
