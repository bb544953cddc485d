#!/usr/bin/env python3
"""reducer-kit compat adapter: semantic-kernel chat history reducers.

Wire format: canonical (Semantic Kernel's ChatMessageContent is the Python
twin of Microsoft.Extensions.AI's ChatMessage: a role and a list of items,
TextContent, FunctionCallContent, FunctionResultContent).

System prompt: in band. Both reducers keep the first system or developer
message themselves (as the .NET SDK does).

Configurations (--config):
  truncation      ChatHistoryTruncationReducer(target_count=T, threshold_count=0)
  summarization   ChatHistorySummarizationReducer(service=<fake>, target_count=T,
                  threshold_count=0): the fake chat-completion service answers
                  every summarization request with the fixed text SUMMARY;
                  the summary message it makes is written back as the
                  assistant message the library made.

Budget: SK's target_count counts the system message it keeps (it takes
one slot from the target when it has to put the system message back), while
the kit's budget never counts the pinned system message. So T = N + 1 when
the history has a system message, else T = N: the target asks for exactly
the N other messages the kit allows. SK counts messages only; a protocol v2
token budget is refused.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_wire import Unsupported, IdentityMap, require, run_async, serve  # noqa: E402
from canonical_wire import item_type, items, result_text, text_message  # noqa: E402

CONFIGS = ["truncation", "summarization"]
SUMMARY = "Summary of the earlier conversation (fixed text from the compat adapter's fake service)."


def to_sk(m, sk):
    roles = {"system": sk.AuthorRole.SYSTEM, "user": sk.AuthorRole.USER,
             "assistant": sk.AuthorRole.ASSISTANT, "tool": sk.AuthorRole.TOOL}
    if m.data.get("role", "").lower() == "developer":
        role = sk.AuthorRole.DEVELOPER
    else:
        # SK has no other roles; another role is an assistant-side participant
        role = roles.get(m.role, sk.AuthorRole.ASSISTANT)
    parts = []
    for it in items(m.data):
        t = item_type(it)
        if t == "text":
            parts.append(sk.TextContent(text=it.get("text") or ""))
        elif t == "functionCall":
            parts.append(sk.FunctionCallContent(id=it.get("callId"), name=it.get("name") or "tool",
                                                arguments=it.get("arguments")))
        elif t == "functionResult":
            parts.append(sk.FunctionResultContent(id=it.get("callId"), name="tool",
                                                  function_name="tool",
                                                  result=result_text(it.get("result"))))
        # other items (approvals, data, reasoning) have no SK counterpart here
    return sk.ChatMessageContent(role=role, items=parts)


def from_sk(msg):
    """A message SK made (the summary), in the canonical format."""
    role = str(getattr(msg.role, "value", msg.role))
    return text_message(role, msg.content or "")


def make_fake_service(sk, base):
    class FixedSummaryService(base.ChatCompletionClientBase):
        async def _inner_get_chat_message_contents(self, chat_history, settings):
            return [sk.ChatMessageContent(role=sk.AuthorRole.ASSISTANT, content=SUMMARY)]

    return FixedSummaryService(ai_model_id="fixed-summary")


_service = None


def reduce(request):
    global _service
    sk = require("semantic_kernel.contents", "semantic-kernel")
    reducers = sk
    if request.budget_kind != "messages":
        raise Unsupported("Semantic Kernel's reducers count messages, not tokens")
    ident = IdentityMap()
    history = [ident.add(to_sk(m, sk), m) for m in request.messages]
    target = request.budget + (1 if request.pinned is not None else 0)
    if request.config == "truncation":
        reducer = reducers.ChatHistoryTruncationReducer(target_count=target, threshold_count=0)
    else:
        if _service is None:
            base = require("semantic_kernel.connectors.ai.chat_completion_client_base", "semantic-kernel")
            _service = make_fake_service(sk, base)
        reducer = reducers.ChatHistorySummarizationReducer(
            service=_service, target_count=target, threshold_count=0)
    reducer.messages = history
    run_async(reducer.reduce())
    return [ident.get(k) or from_sk(k) for k in reducer.messages]


if __name__ == "__main__":
    serve(reduce, fmt="canonical", package="semantic-kernel",
          module="semantic_kernel.contents",
          configs=CONFIGS, default_config="truncation")
