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

Budget, protocol v1 (messages): trigger=("messages", N + 1), so that it
summarizes exactly when there are more than N messages, and
keep=("messages", N - 1), leaving one slot for the summary message. keep
must be >= 1, so with N = 1 the output is the summary and one message: one
over the budget by construction.
Budget, draft protocol v2 (tokens): trigger=("tokens", T + 1) and
keep=("tokens", T - S), with a token counter that charges each message its
cost from the request and S = summaryTokens for the summary.

Under protocol v1 the kit knows no summaries, so every summary is judged a
fabricated message (`no-fabrication`).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import IdentityMap, require, with_pinned, serve  # noqa: E402
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
        trigger = ("messages", n + 1)
        keep = ("messages", max(1, n - 1))
    else:
        room = n - request.summary_tokens
        if room < 1:
            raise ValueError("maxTokens %d leaves no room beside a summary of %d tokens"
                             % (n, request.summary_tokens))
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
