#!/usr/bin/env python3
"""Example external reducer that is safe but loses context, after the manner
of Microsoft.Extensions.AI's MessageCountingChatReducer.

Drops every message that carries a tool call or a tool result, and (to stay
safe) every message that carries an approval request or an approval
response; then keeps the pinned system message (the first `system` or
`developer` message) plus the last maxMessages remaining messages. Its output
never holds a tool exchange, so it passes every safety clause of reducer-kit,
but it fails the policy level (`identity-when-fits`, `whole-turns`, ...) on
any history with tool use: the model no longer sees what its tools returned.

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only:

    python3 drop_tool_messages.py [--format canonical|openai] [--persistent]

Without --persistent it reads all of stdin as one request
{"maxMessages": N, "messages": [...]} and writes one response,
{"messages": [...]} or {"error": "..."}. With --persistent it answers each
input line with one output line until end of input. The exit status is 0
whenever the command line is usable. Kept messages are written back as the
JSON values that were read.
"""

import decimal
import json
import sys


# --- JSON that keeps what it read --------------------------------------------

class Num:
    """A JSON number, kept as the text it was written with."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class Obj(list):
    """A JSON object: its (name, value) members in the order read."""

    def get(self, key, default=None):
        found = default
        for k, v in self:
            if k == key:
                found = v
        return found


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def parse_json(text):
    return json.loads(text, object_pairs_hook=Obj, parse_int=Num,
                      parse_float=Num, parse_constant=_no_constant)


def dump_json(value, out):
    if isinstance(value, Obj):
        out.append("{")
        for i, (k, v) in enumerate(value):
            if i:
                out.append(",")
            out.append(json.dumps(k))
            out.append(":")
            dump_json(v, out)
        out.append("}")
    elif isinstance(value, list):
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(",")
            dump_json(v, out)
        out.append("]")
    elif isinstance(value, Num):
        out.append(value.text)
    else:
        out.append(json.dumps(value))
    return out


def to_text(value):
    return "".join(dump_json(value, []))


# --- roles and budget ---------------------------------------------------------

class BadRequest(Exception):
    pass


def ascii_lower(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def role_of(msg, index):
    role = msg.get("role") if isinstance(msg, Obj) else None
    if not isinstance(role, str):
        raise BadRequest("message %d has no string `role`" % index)
    r = ascii_lower(role)
    return "system" if r == "developer" else r


# --- what a message carries ---------------------------------------------------

TOOL_TAGS = ("functionCall", "functionResult", "toolApprovalRequest",
             "toolApprovalResponse", "functionApprovalRequest",
             "functionApprovalResponse")


def carries_tool_traffic(msg, role, fmt):
    """Whether a message holds a call, a result, an approval request or an
    approval response in the given wire format."""
    if fmt == "openai":
        if role == "tool" or msg.get("tool_call_id") is not None:
            return True
        calls = msg.get("tool_calls")
        if isinstance(calls, list) and calls:
            return True
        parts, tag_key = msg.get("content"), "type"
    else:
        parts, tag_key = msg.get("contents"), "$type"
    if not isinstance(parts, list):
        return False
    return any(isinstance(p, Obj) and p.get(tag_key) in TOOL_TAGS for p in parts)


def parse_budget(value):
    bad = BadRequest("maxMessages must be an integer >= 1, got %s" % to_text(value))
    if not isinstance(value, Num):
        raise bad
    d = decimal.Decimal(value.text)
    if d < 1:
        raise bad
    if d.adjusted() > 18:
        return sys.maxsize
    if d != d.to_integral_value():
        raise bad
    return int(d)


# --- the reducer ----------------------------------------------------------------

def reduce_request(request, fmt):
    if not isinstance(request, Obj):
        raise BadRequest("the request is not a JSON object")
    budget = parse_budget(request.get("maxMessages"))
    messages = request.get("messages")
    if not isinstance(messages, list):
        raise BadRequest("`messages` is not an array")
    roles = [role_of(m, i) for i, m in enumerate(messages)]
    pinned = roles.index("system") if "system" in roles else None
    rest = [i for i in range(len(messages))
            if i != pinned and not carries_tool_traffic(messages[i], roles[i], fmt)]
    kept = rest[max(0, len(rest) - budget):]
    if pinned is not None:
        kept.append(pinned)
    return [messages[i] for i in sorted(kept)]


# --- runner protocol v1 --------------------------------------------------------

def answer(raw, fmt):
    try:
        request = parse_json(raw.decode("utf-8"))
        kept = reduce_request(request, fmt)
        return "{\"messages\":%s}" % to_text(kept)
    except (BadRequest, ValueError, RecursionError, decimal.InvalidOperation) as e:
        return json.dumps({"error": str(e) or type(e).__name__})


def main(argv):
    fmt = "canonical"
    persistent = False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--persistent":
            persistent = True
        elif a == "--format" and args:
            fmt = args.pop(0)
        elif a.startswith("--format="):
            fmt = a.split("=", 1)[1]
        else:
            sys.stderr.write("usage: %s [--format canonical|openai] [--persistent]\n" % sys.argv[0])
            return 2
    if fmt not in ("canonical", "openai"):
        sys.stderr.write("unknown format %r\n" % fmt)
        return 2
    out = sys.stdout
    if not persistent:
        out.write(answer(sys.stdin.buffer.read(), fmt) + "\n")
        out.flush()
        return 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return 0
        if not line.strip():
            continue
        out.write(answer(line, fmt) + "\n")
        out.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
