#!/usr/bin/env python3
"""Example external reducer for policy `turns` (spec/v1.md, section 3).

Keeps the pinned system message plus the newest whole turns that fit in
maxMessages; when even the newest turn does not fit, keeps its question and
its most recent messages. Then removes results and approval responses whose
call or request was cut away (positional pairing). It conforms exactly to the
policy, so reducer-kit should certify it up to the exact level.

Speaks runner protocol v1 on stdin/stdout, Python 3 standard library only:

    python3 turns_reducer.py [--format canonical|openai] [--persistent]

Without --persistent it reads all of stdin as one request
{"maxMessages": N, "messages": [...]} and writes one response,
{"messages": [...]} or {"error": "..."}. With --persistent it answers each
input line with one output line until end of input. The exit status is 0
whenever the command line is usable. Kept messages are written back as the
JSON values that were read (member order and number spelling included).
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


# --- the kit's view of a message ---------------------------------------------

class BadRequest(Exception):
    pass


TEXT, CALL, RESULT, REQUEST, RESPONSE, OPAQUE = range(6)
TAGS = {
    "text": (TEXT, None),
    "functionCall": (CALL, "callId"),
    "functionResult": (RESULT, "callId"),
    "toolApprovalRequest": (REQUEST, "requestId"),
    "toolApprovalResponse": (RESPONSE, "requestId"),
    "functionApprovalRequest": (REQUEST, "id"),
    "functionApprovalResponse": (RESPONSE, "id"),
}


def ascii_lower(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def role_of(text):
    r = ascii_lower(text)
    return "system" if r == "developer" else r


def string_member(obj, key, where):
    v = obj.get(key)
    if not isinstance(v, str):
        raise BadRequest("%s has no string `%s`" % (where, key))
    return v


def classify(part, tag_key, openai, where):
    """(kind, id) of a canonical content item or an OpenAI content part."""
    if not isinstance(part, Obj):
        return OPAQUE, None
    tag = part.get(tag_key)
    if not isinstance(tag, str) or tag not in TAGS:
        return OPAQUE, None
    if openai and tag in ("functionCall", "functionResult"):
        return OPAQUE, None  # OpenAI carries these natively, not as parts
    kind, id_key = TAGS[tag]
    if id_key is None:
        return kind, None
    return kind, string_member(part, id_key, "%s (%s)" % (where, tag))


class View:
    """Role and content items of one message. Each item is
    (kind, id, element index in the items array or None)."""

    def __init__(self, msg, index, fmt):
        where = "message %d" % index
        if not isinstance(msg, Obj):
            raise BadRequest(where + " is not a JSON object")
        self.role = role_of(string_member(msg, "role", where))
        self.items = []
        openai = fmt == "openai"
        key = "content" if openai else "contents"
        self.key = key
        if openai and self.role == "tool":
            call_id = string_member(msg, "tool_call_id", where)
            self.items.append((RESULT, call_id, None))
            return
        parts = msg.get(key)
        if isinstance(parts, list):
            for i, part in enumerate(parts):
                kind, item_id = classify(part, "type" if openai else "$type",
                                         openai, "%s, item %d" % (where, i))
                self.items.append((kind, item_id, i))
        elif openai and isinstance(parts, str):
            self.items.append((TEXT, None, None))
        elif parts is not None:
            raise BadRequest("%s: `%s` has an unexpected type" % (where, key))
        if openai:
            calls = msg.get("tool_calls")
            if isinstance(calls, list):
                for i, call in enumerate(calls):
                    if not isinstance(call, Obj):
                        raise BadRequest("%s: tool_calls[%d] is not an object" % (where, i))
                    call_id = string_member(call, "id", "%s, tool_calls[%d]" % (where, i))
                    self.items.append((CALL, call_id, None))
            elif calls is not None:
                raise BadRequest(where + ": `tool_calls` is not an array")

    def approval_only(self):
        return (self.role == "user" and bool(self.items)
                and all(kind == RESPONSE for kind, _, _ in self.items))

    def turn_start(self):
        return self.role == "user" and not self.approval_only()


def pinned_index(views):
    for i, v in enumerate(views):
        if v.role == "system":
            return i
    return None


def pair(views, selection):
    """Positional pairing over the selected messages: a result (response)
    answers the latest earlier call (request) with its id that is still
    unanswered. Returns {(message, item): (message, item)} both ways."""
    partner = {}
    open_calls = {}
    open_requests = {}
    for m in selection:
        items = views[m].items
        for k, (kind, item_id, _) in enumerate(items):
            if kind in (RESULT, RESPONSE):
                stack = (open_calls if kind == RESULT else open_requests).get(item_id)
                if stack:
                    p = stack.pop()
                    partner[(m, k)] = p
                    partner[p] = (m, k)
        for k, (kind, item_id, _) in enumerate(items):
            if kind in (CALL, REQUEST):
                table = open_calls if kind == CALL else open_requests
                table.setdefault(item_id, []).append((m, k))
    return partner


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


# --- policy `turns` ------------------------------------------------------------

def split_turns(views, rest):
    """Turns over the non-pinned messages, oldest first: (indices, has_question)."""
    turns = []
    for i in rest:
        if views[i].turn_start() or not turns:
            turns.append(([], views[i].turn_start()))
        turns[-1][0].append(i)
    return turns


def select(views, budget):
    pinned = pinned_index(views)
    rest = [i for i in range(len(views)) if i != pinned]
    if len(rest) <= budget:
        chosen = list(rest)
    else:
        turns = split_turns(views, rest)
        total = 0
        first = len(turns)
        for t in range(len(turns) - 1, -1, -1):
            size = len(turns[t][0])
            if total + size > budget:
                break
            total += size
            first = t
        if first < len(turns):
            chosen = [i for msgs, _ in turns[first:] for i in msgs]
        else:
            msgs, has_question = turns[-1]
            if has_question:
                tail = msgs[len(msgs) - (budget - 1):] if budget > 1 else []
                chosen = [msgs[0]] + tail
            else:
                chosen = msgs[len(msgs) - budget:]
    if pinned is not None:
        chosen.append(pinned)
    return sorted(chosen)


def remove_orphans(messages, views, selection):
    partner = pair(views, selection)
    out = []
    for m in selection:
        v = views[m]
        dropped = [k for k, (kind, _, _) in enumerate(v.items)
                   if kind in (RESULT, RESPONSE) and (m, k) not in partner]
        if not dropped:
            out.append(messages[m])
            continue
        if len(dropped) == len(v.items):
            continue  # nothing left: the message goes
        gone = {v.items[k][2] for k in dropped}
        msg = Obj()
        for name, value in messages[m]:
            if name == v.key and isinstance(value, list):
                value = [e for i, e in enumerate(value) if i not in gone]
            msg.append((name, value))
        out.append(msg)
    return out


def reduce_request(request, fmt):
    if not isinstance(request, Obj):
        raise BadRequest("the request is not a JSON object")
    budget = parse_budget(request.get("maxMessages"))
    messages = request.get("messages")
    if not isinstance(messages, list):
        raise BadRequest("`messages` is not an array")
    views = [View(m, i, fmt) for i, m in enumerate(messages)]
    return remove_orphans(messages, views, select(views, budget))


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
