#!/usr/bin/env python3
"""reducer-kit compat adapter: google-adk, the call/response pairing of the request contents.

When ADK builds the contents of a model request from the session's events
(google/adk/flows/llm_flows/context/_contents.py:631-639), it first drops
the function responses that no earlier function call matches
(`drop_orphaned_function_responses`, flows/llm_flows/tools/_rearranger.py:207:
"keeps unpaired results from being forwarded to providers that reject
them"), then rearranges the responses of long-running (async) calls next
to their calls (`rearrange_events_for_latest_function_response`,
`rearrange_events_for_async_function_responses_in_history`), and last
drops the function calls that no function response answers
(`drop_orphaned_function_calls`, _rearranger.py:295: "When a turn is
interrupted (e.g. user abort, process restart, or follow-up user input
prior to tool execution), unanswered function calls are pruned so
downstream providers (Anthropic, OpenAI) do not reject the conversation
history with HTTP 400 errors"). Both drop passes take out function parts,
keep an event's other parts (a copy of the event with fewer parts), and
leave out an event left with none.

Configurations (--config):
  contents      the four passes as the flow runs them (the default, and
                the configuration certified under `--policy repair`): the
                two drop passes and, between them, the rearrangers, which
                move the responses of a call next to it (several response
                events of one call group merged into one, the last response
                of a call taking the place of earlier ones) and drop the
                events between a call and its latest response
                (_rearranger.py:378-394, 107-112).
  drop-orphans  the two drop passes alone, in the flow's order (for
                comparison: without the rearrangers a second response of
                one call stays, which the flow never sends).

Wire format: anthropic (ADK's Content has the roles user and model; a
function response travels in a user Content, several together, as
Anthropic's tool_result blocks do; the system instruction is outside the
contents). Each message becomes one Event (author "user" for a user
message without results, "model" otherwise; an invocation starts at each
user message without results, as ADK's runner numbers them).

Mapping back: an event the passes kept as it was is its message, written
back as it came. Otherwise each of its parts is matched to a part of the
input by identity (the drop passes keep the kept parts of an event,
`event.content.parts = kept_parts`), or by equality for a deep copy (a
merged response event); each run of parts of one message is that message,
whole or with the other blocks taken out (every other member and every
kept block as its exact text), so a response event merged from several
tool messages is those messages again, as ADK would have stored one step's
responses in one event. An event with a part that is no part of the input
is written from ADK's parts, for the kit to judge.

System prompt: out of band (`LlmAgent(instruction=...)`): the request's
top-level `system` is held aside and given back.

Budget: none. A repair has no budget (spec/spec.md §17.1): the request's
budget is checked (a bad one is rejected) and otherwise not used.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import IdentityMap, Message, Obj, require, serve, to_text, with_pinned  # noqa: E402

CONFIGS = ["contents", "drop-orphans"]


def result_payload(content):
    if isinstance(content, str):
        return {"result": content}
    if isinstance(content, list):
        return {"result": "\n".join(b.get("text", "") for b in content
                                    if isinstance(b, dict) and b.get("type") == "text")}
    return {"result": None}


def to_parts(m, types):
    """[(Part, block index or None for a string content)] of one message."""
    content = m.data.get("content")
    out = []
    if isinstance(content, str):
        out.append((types.Part(text=content), None))
    elif isinstance(content, list):
        for k, b in enumerate(content):
            t = b.get("type") if isinstance(b, dict) else None
            if t == "text":
                out.append((types.Part(text=b.get("text", "")), k))
            elif t == "tool_use":
                args = b.get("input")
                out.append((types.Part(function_call=types.FunctionCall(
                    id=b.get("id"), name=b.get("name", "tool"),
                    args=args if isinstance(args, dict) else {"input": args})), k))
            elif t == "tool_result":
                out.append((types.Part(function_response=types.FunctionResponse(
                    id=b.get("tool_use_id"), name="tool", response=result_payload(b.get("content")))), k))
            # other blocks have no counterpart here (`without opaque-contents`)
    return out


def with_blocks(m, keep):
    """The message m with only the content blocks at the indices `keep`."""
    fixed = Obj()
    for k, v in m.raw:
        if k == "content" and isinstance(v, list) and not isinstance(v, Obj):
            v = [b for i, b in enumerate(v) if i in keep]
        fixed.append((k, v))
    return Message(fixed, m.index, m.role)


def from_parts(role, parts):
    """A message ADK made, in the Anthropic format."""
    blocks = []
    for p in parts:
        if p.function_call is not None:
            blocks.append({"type": "tool_use", "id": p.function_call.id, "name": p.function_call.name,
                           "input": p.function_call.args or {}})
        elif p.function_response is not None:
            r = p.function_response.response or {}
            blocks.append({"type": "tool_result", "tool_use_id": p.function_response.id,
                           "content": r.get("result") if isinstance(r.get("result"), str) else to_text(r)})
        elif p.text is not None:
            blocks.append({"type": "text", "text": p.text})
    return {"role": "assistant" if role == "model" else "user", "content": blocks}


def reduce(request):
    types = require("google.genai.types", "google-adk")
    events_mod = require("google.adk.events.event", "google-adk")
    rr = require("google.adk.flows.llm_flows.tools._rearranger", "google-adk")
    pinned = request.pinned
    sources = []  # (Part, Message, block index)
    parts_of = {}  # id(Message) -> number of its parts
    events = []
    ident = IdentityMap()
    invocation = 0
    for m in request.messages:
        if m is pinned:
            continue
        pairs = to_parts(m, types)
        has_results = any(p.function_response is not None for p, _ in pairs)
        if m.role != "assistant" and not has_results:
            invocation += 1
        for p, k in pairs:
            sources.append((p, m, k))
        parts_of[id(m)] = len(pairs)
        role = "model" if m.role == "assistant" else "user"
        author = "user" if role == "user" and not has_results else "model"
        events.append(ident.add(events_mod.Event(
            author=author, invocation_id="inv-%d" % invocation,
            content=types.Content(role=role, parts=[p for p, _ in pairs])), m))
    events = rr.drop_orphaned_function_responses(events)
    if request.config == "contents":
        events = rr.rearrange_events_for_latest_function_response(events)
        events = rr.rearrange_events_for_async_function_responses_in_history(events)
    events = rr.drop_orphaned_function_calls(events)
    used = set()
    out = []
    for e in events:
        if ident.get(e) is not None:  # an event the passes kept as it was
            m = ident.get(e)
            used.update(i for i, (_, x, _) in enumerate(sources) if x is m)
            out.append(m)
            continue
        parts = list(e.content.parts or []) if e.content else []
        found = []
        for p in parts:
            hit = next((i for i, (q, _, _) in enumerate(sources) if q is p and i not in used), None)
            if hit is None:
                hit = next((i for i, (q, _, _) in enumerate(sources) if q == p and i not in used), None)
            if hit is not None:
                used.add(hit)
            found.append(hit)
        if parts and None not in found:
            # every part is a part of the input: each run of parts of one
            # message is that message, whole or with the other blocks out
            # (a merged response event is the messages it was merged from)
            runs = []
            for i in found:
                m, k = sources[i][1], sources[i][2]
                if runs and runs[-1][0] is m and runs[-1][1][-1] is not None and k is not None \
                        and k > runs[-1][1][-1]:
                    runs[-1][1].append(k)
                else:
                    runs.append((m, [k]))
            for m, ks in runs:
                out.append(m if len(ks) == parts_of[id(m)] else with_blocks(m, set(ks)))
            continue
        out.append(from_parts(e.content.role if e.content else "user", parts))
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="anthropic", package="google-adk",
          module="google.adk.flows.llm_flows.tools._rearranger",
          configs=CONFIGS, default_config="contents")
