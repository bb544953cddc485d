#!/usr/bin/env python3
"""reducer-kit compat adapter: autogen-core model contexts.

Wire format: canonical (AutoGen's LLMMessage types: SystemMessage,
UserMessage, AssistantMessage whose content is text or a list of
FunctionCall, FunctionExecutionResultMessage holding one or several
FunctionExecutionResult, as the canonical tool message holds one or
several functionResult items).

System prompt: out of band. AutoGen's agents keep their system messages
outside the model context and put them in front of what the context gives
(AssistantAgent's `system_message`), so the pinned system message is held
aside and put back in its place; later system messages go into the context as
SystemMessage.

Configurations (--config):
  buffered        BufferedChatCompletionContext(buffer_size=N)
  head-and-tail   HeadAndTailChatCompletionContext(head_size=1, tail_size=N-1):
                  the first message (the task) and the newest N-1, so that
                  head + tail is the budget. AutoGen requires both sizes
                  >= 1, so N = 1 cannot be expressed and is answered with an
                  error. The context adds its own "Skipped K messages."
                  UserMessage between head and tail, which is written back
                  as a user message the library made.
  token-limited   TokenLimitedChatCompletionContext(model_client, token_limit=N)
                  with a model client whose count_tokens charges each message
                  its cost from the request (1 per message under protocol v1,
                  the request's `tokens` under v2).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import BadRequest, IdentityMap, require, with_pinned, run_async, serve  # noqa: E402
from canonical_wire import calls_of, result_text, results_of, text_message, text_of  # noqa: E402

CONFIGS = ["buffered", "head-and-tail", "token-limited"]


def to_autogen(m, models, core):
    d = m.data
    text = text_of(d)
    if m.role == "system":
        return models.SystemMessage(content=text)
    if m.role == "assistant":
        calls = [core.FunctionCall(id=cid, name=name,
                                   arguments=args if isinstance(args, str) else json.dumps(args or {}))
                 for cid, name, args in calls_of(d)]
        if calls:
            return models.AssistantMessage(content=calls, thought=text or None, source="assistant")
        return models.AssistantMessage(content=text, source="assistant")
    if m.role == "tool":
        return models.FunctionExecutionResultMessage(content=[
            models.FunctionExecutionResult(content=result_text(r), name="tool", call_id=cid)
            for cid, r in results_of(d)])
    # user, and any other role (AutoGen has no others): a UserMessage from that source
    return models.UserMessage(content=text, source=d.get("role", "user"))


def from_autogen(msg, models):
    """A message the context made, in the canonical format."""
    if isinstance(msg, models.UserMessage):
        return text_message("user", msg.content if isinstance(msg.content, str) else str(msg.content))
    if isinstance(msg, models.SystemMessage):
        return text_message("system", msg.content)
    return text_message("assistant", str(getattr(msg, "content", "")))


def make_counting_client(models, cost_of):
    """A ChatCompletionClient that only counts: count_tokens charges each
    message cost_of(message). Nothing is ever sent to a model."""

    class CountingClient(models.ChatCompletionClient):
        async def create(self, *args, **kwargs):
            raise NotImplementedError("the compat adapter never calls a model")

        def create_stream(self, *args, **kwargs):
            raise NotImplementedError("the compat adapter never calls a model")

        async def close(self):
            pass

        def actual_usage(self):
            return models.RequestUsage(prompt_tokens=0, completion_tokens=0)

        def total_usage(self):
            return models.RequestUsage(prompt_tokens=0, completion_tokens=0)

        def count_tokens(self, messages, *, tools=()):
            return sum(cost_of(m) for m in messages)

        def remaining_tokens(self, messages, *, tools=()):
            return 0

        @property
        def capabilities(self):
            return self.model_info

        @property
        def model_info(self):
            return {"vision": False, "function_calling": True, "json_output": False,
                    "family": "unknown", "structured_output": False}

    return CountingClient()


def reduce(request):
    models = require("autogen_core.models", "autogen-core")
    core = require("autogen_core", "autogen-core")
    contexts = require("autogen_core.model_context", "autogen-core")
    ident = IdentityMap()
    pinned = request.pinned
    history = [ident.add(to_autogen(m, models, core), m)
               for m in request.messages if m is not pinned]
    n = request.budget
    config = request.config
    if config == "buffered":
        context = contexts.BufferedChatCompletionContext(buffer_size=n, initial_messages=history)
    elif config == "head-and-tail":
        if n < 2:
            # the adapter's refusal, not the library's: AutoGen cannot be asked for 1 message
            raise BadRequest("budget %d cannot be split into head_size >= 1 and tail_size >= 1" % n)
        context = contexts.HeadAndTailChatCompletionContext(
            head_size=1, tail_size=n - 1, initial_messages=history)
    else:
        def cost_of(msg):
            m = ident.get(msg)
            return request.cost(m) if m is not None else request.created_cost()
        context = contexts.TokenLimitedChatCompletionContext(
            make_counting_client(models, cost_of), token_limit=n, initial_messages=history)
    kept = run_async(context.get_messages())
    out = [ident.get(k) or from_autogen(k, models) for k in kept]
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="canonical", package="autogen-core", module="autogen_core.model_context",
          configs=CONFIGS, default_config="buffered")
