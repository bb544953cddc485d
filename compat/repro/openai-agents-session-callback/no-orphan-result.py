#!/usr/bin/env python3
"""openai-agents 0.24.0, a session with session_input_callback: a
function_call_output without its function_call goes to the model.

As the sessions guide shows an application keeping the newest N items of a
session (https://openai.github.io/openai-agents-python/sessions/, the
session_input_callback example, `history[-N:] + new_input`;
RunConfig.session_input_callback, agents/run_config.py:448-453): a
SQLiteSession, Runner.run(agent, new input, session=session,
run_config=RunConfig(session_input_callback=...)). The model is a stand-in
that records the input the runner hands it (the Model interface,
agents/models/interface.py:68-101) and answers one message: no network.

Input: the kit's minimal counterexample (corpus/compat/
openai-agents-session-callback/, clause no-orphan-result): the session
holds a function_call and its function_call_output; the callback keeps the
newest N = 1 item; the application's new input is a user message.

Exits 0 when the model input holds a function_call_output whose call_id no
earlier function_call has (an orphan result: the clause no-orphan-result
fails; the Responses API rejects such an input, as it finds no tool call
for the output), 1 otherwise.
"""

import asyncio
import json

from agents import Agent, RunConfig, Runner, SQLiteSession
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

N = 1
STORED = [
    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "c1", "output": ""},
]
sent = []


class RecordingModel(Model):
    """Records the input the runner sends; answers one assistant message."""

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, *, previous_response_id=None, conversation_id=None,
                           prompt=None, **kwargs):
        sent.append(input)
        text = ResponseOutputText(type="output_text", text="ok", annotations=[])
        out = ResponseOutputMessage(id="msg_answer", type="message", role="assistant",
                                    status="completed", content=[text])
        return ModelResponse(output=[out], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("this program does not stream")


async def main():
    session = SQLiteSession("repro")
    await session.add_items(STORED)
    config = RunConfig(model=RecordingModel(), tracing_disabled=True,
                       session_input_callback=lambda history, new_input: history[-N:] + new_input)
    await Runner.run(Agent(name="assistant", instructions="Be brief."), "And tomorrow?",
                     session=session, run_config=config)
    model_input = sent[0]
    print("model input:", json.dumps(model_input, indent=1))
    called = set()
    for item in model_input:
        if item.get("type") == "function_call":
            called.add(item["call_id"])
        if item.get("type") == "function_call_output" and item["call_id"] not in called:
            print("orphan function_call_output for call_id %r" % item["call_id"])
            return 0
    print("every function_call_output has its function_call")
    return 1


raise SystemExit(asyncio.run(main()))
