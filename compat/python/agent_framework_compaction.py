#!/usr/bin/env python3
"""reducer-kit compat adapter: Microsoft Agent Framework (agent-framework-core)
`TruncationStrategy`.

The compaction strategy an Agent or chat client takes
(`Agent(..., compaction_strategy=...)`): before each model call the client
runs `apply_compaction(messages, strategy=..., tokenizer=...)` on the
messages it is about to send and sends the projection of the included ones
(agent_framework/_clients.py:456-476, _compaction.py:2650-2665), which is
the call the adapter makes. TruncationStrategy(max_n=N, compact_to=N)
excludes whole message groups, oldest first, while the metric is over
compact_to; system groups and the newest non-system group are never
excluded (_compaction.py:1767-1848), and a tool call's group holds the
assistant message with the calls and the messages with their results.

Wire format: canonical (Agent Framework's Message is the Python twin of
Microsoft.Extensions.AI's ChatMessage: a role and contents, text,
function_call, function_result).

System prompt: in band (preserve_system=True, its default, keeps system
groups; an Agent's instructions go in front as a system message).

Budget: under a message budget the strategy counts included messages
(no tokenizer), max_n = compact_to = N, plus one when the history has a
pinned system message, which the strategy counts and the kit does not.
Under a token budget the documented `tokenizer` (TokenizerProtocol,
count_tokens(text)) charges each message its cost from the request: the
strategy counts the text `_serialize_message` makes of each message
(_compaction.py:1080-1117), which carries the message's `message_id`, so
each message gets the id `kit-<wire index>` and the tokenizer returns the
cost of the message whose id it finds (the pinned system message 0 unless
countPinned). The same id maps the messages back.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import IdentityMap, require, run_async, serve  # noqa: E402
from canonical_wire import item_type, items, result_text  # noqa: E402

ROLES = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"}


def to_af(m, af):
    parts = []
    for it in items(m.data):
        t = item_type(it)
        if t == "text":
            parts.append(af.Content.from_text(it.get("text") or ""))
        elif t == "functionCall":
            args = it.get("arguments")
            parts.append(af.Content.from_function_call(call_id=it.get("callId"), name=it.get("name") or "tool",
                                                       arguments=args if isinstance(args, (dict, str)) else None))
        elif t == "functionResult":
            parts.append(af.Content.from_function_result(call_id=it.get("callId"),
                                                         result=result_text(it.get("result"))))
        # other items (approvals, data, reasoning) are left out: `without` in the manifest
    role = "system" if m.role == "system" else ROLES.get(m.role, "assistant")
    return af.Message(role, parts, message_id="kit-%d" % m.index)


def reduce(request):
    af = require("agent_framework", "agent-framework-core")
    ident = IdentityMap()
    by_id = {}
    history = []
    for m in request.messages:
        msg = ident.add(to_af(m, af), m)
        by_id[msg.message_id] = m
        history.append(msg)
    if request.budget_kind == "messages":
        n = request.budget + (1 if request.pinned is not None else 0)
        strategy = af.TruncationStrategy(max_n=n, compact_to=n)
    else:
        class RequestCosts:
            """count_tokens over the text the strategy makes of one message."""

            def count_tokens(self, text):
                m = by_id.get(json.loads(text).get("message_id"))
                return request.cost(m) if m is not None else request.created_cost()

        strategy = af.TruncationStrategy(max_n=request.budget, compact_to=request.budget,
                                         tokenizer=RequestCosts())
    kept = run_async(af.apply_compaction(history, strategy=strategy))
    out = []
    for k in kept:
        m = ident.get(k) or by_id.get(k.message_id)
        if m is None:
            raise ValueError("apply_compaction returned a message it was not given")
        out.append(m)
    return out


if __name__ == "__main__":
    serve(reduce, fmt="canonical", package="agent-framework-core", module="agent_framework")
