#!/usr/bin/env python3
"""autogen-core 0.7.5, TokenLimitedChatCompletionContext: a history the
model cannot take.

As AutoGen's docs show the context (autogen_core/model_context/
_token_limited_chat_completion_context.py:20-36: TokenLimitedChatCompletionContext(
model_client, token_limit=..., initial_messages=...), then get_messages()),
with a model client that counts words: the context only asks the client's
count_tokens (the documented requirement, line 27), so any
ChatCompletionClient works; this one answers nothing and counts one token
per word of each message's text, call name and arguments.

Input: the kit's minimal counterexample (corpus/compat/
autogen-token-limited/, clause valid-output): five messages costing
3, 3, 3, 156 and 3 tokens (the texts below have those word counts),
token_limit 165; the last call waits for its result, as a context holds
it between a model's answer and the tool's. AutoGen stores the results of
one step in one FunctionExecutionResultMessage.

Exits 0 when what get_messages() returns is no valid history: a
FunctionExecutionResultMessage that does not come right after the
AssistantMessage whose calls it answers (the validator's rule
result-follows-call, the providers' rule that tool results answer the
calls of the message right before them; the clause valid-output fails),
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
    UserMessage(content="weather in Paris?", source="user"),
    AssistantMessage(content="Let me look.", source="assistant"),
    AssistantMessage(content=[FunctionCall(id="call_1", name="get_weather", arguments='{"city": "Paris"}')],
                     source="assistant"),
    FunctionExecutionResultMessage(content=[FunctionExecutionResult(
        call_id="call_1", name="get_weather", content=" ".join(["sunny"] * 156))]),
    AssistantMessage(content=[FunctionCall(id="call_2", name="send_email", arguments='{"to": "me"}')],
                     source="assistant"),
]
client = WordCountingClient()
print("costs:", [client.count_tokens([m]) for m in history], "token_limit: 165")
context = TokenLimitedChatCompletionContext(client, token_limit=165, initial_messages=history)
out = asyncio.run(context.get_messages())
broken = None
calls = set()  # the calls of the message right before
for i, m in enumerate(out):
    print(type(m).__name__, m.content if isinstance(m.content, str) else
          [getattr(p, "id", None) or getattr(p, "call_id", None) for p in m.content])
    if isinstance(m, FunctionExecutionResultMessage):
        stray = [r.call_id for r in m.content if r.call_id not in calls]
        if stray and not broken:
            broken = "message %d: results %s do not answer a call of the message right before" % (i, stray)
        calls = set()
    elif isinstance(m, AssistantMessage) and not isinstance(m.content, str):
        calls = {c.id for c in m.content}
    else:
        calls = set()
print("invalid: " + broken if broken else "a valid history")
raise SystemExit(0 if broken else 1)
