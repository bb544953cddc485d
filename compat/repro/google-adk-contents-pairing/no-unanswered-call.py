#!/usr/bin/env python3
"""google-adk 2.13.0, the contents of a model request: a function call
without its response goes to the model.

As ADK's docs show an application running an agent on a session
(google.adk.runners.Runner with an InMemorySessionService, an LlmAgent,
runner.run_async(user_id=..., session_id=..., new_message=...)): the
session already holds the events of an interrupted turn, and the request
contents ADK builds from them go through its pairing passes
(flows/llm_flows/context/_contents.py:631-639; drop_orphaned_function_calls,
flows/llm_flows/tools/_rearranger.py:295-302: "When a turn is interrupted
..., unanswered function calls are pruned so downstream providers
(Anthropic, OpenAI) do not reject the conversation history"). The model is
a stand-in (a BaseLlm) that records the request it is sent and answers one
text: no network.

Input: the kit's minimal counterexample (corpus/compat/
google-adk-contents-pairing/, clause no-unanswered-call; in scope: a
parallel result lost, then a run interrupted after its call): the model
called c1 and c2, only c1's response was stored, then the model called c1
again (ADK says a model may hand out the same call id more than once,
_rearranger.py:114) and the turn was interrupted; the user's next message
starts a new turn.

Exits 0 when the request contents hold a function call whose response is
not in the content right after it (the clause no-unanswered-call fails;
Anthropic and OpenAI reject such a history, as the docstring above says),
1 otherwise.
"""

import asyncio

from google.adk.agents import LlmAgent
from google.adk.events import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

sent = []


class RecordingModel(BaseLlm):
    """Records the contents of each request; answers one text."""

    async def generate_content_async(self, llm_request, stream=False):
        sent.append(list(llm_request.contents))
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="ok")]))


def call(i):
    return types.Part(function_call=types.FunctionCall(id=i, name="f", args={}))


def response(i):
    return types.Part(function_response=types.FunctionResponse(id=i, name="f", response={"result": ""}))


STORED = [
    ("model", [call("c1"), call("c2")]),
    ("user", [response("c1")]),
    ("model", [call("c1")]),
]


async def main():
    service = InMemorySessionService()
    agent = LlmAgent(name="assistant", model=RecordingModel(model="recording"), instruction="Be brief.")
    session = await service.create_session(app_name="repro", user_id="u", session_id="s")
    for role, parts in STORED:
        await service.append_event(session, Event(author="assistant" if role == "model" else "user",
                                                  invocation_id="inv-1",
                                                  content=types.Content(role=role, parts=parts)))
    runner = Runner(agent=agent, app_name="repro", session_service=service)
    async for _ in runner.run_async(user_id="u", session_id="s",
                                    new_message=types.Content(role="user", parts=[types.Part(text="hello?")])):
        pass
    contents = sent[0]
    for k, c in enumerate(contents):
        print(k, c.role, [("call " + p.function_call.id) if p.function_call else
                          ("response " + p.function_response.id) if p.function_response else
                          repr(p.text) for p in c.parts or []])
    for k, c in enumerate(contents):
        calls = [p.function_call.id for p in c.parts or [] if p.function_call]
        after = contents[k + 1].parts or [] if k + 1 < len(contents) else []
        answered = [p.function_response.id for p in after if p.function_response]
        for i in calls:
            if i not in answered:
                print("content %d: call %r has no response in the content right after it" % (k, i))
                return 0
            answered.remove(i)
    print("every call has its response right after it")
    return 1


raise SystemExit(asyncio.run(main()))
