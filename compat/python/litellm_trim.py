#!/usr/bin/env python3
"""reducer-kit compat adapter: litellm `trim_messages`.

As LiteLLM's docs show it ("Trimming Input Messages",
https://docs.litellm.ai/docs/completion/message_trimming, "Usage - set
max_tokens"): `trim_messages(messages, max_tokens=N)` on the Chat
Completions dicts an application sends to `completion`, which "ensures
tokens(messages) < max_tokens".

Wire format: openai (LiteLLM's messages are Chat Completions dicts).

System prompt: in band. trim_messages joins the contents of every system
message into one system message it puts first when it trims
(litellm/utils.py:8944-8948, 8973-8992).

Budget: max_tokens = the request's budget, tokens counted with the
request's costs. trim_messages takes no token counter: it counts with
`litellm.utils.token_counter` (utils.py:8962 and get_token_count, 8849),
LiteLLM's tokenizer for the model (tiktoken by default). The kit's costs
stand for what the reducer's tokenizer counts (spec/spec.md §11.1), so the
adapter puts a counter that charges each message its cost from the
request (`Request.cost`: 1 per message under a message budget, the
request's `tokens` under a token budget, the pinned system message 0
unless countPinned) where trim_messages looks it up, in place of
litellm.utils.token_counter; nothing else of LiteLLM changes. A list costs
the sum of its messages (LiteLLM's own count adds a few tokens per message
and 3 for the reply, which the request's costs leave out). A message that
LiteLLM shortened ("removing characters from the middle",
shorten_message_to_fit_limit, utils.py:8852-8902) costs its original's
cost in proportion to the length of its new text, as a tokenizer would;
the system message LiteLLM builds from the system messages' contents
costs the sum of theirs. The reproductions use LiteLLM's own tokenizer.

Identity: trim_messages deep-copies the messages (utils.py:8931), so each
dict handed to it carries its wire index in a member `_kit_index`, which
LiteLLM carries along unread; a returned dict whose members, less that
one, equal its original's is the original (written back as its exact
text), any other is written as LiteLLM made it.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import require, serve  # noqa: E402

KEY = "_kit_index"
# LiteLLM fetches its model cost map over the network when imported unless
# told to use the copy it ships (its documented LITELLM_LOCAL_MODEL_COST_MAP).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def reduce(request):
    utils = require("litellm.utils", "litellm")
    by_index = {m.index: m for m in request.messages}
    history = []
    for m in request.messages:
        d = dict(m.data)
        d[KEY] = m.index
        history.append(d)

    def cost_of(d):
        if not isinstance(d, dict):
            return 0
        m = by_index.get(d.get(KEY))
        if m is not None:
            base = request.cost(m)
            orig, now = m.data.get("content"), d.get("content")
            if now == orig or not isinstance(orig, str) or not orig or not isinstance(now, str):
                return base
            return math.ceil(base * len(now) / len(orig))  # shortened by LiteLLM
        if d.get("role") == "system":
            # the system message trim_messages builds from every system message's content
            return sum(request.cost(s) for s in request.messages if s.role == "system")
        return request.created_cost()

    def token_counter(model="", custom_tokenizer=None, text=None, messages=None, **_):
        if messages is None:
            raise ValueError("the compat counter counts messages only")
        return sum(cost_of(d) for d in messages)

    utils.token_counter = token_counter
    kept = utils.trim_messages(history, max_tokens=request.budget)
    if isinstance(kept, tuple):
        kept = kept[0]
    out = []
    for d in kept:
        m = by_index.get(d.get(KEY)) if isinstance(d, dict) else None
        rest = {k: v for k, v in d.items() if k != KEY} if isinstance(d, dict) else d
        if m is not None and rest == m.data:
            out.append(m)
        else:
            out.append(rest)
    return out


if __name__ == "__main__":
    serve(reduce, fmt="openai", package="litellm", module="litellm.utils")
