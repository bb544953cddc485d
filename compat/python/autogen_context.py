#!/usr/bin/env python3
"""reducer-kit compat adapter: autogen-core model contexts.

Wire format: canonical (AutoGen's LLMMessage types: SystemMessage,
UserMessage, AssistantMessage whose content is text or a list of
FunctionCall, FunctionExecutionResultMessage holding one or several
FunctionExecutionResult, as the canonical tool message holds one or
several functionResult items).

Stored shape: AutoGen stores the results of one step (all the calls of one
AssistantMessage) as ONE FunctionExecutionResultMessage
(autogen_core/tool_agent/_caller_loop.py:72; the class docstring,
autogen_core/models/_types.py:73, "contains the output of multiple
function calls"). A run of consecutive wire tool messages is therefore
handed to the context as one FunctionExecutionResultMessage, as AutoGen
would have stored it, and when the context keeps that message every wire
tool message behind it is written back. The contexts count that batch as
one message, so a kept window of N AutoGen messages can be more than N
wire messages (the extra ones are results of a kept step).

A tool message holding no result (a note in a tool message, which the
canonical format allows) has no AutoGen form: a FunctionExecutionResultMessage
holds function results (autogen_core/models/_types.py), so such a request is
answered `unsupported` rather than handed over as an empty results message.

System prompt: out of band. AutoGen's agents keep their system messages
outside the model context and put them in front of what the context gives
(AssistantAgent's `system_message`), so the pinned system message is held
aside and put back in its place; later system messages go into the context as
SystemMessage.

Configurations (--config):
  buffered        BufferedChatCompletionContext(buffer_size=N)
                  (a token budget is `unsupported`: it counts messages)
  head-and-tail   HeadAndTailChatCompletionContext(head_size=1, tail_size=N-1):
                  the first message (the task) and the newest N-1, so that
                  head + tail is the budget. AutoGen requires both sizes
                  >= 1, so N = 1 cannot be expressed and is answered
                  `unsupported` (an error without a request id). The context
                  adds its own "Skipped K messages." UserMessage between head
                  and tail (declared `placeholder`), written back as a user
                  message the library made.
  token-limited   TokenLimitedChatCompletionContext(model_client, token_limit=T)
                  with a model client whose count_tokens charges each message
                  its cost from the request (1 per message under protocol 1,
                  the request's `tokens` under 2; a batch costs the sum of its
                  messages). The system prompt is outside the context, so
                  under countPinned its cost is taken off the limit:
                  T = N - cost(pinned); T = 0 cannot be expressed (AutoGen
                  requires token_limit > 0) and is answered `unsupported`.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import Unsupported, IdentityMap, require, with_pinned, run_async, serve  # noqa: E402
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


def stored_history(request, models, core, ident):
    """The history as AutoGen stores it: every message but the pinned
    system message, a run of consecutive tool messages as one
    FunctionExecutionResultMessage. `ident` maps each object to the list of
    wire messages behind it."""
    history = []
    run = []

    def flush():
        if run:
            batch = models.FunctionExecutionResultMessage(content=[
                models.FunctionExecutionResult(content=result_text(r), name="tool", call_id=cid)
                for m in run for cid, r in results_of(m.data)])
            history.append(ident.add(batch, list(run)))
            run.clear()

    for m in request.messages:
        if m is request.pinned:
            continue
        if m.role == "tool":
            if not results_of(m.data):
                raise Unsupported("a tool message holding no function result has no AutoGen form "
                                  "(a FunctionExecutionResultMessage holds results)")
            run.append(m)
            continue
        flush()
        history.append(ident.add(to_autogen(m, models, core), [m]))
    flush()
    return history


def reduce(request):
    models = require("autogen_core.models", "autogen-core")
    core = require("autogen_core", "autogen-core")
    contexts = require("autogen_core.model_context", "autogen-core")
    ident = IdentityMap()
    pinned = request.pinned
    history = stored_history(request, models, core, ident)
    n = request.budget
    config = request.config
    if config != "token-limited" and request.budget_kind != "messages":
        raise Unsupported("AutoGen's %s context counts messages, not tokens" % config)
    if config == "buffered":
        context = contexts.BufferedChatCompletionContext(buffer_size=n, initial_messages=history)
    elif config == "head-and-tail":
        if n < 2:
            # AutoGen cannot be asked for 1 message: not the library's failure
            raise Unsupported("budget %d cannot be split into head_size >= 1 and tail_size >= 1" % n)
        context = contexts.HeadAndTailChatCompletionContext(
            head_size=1, tail_size=n - 1, initial_messages=history)
    else:
        def cost_of(msg):
            ms = ident.get(msg)
            return sum(request.cost(m) for m in ms) if ms is not None else request.created_cost()
        limit = n - (request.cost(pinned) if pinned is not None else 0)
        if limit < 1:
            raise Unsupported("countPinned: the system prompt takes the whole budget, and AutoGen "
                              "requires token_limit > 0")
        context = contexts.TokenLimitedChatCompletionContext(
            make_counting_client(models, cost_of), token_limit=limit, initial_messages=history)
    kept = run_async(context.get_messages())
    out = []
    for k in kept:
        ms = ident.get(k)
        if ms is None:
            out.append(from_autogen(k, models))
        else:
            out.extend(ms)
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="canonical", package="autogen-core", module="autogen_core.model_context",
          configs=CONFIGS, default_config="buffered")
