#!/usr/bin/env python3
"""reducer-kit compat adapter: langchain `SummarizationMiddleware`.

The agent middleware of `langchain.agents` that, before a model call,
replaces the older part of the agent's messages with one summary message
(a HumanMessage "Here is a summary of the conversation to date: ...") and
keeps the newest ones, moving the cut so that an AIMessage and its
ToolMessages stay together. Its `before_model` hook is called here on the
agent state as the agent loop calls it; the summary model is LangChain's
own FakeListChatModel answering every request with the fixed text
SUMMARY, so nothing leaves the machine.

Wire format: openai (as for trim_messages).

System prompt: out of band (`create_agent(system_prompt=...)` keeps it out
of the state's messages): the pinned system message is held aside and put
back in its place.

Budget, messages: trigger=("messages", N + 1), so that it summarizes
exactly when there are more than N messages, and keep=("messages", N - 1),
leaving one slot for the summary message. LangChain requires keep > 0
(summarization.py:826-829), so N = 1 cannot be expressed: answered
`unsupported` (an error without a request id).
Budget, tokens (protocol 2): trigger=("tokens", T' + 1) and
keep=("tokens", T' - S), with a token counter that charges each message its
cost from the request and S = summaryTokens for the summary; T' is the
budget less the system prompt's cost under countPinned (the agent's system
prompt is not in the state the middleware counts, so the room left for the
history is what the application must give it). T' - S < 1 cannot be
expressed: `unsupported`.

The middleware moves the cut back to the AIMessage whose ToolMessages it
would otherwise split (summarization.py:878-911), so the kept messages can
exceed `keep` by a call group: declared `soft-budget`. Certified with
`--summaries`: the summary message is judged as a summary, not as a
fabricated message.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import IdentityMap, Unsupported, require, with_pinned, serve  # noqa: E402
from langchain_trim import from_langchain, to_langchain  # noqa: E402

SUMMARY = "Summary of the earlier conversation (fixed text from the compat adapter's fake model)."


def reduce(request):
    lc = require("langchain_core.messages", "langchain-core")
    fake = require("langchain_core.language_models.fake_chat_models", "langchain-core")
    middleware = require("langchain.agents.middleware.summarization", "langchain")
    ident = IdentityMap()
    pinned = request.pinned
    history = [ident.add(to_langchain(m, lc), m) for m in request.messages if m is not pinned]

    def count(messages):
        total = 0
        for msg in messages:
            m = ident.get(msg)
            total += request.cost(m) if m is not None else request.created_cost()
        return total

    n = request.budget
    if request.budget_kind == "messages":
        if n < 2:
            raise Unsupported("maxMessages 1 leaves no room beside the summary (keep must be > 0)")
        trigger = ("messages", n + 1)
        keep = ("messages", n - 1)
    else:
        n -= request.cost(pinned) if pinned is not None else 0
        room = n - request.summary_tokens
        if room < 1:
            raise Unsupported("maxTokens %d leaves no room beside a summary of %d tokens%s"
                              % (request.budget, request.summary_tokens,
                                 " and the system prompt" if request.count_pinned else ""))
        trigger = ("tokens", n + 1)
        keep = ("tokens", room)
    mw = middleware.SummarizationMiddleware(
        model=fake.FakeListChatModel(responses=[SUMMARY]),
        trigger=trigger, keep=keep, token_counter=count)
    update = mw.before_model({"messages": history}, None)
    if update is None:
        kept = history
    else:
        # [RemoveMessage(REMOVE_ALL_MESSAGES), summary, *preserved]
        kept = [msg for msg in update["messages"] if not isinstance(msg, lc.RemoveMessage)]
    out = [ident.get(k) or from_langchain(k, lc) for k in kept]
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="openai", package="langchain",
          module="langchain.agents.middleware.summarization")
