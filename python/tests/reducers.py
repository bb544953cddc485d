"""Reducer functions the tests certify: plain Python over the request dict,
OpenAI Chat Completions messages (the runner protocol's members, spec
sections 8 and 13)."""

from __future__ import annotations

import decimal
import sys
from typing import Any, Dict, List

import reducer_kit


def whole_budget(value: Any) -> int:
    """``maxMessages`` as a whole number >= 1 (spec section 2: ``3``,
    ``3.0`` and ``3e0`` are 3; beyond 2^64 is no limit), else ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"maxMessages must be an integer >= 1, got {value!r}")
    text = getattr(value, "text", None)  # a reducer_kit.JsonFloat keeps it
    d = decimal.Decimal(text if text is not None else value)
    if d.is_nan() or d < 1 or (d.is_finite() and d != d.to_integral_value()):
        raise ValueError(f"maxMessages must be an integer >= 1, got {value!r}")
    if d.is_infinite() or d.adjusted() > 18:
        return sys.maxsize
    return int(d)


def role(message: Dict[str, Any]) -> str:
    r = message.get("role")
    return r.lower() if isinstance(r, str) else ""


def last_n(request: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The naive reducer: the newest maxMessages messages, whatever they are."""
    n = whole_budget(request["maxMessages"])
    return request["messages"][-n:]


CALL, RESULT, REQUEST, RESPONSE = "call", "result", "request", "response"
APPROVALS = {
    "toolApprovalRequest": (REQUEST, "requestId"),
    "toolApprovalResponse": (RESPONSE, "requestId"),
    "functionApprovalRequest": (REQUEST, "id"),
    "functionApprovalResponse": (RESPONSE, "id"),
}


def items(message: Dict[str, Any]) -> List[tuple]:
    """(kind, id, index in ``content`` or None) of the tool traffic of an
    OpenAI message: a tool message's result, approval parts, tool calls."""
    if role(message) == "tool":
        return [(RESULT, message.get("tool_call_id"), None)]
    found = []
    content = message.get("content")
    for i, part in enumerate(content if isinstance(content, list) else []):
        tag = part.get("type") if isinstance(part, dict) else None
        if tag in APPROVALS:
            kind, key = APPROVALS[tag]
            found.append((kind, part.get(key), i))
    for call in message.get("tool_calls") or []:
        found.append((CALL, call.get("id"), None))
    return found


def pair(messages: List[Dict[str, Any]], selection: List[int]) -> Dict[tuple, tuple]:
    """Positional pairing: a result (response) answers the latest earlier
    unanswered call (request) with its id; {(message, item): partner}."""
    partner: Dict[tuple, tuple] = {}
    open_: Dict[tuple, List[tuple]] = {}
    for m in selection:
        its = items(messages[m])
        for k, (kind, id_, _) in enumerate(its):
            if kind in (RESULT, RESPONSE):
                stack = open_.get((CALL if kind == RESULT else REQUEST, id_))
                if stack:
                    p = stack.pop()
                    partner[(m, k)], partner[p] = p, (m, k)
        for k, (kind, id_, _) in enumerate(its):
            if kind in (CALL, REQUEST):
                open_.setdefault((kind, id_), []).append((m, k))
    return partner


def suffix_openai(request: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Policy ``suffix`` (spec section 4) for OpenAI Chat Completions, a port
    of examples/reducers/suffix_reducer.py: the pinned system message and the
    newest run of messages that fits, its start moved past a tool message, an
    approval-only user message or a message answering one before it; then
    results and approval responses whose partner was cut removed."""
    n = whole_budget(request["maxMessages"])
    messages = request["messages"]
    pinned = next((i for i, m in enumerate(messages) if role(m) in ("system", "developer")), None)
    rest = [i for i in range(len(messages)) if i != pinned]
    partner = pair(messages, list(range(len(messages))))
    start = max(0, len(rest) - n)
    while start < len(rest):
        m = rest[start]
        its = items(messages[m])
        approval_only = role(messages[m]) == "user" and its and all(k == RESPONSE for k, _, _ in its)
        answers_earlier = any(
            kind in (RESULT, RESPONSE) and (m, k) in partner and partner[(m, k)][0] < m
            for k, (kind, _, _) in enumerate(its))
        if role(messages[m]) == "tool" or approval_only or answers_earlier:
            start += 1
        else:
            break
    chosen = sorted(rest[start:] + ([pinned] if pinned is not None else []))
    partner = pair(messages, chosen)
    kept = []
    for m in chosen:
        its = items(messages[m])
        dropped = [k for k, (kind, _, _) in enumerate(its) if kind in (RESULT, RESPONSE) and (m, k) not in partner]
        if not dropped:
            kept.append(messages[m])
            continue
        if len(dropped) == len(its) or any(its[k][2] is None for k in dropped):
            continue  # nothing would be left: the message goes
        gone = {its[k][2] for k in dropped}
        message = dict(messages[m])
        message["content"] = [p for i, p in enumerate(message["content"]) if i not in gone]
        kept.append(message)
    return kept


def reference_suffix(request: Dict[str, Any]) -> Dict[str, Any]:
    """The kit's own reference, called from Python (a fixture that passes)."""
    return reducer_kit.reduce(request, policy="suffix", format="openai")
