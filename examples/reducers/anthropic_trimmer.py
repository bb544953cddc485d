#!/usr/bin/env python3
"""An Anthropic Messages trimmer, as an application would write one:
Python's standard `json` module and nothing of reducer-kit.

`trim(request)` keeps the top-level `system` prompt (it travels beside the
messages and is not counted) and the newest messages that fit in
maxMessages, moving the start later while it would be a `user` message
carrying `tool_result` blocks (results whose `tool_use` was cut away), so
that every tool group is kept whole or not at all; then it takes out any
`tool_result` block whose `tool_use` is not in an earlier kept message (an
invalid history may have one), and a message left with no block at all. A
budget that is not an `int` >= 1 is refused with ValueError. This is policy
`suffix` (spec/spec.md, section 4) in the Anthropic format: reducer-kit
certifies it at every level with no flag,

    reducer-kit certify --policy suffix --format anthropic --persistent -- python3 anthropic_trimmer.py

and, in process, `reducer_kit.assert_certified(trim, policy="suffix",
format="anthropic")` passes it as it is.

Over the wire (runner protocol 1, spec/spec.md section 8) `main` reads one
request per line and answers each with one line; it reads a budget as
openai_trimmer.py does (a whole float is the int it denotes).
"""

import json
import sys


def blocks(message):
    """The content blocks of a message (a string content is one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def carries_results(message):
    return any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks(message))


def trim(request):
    """`request` with the newest messages that fit in
    `request["maxMessages"]`, never starting on tool results; raises
    ValueError for a budget that is not an int >= 1."""
    budget = request.get("maxMessages")
    if type(budget) is not int or budget < 1:
        raise ValueError("maxMessages must be an integer >= 1, got %r" % (budget,))
    messages = request["messages"]
    start = max(0, len(messages) - budget)
    while start < len(messages) and carries_results(messages[start]):
        start += 1
    answer = {}
    if "system" in request:
        answer["system"] = request["system"]
    answer["messages"] = without_orphan_results(messages[start:])
    return answer


def without_orphan_results(messages):
    """`messages` less every `tool_result` block whose `tool_use` is not in
    an earlier message (a result answers the latest unanswered call with its
    id), and less a message that loses every block that way."""
    unanswered = {}
    out = []
    for m in messages:
        kept, dropped = [], False
        for b in blocks(m):
            if isinstance(b, dict) and b.get("type") == "tool_result":
                call = b.get("tool_use_id")
                if not unanswered.get(call):
                    dropped = True
                    continue
                unanswered[call] -= 1
            kept.append(b)
        for b in blocks(m):
            if isinstance(b, dict) and b.get("type") == "tool_use":
                unanswered[b.get("id")] = unanswered.get(b.get("id"), 0) + 1
        if not dropped:
            out.append(m)
        elif kept:
            out.append(dict(m, content=kept))
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
