#!/usr/bin/env python3
"""reducer-kit compat adapter: google-adk `EventsCompactionConfig`.

An App with `events_compaction_config=EventsCompactionConfig(summarizer=
LlmEventSummarizer(llm=...), token_threshold=T, event_retention_size=R)`:
after an invocation the Runner runs `_run_compaction_for_sliding_window(app,
session, session_service)` (runners.py:941-960), which prefers the
token-threshold compaction when it is configured (apps/compaction.py:
799-805): when the most recently observed prompt token count reaches T, the
session's raw events but the last R (moved earlier so that no retained
function response loses its call, 626-659, and cut to a prefix that leaves
no call unanswered, 561-623) are summarized into one compaction event
(662-726). The next model request's contents are built from the session's
events by the contents request processor, which puts the summary in place
of the events it covers (flows/llm_flows/context/_contents.py:541-548,
_compaction.py:68-145). The adapter stores the history as the session's
events, runs that compaction, and answers the contents
`_contents._get_contents` builds for the agent.

The summarizer's model is a stand-in BaseLlm that answers every request
with the fixed text SUMMARY (never a network); LlmEventSummarizer makes it
a model Content (llm_event_summarizer.py:129-186), which the contents give
as a model message: written back as an assistant message of that text.
Certified with `--summaries`.

Wire format: anthropic (as adk_drop_orphans.py: one Event per message,
author "user" for a user message without results, the agent otherwise; an
invocation starts at each user message without results). System prompt:
out of band (`LlmAgent(instruction=...)`), held aside and put back.

Budget, messages: R = N - 1 (the summary takes one of the N slots), and
the observed prompt token count is the number of messages of the history
(the last event's usage_metadata), with T = N + 1, so that compaction runs
exactly when the history is over the budget. event_retention_size counts
events: a token budget is answered `unsupported`.
"""

import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import IdentityMap, Unsupported, require, run_async, serve, with_pinned  # noqa: E402
from adk_drop_orphans import from_parts, to_parts, with_blocks  # noqa: E402

SUMMARY = "Summary of the earlier conversation (fixed text from the compat adapter's stand-in model)."
AGENT = "assistant_agent"

_llm_class = None


def fixed_llm_class(base_llm, llm_response, types):
    class FixedSummaryLlm(base_llm.BaseLlm):
        """Answers every request with the text SUMMARY."""

        async def generate_content_async(self, llm_request, stream=False):
            yield llm_response.LlmResponse(content=types.Content(role="model", parts=[types.Part(text=SUMMARY)]))

    return FixedSummaryLlm


def reduce(request):
    global _llm_class
    types = require("google.genai.types", "google-adk")
    events_mod = require("google.adk.events.event", "google-adk")
    apps = require("google.adk.apps.app", "google-adk")
    compaction = require("google.adk.apps.compaction", "google-adk")
    summarizer_mod = require("google.adk.apps.llm_event_summarizer", "google-adk")
    agents = require("google.adk.agents", "google-adk")
    sessions = require("google.adk.sessions", "google-adk")
    contents_mod = require("google.adk.flows.llm_flows.context._contents", "google-adk")
    if _llm_class is None:
        _llm_class = fixed_llm_class(require("google.adk.models.base_llm", "google-adk"),
                                     require("google.adk.models.llm_response", "google-adk"), types)
    if request.budget_kind != "messages":
        raise Unsupported("event_retention_size counts events, not tokens")
    pinned = request.pinned
    n = request.budget
    llm = _llm_class(model="fixed-summary")
    agent = agents.LlmAgent(name=AGENT, model=llm, instruction="")
    app = apps.App(name="compat", root_agent=agent, events_compaction_config=apps.EventsCompactionConfig(
        summarizer=summarizer_mod.LlmEventSummarizer(llm=llm),
        token_threshold=min(n + 1, sys.maxsize), event_retention_size=min(n - 1, 2 ** 31)))
    service = sessions.InMemorySessionService()

    sources = []  # (Part, Message, block index)
    parts_of = {}
    history = [m for m in request.messages if m is not pinned]

    async def run():
        session = await service.create_session(app_name="compat", user_id="u")
        invocation = 0
        for i, m in enumerate(history):
            pairs = to_parts(m, types)
            has_results = any(p.function_response is not None for p, _ in pairs)
            if m.role != "assistant" and not has_results:
                invocation += 1
            for p, k in pairs:
                sources.append((p, m, k))
            parts_of[id(m)] = len(pairs)
            role = "model" if m.role == "assistant" else "user"
            author = "user" if role == "user" and not has_results else AGENT
            usage = None
            if i == len(history) - 1:
                usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=len(history))
            event = events_mod.Event(author=author, invocation_id="inv-%d" % invocation,
                                     timestamp=1000.0 + i, usage_metadata=usage,
                                     content=types.Content(role=role, parts=[p for p, _ in pairs]))
            await service.append_event(session=session, event=event)
        async with contextlib.aclosing(
                compaction._run_compaction_for_sliding_window(app, session, service)) as made:
            async for ev in made:  # as the Runner appends it (runners.py:946-956)
                await service.append_event(session=session, event=ev)
        session = await service.get_session(app_name="compat", user_id="u", session_id=session.id)
        return contents_mod._get_contents(current_branch=None, events=session.events, agent_name=AGENT)

    contents = run_async(run())
    used = set()
    out = []
    last = -1  # the source part matched last: the contents keep the events' order
    for c in contents:
        parts = list(c.parts or [])
        role = "assistant" if c.role == "model" else "user"
        found = []
        for p in parts:
            hit = next((i for i, (q, _, _) in enumerate(sources) if q is p and i not in used), None)
            if hit is None:  # a copy: the next equal part of a message of the same role
                hit = next((i for i, (q, m, _) in enumerate(sources)
                            if i > last and i not in used and q == p
                            and (m.role == "assistant") == (role == "assistant")), None)
            if hit is not None:
                used.add(hit)
                last = hit
            found.append(hit)
        if parts and None not in found:
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
        out.append(from_parts(c.role or "user", parts))
    return with_pinned(request, out)


if __name__ == "__main__":
    serve(reduce, fmt="anthropic", package="google-adk", module="google.adk.apps.compaction")
