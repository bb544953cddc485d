#!/usr/bin/env python3
"""autogen-core 0.7.5, TokenLimitedChatCompletionContext: a call whose
result is dropped.

As AutoGen's docs show the context (autogen_core/model_context/
_token_limited_chat_completion_context.py:20-36: TokenLimitedChatCompletionContext(
model_client, token_limit=..., initial_messages=...), then get_messages()),
with a model client that counts words: the context only asks the client's
count_tokens (the documented requirement, line 27), so any
ChatCompletionClient works; this one answers nothing and counts one token
per word of each message's text, call name and arguments.

Input: the kit's minimal counterexample (corpus/compat/
autogen-token-limited/, clause calls-keep-results): an AssistantMessage
calling c1 (2 tokens) and the FunctionExecutionResultMessage with its
result (1 token), token_limit 2.

Exits 0 when get_messages() keeps the AssistantMessage with the call and
drops the result that answers it (the clause calls-keep-results fails),
1 otherwise.
"""

import asyncio

from autogen_core import FunctionCall
from autogen_core.model_context import TokenLimitedChatCompletionContext
from autogen_core.models import (AssistantMessage, ChatCompletionClient, FunctionExecutionResult,
                                 FunctionExecutionResultMessage, RequestUsage, UserMessage)


class WordCountingClient(ChatCompletionClient):
    """A model client that only counts tokens: one per word."""

    async def create(self, *args, **kwargs):
        raise NotImplementedError("this program calls no model")

    def create_stream(self, *args, **kwargs):
        raise NotImplementedError("this program calls no model")

    async def close(self):
        pass

    def actual_usage(self):
        return RequestUsage(prompt_tokens=0, completion_tokens=0)

    def total_usage(self):
        return RequestUsage(prompt_tokens=0, completion_tokens=0)

    def count_tokens(self, messages, *, tools=()):
        words = 0
        for m in messages:
            if isinstance(m.content, str):
                words += len(m.content.split())
            else:
                for part in m.content:
                    if isinstance(part, FunctionCall):
                        words += 1 + len(part.arguments.split())
                    else:
                        words += len(part.content.split())
        return words

    def remaining_tokens(self, messages, *, tools=()):
        return 0

    @property
    def capabilities(self):
        return self.model_info

    @property
    def model_info(self):
        return {"vision": False, "function_calling": True, "json_output": False,
                "family": "unknown", "structured_output": False}


history = [
    AssistantMessage(content=[FunctionCall(id="c1", name="get_weather", arguments="{}")], source="assistant"),
    FunctionExecutionResultMessage(content=[FunctionExecutionResult(call_id="c1", name="get_weather",
                                                                    content="sunny")]),
]
client = WordCountingClient()
print("costs:", [client.count_tokens([m]) for m in history], "token_limit: 2")
context = TokenLimitedChatCompletionContext(client, token_limit=2, initial_messages=history)
out = asyncio.run(context.get_messages())
for m in out:
    print(type(m).__name__, [getattr(p, "id", None) or getattr(p, "call_id", None) for p in m.content])
kept_calls = {c.id for m in out if isinstance(m, AssistantMessage) for c in m.content}
kept_results = {r.call_id for m in out if isinstance(m, FunctionExecutionResultMessage) for r in m.content}
lost = sorted(kept_calls - kept_results)
print("calls kept without their result: %s" % lost if lost else "every kept call keeps its result")
raise SystemExit(0 if lost else 1)
