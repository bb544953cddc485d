#!/usr/bin/env python3
"""litellm 1.110.2, trim_messages: the whole history, over max_tokens.

As LiteLLM's docs show it ("Trimming Input Messages",
https://docs.litellm.ai/docs/completion/message_trimming, "Usage - set
max_tokens"): trim_messages(messages, model, max_tokens=N), which "ensures
tokens(messages) < max_tokens", with LiteLLM's own tokenizer for the model (here no model, which the
docs allow: "model ... is optional, as you can alternatively specify the
max_tokens parameter"; LiteLLM then counts with tiktoken).
LITELLM_LOCAL_MODEL_COST_MAP=True keeps LiteLLM from fetching its model cost
map over the network at import (it then uses the copy it ships).

Input: the shape of the kit's minimal counterexample (corpus/compat/
litellm-trim-messages/, clause budget): an assistant message calling c1
with no text (content null, as the Chat Completions API returns a tool
call) inside a history over the budget, trimmed to 14 tokens.

Exits 0 when the output counts more than max_tokens by LiteLLM's own
token_counter, 1 otherwise.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from litellm import token_counter  # noqa: E402
from litellm.utils import trim_messages  # noqa: E402

history = [
    {"role": "user", "content": "Weather?"},
    {"role": "assistant", "content": None,
     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    {"role": "assistant", "content": "Sunny."},
]
out = trim_messages(history, max_tokens=14)
for m in out:
    print(m)
n = token_counter(messages=out)
print("%d tokens, max_tokens 14" % n)
raise SystemExit(0 if n > 14 else 1)
