#!/usr/bin/env python3
"""openai-agents 0.24.0, a session with a history limit: an item goes to
the model without the reasoning item it needs.

As the sessions guide shows limiting the history a session replays
(https://openai.github.io/openai-agents-python/sessions/, SessionSettings
(limit=N); SessionSettings.limit, agents/memory/session_settings.py:38-40): a SQLiteSession with
session_settings=SessionSettings(limit=N), Runner.run(agent, new input,
session=session). The model is a stand-in
that records the input the runner hands it (the Model interface,
agents/models/interface.py:68-101) and answers one message: no network.

Input: the kit's minimal counterexample (corpus/compat/
openai-agents-session-limit/, clause reasoning-attached, the kind whose
item carries a server id): the session holds a model output as the SDK
stores it, a reasoning item and the assistant message after it, each with
the id the Responses API gave it; N = 1; the application's new input is a
user message.

Exits 0 when the model input holds an item with a server id whose
reasoning item (the one before it in the stored session, with only the
model's items between) is not in the input: the Responses API rejects such
a request (the item was provided without its required reasoning item; the
kit's openai-responses profile rule required-reasoning), and the clause
reasoning-attached fails. 1 otherwise.
"""

import asyncio
import json

from agents import Agent, RunConfig, Runner, SessionSettings, SQLiteSession
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

N = 1
STORED = [
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "refund order in refund"}]},
    {"type": "message", "role": "assistant", "id": "msg_2", "status": "completed",
     "content": [{"type": "output_text", "text": "", "annotations": []}]},
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
    session = SQLiteSession("repro", session_settings=SessionSettings(limit=N))
    await session.add_items(STORED)
    config = RunConfig(model=RecordingModel(), tracing_disabled=True)
    await Runner.run(Agent(name="assistant", instructions="Be brief."), "And tomorrow?",
                     session=session, run_config=config)
    model_input = sent[0]
    print("model input:", json.dumps(model_input, indent=1))
    sent_ids = [item.get("id") for item in model_input]
    for k, item in enumerate(model_input):
        if item.get("type") == "reasoning" or not isinstance(item.get("id"), str):
            continue
        # its reasoning item: the nearest before it in the stored session,
        # with only the model's own items (assistant messages, calls) between
        at = next(i for i, s in enumerate(STORED) if s.get("id") == item["id"])
        for s in reversed(STORED[:at]):
            if s.get("type") == "reasoning":
                if s["id"] not in sent_ids:
                    print("item %d (%r) is sent without its reasoning item %r" % (k, item["id"], s["id"]))
                    return 0
                break
            if s.get("role") not in (None, "assistant") or s.get("type") == "function_call_output":
                break
    print("every item with a server id is sent with its reasoning item")
    return 1


raise SystemExit(asyncio.run(main()))
