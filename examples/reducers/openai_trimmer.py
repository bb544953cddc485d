#!/usr/bin/env python3
"""An OpenAI Chat Completions trimmer, as an application would write one:
Python's standard `json` module and nothing of reducer-kit.

`trim(request)` keeps the system message (the first `system` or `developer`
message, wherever it is) and the newest messages that fit in maxMessages,
moving the start later while it would be a `tool` message (a result whose
assistant message with `tool_calls` was cut away), so that every tool group
is kept whole or not at all; then it drops any `tool` message whose call is
not kept (an invalid history may have one). A budget that is not an `int`
>= 1 is refused with ValueError. This is policy `suffix` (spec/spec.md,
section 4) in the OpenAI format: reducer-kit certifies it at every level
with no flag,

    reducer-kit certify --policy suffix --format openai --persistent -- python3 openai_trimmer.py

and, in process, `reducer_kit.assert_certified(trim, policy="suffix",
format="openai")` passes it as it is.

Over the wire (runner protocol 1, spec/spec.md section 8) `main` reads one
request per line and answers each with one line. The protocol writes a
budget as a JSON number whose value is a whole number (`3.0` and `1e1` are
budgets, spec section 2), so `main` turns a whole float into the int it
denotes before calling `trim`; `true`, `2.5`, `"3"` and `null` stay what
they are, and `trim` refuses them.
"""

import json
import sys

SYSTEM_ROLES = ("system", "developer")


def trim(request):
    """The newest messages of `request["messages"]` that fit in
    `request["maxMessages"]` (the system message kept and not counted),
    never starting on a tool result; raises ValueError for a budget that is
    not an int >= 1."""
    budget = request.get("maxMessages")
    if type(budget) is not int or budget < 1:
        raise ValueError("maxMessages must be an integer >= 1, got %r" % (budget,))
    messages = request["messages"]
    pinned = next((i for i, m in enumerate(messages) if m.get("role") in SYSTEM_ROLES), None)
    rest = [i for i in range(len(messages)) if i != pinned]
    start = max(0, len(rest) - budget)
    while start < len(rest) and messages[rest[start]].get("role") == "tool":
        start += 1
    kept = sorted(rest[start:] + ([pinned] if pinned is not None else []))
    return {"messages": without_orphan_results(messages, kept)}


def without_orphan_results(messages, kept):
    """The messages of `kept`, less every tool message whose call is not in
    an earlier kept message (a result answers the latest unanswered call
    with its id)."""
    unanswered = {}
    out = []
    for i in kept:
        m = messages[i]
        if m.get("role") == "tool":
            call = m.get("tool_call_id")
            if not unanswered.get(call):
                continue
            unanswered[call] -= 1
        for c in m.get("tool_calls") or []:
            unanswered[c.get("id")] = unanswered.get(c.get("id"), 0) + 1
        out.append(m)
    return out


def wire_budget(value):
    """A budget as the runner protocol writes it: a float that denotes a
    whole number is that int (`3.0`, `1e1`); one too large for any history
    (`1e400` reads as infinity) is no limit."""
    if type(value) is float and value == float("inf"):
        return sys.maxsize
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            request["maxMessages"] = wire_budget(request.get("maxMessages"))
            answer = trim(request)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            answer = {"error": str(e)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
