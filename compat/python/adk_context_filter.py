#!/usr/bin/env python3
"""reducer-kit compat adapter: google-adk `ContextFilterPlugin`.

ADK's history limit is a plugin that cuts the model request's contents
before each model call: `ContextFilterPlugin(num_invocations_to_keep=K)`
keeps the newest K invocations (an invocation starts at one or more
consecutive user messages that are not function responses), moving the
cut earlier so no function response loses its call. Its
`before_model_callback` is called here on an LlmRequest holding the
history, as the runner calls it.

Wire format: anthropic (ADK's Content has the roles user and model; a
function response travels in a user Content, several together, as
Anthropic's tool_result blocks do; the system instruction is outside the
contents).

System prompt: out of band (`LlmAgent(instruction=...)`): the request's
top-level `system` is held aside and given back.

Budget: ADK has no message limit; its knob counts invocations. The
request's N is passed as num_invocations_to_keep=N. This is a different
unit: whenever a kept invocation has more than one message the output can
hold more than N messages, so `budget` failures here say that the knob is
not a message budget, not that the plugin miscounts.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import Unsupported, IdentityMap, require, with_pinned, run_async, serve  # noqa: E402


def result_payload(content):
    if isinstance(content, str):
        return {"result": content}
    if isinstance(content, list):
        return {"result": "\n".join(b.get("text", "") for b in content
                                    if isinstance(b, dict) and b.get("type") == "text")}
    return {"result": None}


def to_adk(m, types):
    d = m.data
    content = d.get("content")
    parts = []
    if isinstance(content, str):
        parts.append(types.Part(text=content))
    elif isinstance(content, list):
        for b in content:
            t = b.get("type") if isinstance(b, dict) else None
            if t == "text":
                parts.append(types.Part(text=b.get("text", "")))
            elif t == "tool_use":
                args = b.get("input")
                parts.append(types.Part(function_call=types.FunctionCall(
                    id=b.get("id"), name=b.get("name", "tool"),
                    args=args if isinstance(args, dict) else {"input": args})))
            elif t == "tool_result":
                parts.append(types.Part(function_response=types.FunctionResponse(
                    id=b.get("tool_use_id"), name="tool", response=result_payload(b.get("content")))))
            # other blocks (approvals, images, ...) have no counterpart here
    role = "model" if m.role == "assistant" else "user"
    return types.Content(role=role, parts=parts)


def reduce(request):
    types = require("google.genai.types", "google-adk")
    plugin_mod = require("google.adk.plugins.context_filter_plugin", "google-adk")
    llm_request_mod = require("google.adk.models.llm_request", "google-adk")
    if request.budget_kind != "messages":
        raise Unsupported("ContextFilterPlugin counts invocations, not tokens")
    ident = IdentityMap()
    pinned = request.pinned
    contents = [ident.add(to_adk(m, types), m) for m in request.messages if m is not pinned]
    plugin = plugin_mod.ContextFilterPlugin(num_invocations_to_keep=request.budget)
    llm_request = llm_request_mod.LlmRequest(contents=contents)
    run_async(plugin.before_model_callback(callback_context=None, llm_request=llm_request))
    out = []
    for c in llm_request.contents:
        m = ident.get(c)
        if m is None:
            raise ValueError("the plugin returned a content it was not given")
        out.append(m)
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="anthropic", package="google-adk",
          module="google.adk.plugins.context_filter_plugin")
