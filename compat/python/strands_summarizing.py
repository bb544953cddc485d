#!/usr/bin/env python3
"""reducer-kit compat adapter: strands-agents `SummarizingConversationManager`.

Certified the way an Agent uses it: the manager does nothing after a cycle
(`apply_management` is a no-op, summarizing_conversation_manager.py:103-115);
when the model raises ContextWindowOverflowException the agent calls
`reduce_context(agent, e)`, which summarizes the oldest messages into one
user message (lines 117-200), and calls the model again. The adapter's
stand-in model overflows exactly when the messages it would be sent cost
more than the budget, so the adapter calls reduce_context, with the
overflow, while the history is over the budget. The summary comes from
the same stand-in model, as in the default case (the agent's model called
through `generate_summary`, compression/context_compression.py:149-191): a
stream answering every summarization request with the fixed text SUMMARY,
never a network.

Wire format: anthropic (Strands messages are Bedrock Converse messages; see
strands_window.py). System prompt: out of band (`Agent(system_prompt=...)`),
held aside and put back.

Budget: under a message budget N, preserve_recent_messages = N - 1 (the
documented "minimum number of recent messages to always keep", leaving one
slot for the summary); under a token budget, 0. summary_ratio = 0.8, the
largest the manager takes (line 77), so that each reduction summarizes as
much as it may. The summary costs S (summaryTokens, 1 under a message
budget). A budget the manager cannot reach because a reduction leaves the
history as long as it was (it summarizes max(1, int(len * summary_ratio))
messages, line 157, and a summary of one message takes its place) is
answered `unsupported`: the agent would ask the model again and again.
Certified with `--summaries`: the summary message is judged as a summary.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import IdentityMap, Unsupported, require, with_pinned, serve  # noqa: E402
from strands_window import to_strands  # noqa: E402

SUMMARY = "Summary of the earlier conversation (fixed text from the compat adapter's stand-in model)."


class FixedSummaryModel:
    """The agent's model as the manager calls it (`model.stream(messages,
    tool_specs=None, system_prompt=...)`): one assistant reply whose text is
    SUMMARY, as Bedrock Converse stream events."""

    async def stream(self, messages, tool_specs=None, system_prompt=None, **kwargs):
        for event in ({"messageStart": {"role": "assistant"}},
                      {"contentBlockStart": {"start": {}}},
                      {"contentBlockDelta": {"delta": {"text": SUMMARY}}},
                      {"contentBlockStop": {}},
                      {"messageStop": {"stopReason": "end_turn"}}):
            yield event


class _AgentView:
    """What the manager uses of an Agent: its messages and its model."""

    def __init__(self, messages):
        self.messages = messages
        self.model = self.aux_model = FixedSummaryModel()


def reduce(request):
    cm = require("strands.agent.conversation_manager", "strands-agents")
    exc = require("strands.types.exceptions", "strands-agents")
    ident = IdentityMap()
    pinned = request.pinned
    history = [ident.add(to_strands(m), m) for m in request.messages if m is not pinned]
    budget = request.budget - (request.cost(pinned) if pinned is not None else 0)
    if request.budget_kind == "messages":
        preserve = request.budget - 1
    else:
        preserve = 0

    def cost(messages):
        total = 0
        for k in messages:
            m = ident.get(k)
            total += request.cost(m) if m is not None else request.created_cost()
        return total

    manager = cm.SummarizingConversationManager(summary_ratio=0.8, preserve_recent_messages=preserve)
    agent = _AgentView(history)
    while cost(agent.messages) > budget:
        before = (len(agent.messages), cost(agent.messages))
        manager.reduce_context(agent, e=exc.ContextWindowOverflowException("over the budget"))
        if (len(agent.messages), cost(agent.messages)) >= before:
            raise Unsupported("a reduction leaves %d messages costing %d, as before: the manager cannot reach "
                              "the budget, and the agent would overflow again" % before)
    out = []
    for k in agent.messages:
        m = ident.get(k)
        if m is not None:
            out.append(m)
        else:  # the summary: a user message of text blocks
            out.append({"role": k["role"], "content": [{"type": "text", "text": b["text"]}
                                                        for b in k["content"] if "text" in b]})
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="anthropic", package="strands-agents", module="strands.agent.conversation_manager")
