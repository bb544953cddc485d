"""What the example reducers in this folder share: runner protocol v1
(spec/v1.md, section 8), the three wire formats (section 1), and the kit's
view of a message (sections 1 and 2). Python 3 standard library only.

A reducer script defines one function and hands it to `main`:

    from reducer_protocol import main

    def select(history, budget):
        ...
        return history.take(indices)        # or history.remove_orphans(indices)

    if __name__ == "__main__":
        main(select)

and is run as

    python3 script.py [--format canonical|openai|anthropic] [--persistent]

Without --persistent it reads all of stdin as one request
{"maxMessages": N, "messages": [...]} and writes one response,
{"messages": [...]} or {"error": "..."}. With --persistent it answers each
input line with one output line, flushed, until end of input. The exit
status is 0 whenever the command line is usable, 2 when it is not.

`select` gets a `History` and the budget (an int >= 1; sys.maxsize for "no
limit") and returns the kept messages, as `History.take` or
`History.remove_orphans` give them. Raising `BadRequest` answers with an
error. Kept messages are written back as the JSON values that were read
(member order and number spelling included).

In the Anthropic format (section 1.5) the request's top-level `system`, when
present, is the first message of the history, the pseudo-message
{"role": "system", "content": <system>}, so it is the pinned system message
(kept, and not counted against the budget). When it is kept it goes back as
the top-level `system` member of the answer, next to `messages`.
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


def is_array(value):
    """A JSON array (an object is read as an Obj, which is a list too)."""
    return isinstance(value, list) and not isinstance(value, Obj)


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


FORMATS = ("canonical", "openai", "anthropic")

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
# Anthropic's own blocks; a block typed functionCall or functionResult is opaque.
ANTHROPIC_TAGS = {
    "tool_use": (CALL, "id"),
    "tool_result": (RESULT, "tool_use_id"),
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


def classify(part, fmt, where):
    """(kind, id) of a canonical content item, an OpenAI content part or an
    Anthropic block."""
    if not isinstance(part, Obj):
        return OPAQUE, None
    tag = part.get("$type" if fmt == "canonical" else "type")
    if not isinstance(tag, str):
        return OPAQUE, None
    if fmt == "anthropic" and tag in ANTHROPIC_TAGS:
        kind, id_key = ANTHROPIC_TAGS[tag]
    elif tag not in TAGS:
        return OPAQUE, None
    elif fmt != "canonical" and tag in ("functionCall", "functionResult"):
        return OPAQUE, None  # OpenAI and Anthropic carry these their own way
    else:
        kind, id_key = TAGS[tag]
    if id_key is None:
        return kind, None
    return kind, string_member(part, id_key, "%s (%s)" % (where, tag))


class View:
    """Role and content items of one message. Each item is
    (kind, id, element index in the items array or None). The role is
    lowercased, `developer` read as `system`; an Anthropic `user` message
    with a `tool_result` block has the role `tool`, and an Anthropic
    `system` message (the system prompt) has no items."""

    def __init__(self, msg, index, fmt):
        where = "message %d" % index
        if not isinstance(msg, Obj):
            raise BadRequest(where + " is not a JSON object")
        self.role = role_of(string_member(msg, "role", where))
        self.items = []
        openai = fmt == "openai"
        key = "contents" if fmt == "canonical" else "content"
        self.key = key
        if openai and self.role == "tool":
            call_id = string_member(msg, "tool_call_id", where)
            self.items.append((RESULT, call_id, None))
            return
        if fmt == "anthropic" and self.role == "system":
            return  # the system prompt: no items
        parts = msg.get(key)
        if is_array(parts):
            for i, part in enumerate(parts):
                kind, item_id = classify(part, fmt, "%s, item %d" % (where, i))
                self.items.append((kind, item_id, i))
        elif fmt != "canonical" and isinstance(parts, str):
            self.items.append((TEXT, None, None))
        elif parts is not None:
            raise BadRequest("%s: `%s` has an unexpected type" % (where, key))
        if openai:
            calls = msg.get("tool_calls")
            if is_array(calls):
                for i, call in enumerate(calls):
                    if not isinstance(call, Obj):
                        raise BadRequest("%s: tool_calls[%d] is not an object" % (where, i))
                    call_id = string_member(call, "id", "%s, tool_calls[%d]" % (where, i))
                    self.items.append((CALL, call_id, None))
            elif calls is not None:
                raise BadRequest(where + ": `tool_calls` is not an array")
        if (fmt == "anthropic" and self.role == "user"
                and any(kind == RESULT for kind, _, _ in self.items)):
            self.role = "tool"  # Anthropic's form of a tool message

    def approval_only(self):
        return (self.role == "user" and bool(self.items)
                and all(kind == RESPONSE for kind, _, _ in self.items))

    def turn_start(self):
        return self.role == "user" and not self.approval_only()


def message_role(msg, index):
    """The role of a message, looking at nothing else."""
    role = msg.get("role") if isinstance(msg, Obj) else None
    if not isinstance(role, str):
        raise BadRequest("message %d has no string `role`" % index)
    return role_of(role)


TOOL_TAGS = tuple(tag for tag in TAGS if tag != "text")
ANTHROPIC_TOOL_TAGS = tuple(ANTHROPIC_TAGS) + tuple(
    tag for tag in TOOL_TAGS if tag not in ("functionCall", "functionResult"))


def carries_tool_traffic(msg, role, fmt):
    """Whether a message (an Obj) holds a call, a result, an approval request
    or an approval response in the given wire format, by its tags alone."""
    if fmt == "openai":
        if role == "tool" or msg.get("tool_call_id") is not None:
            return True
        calls = msg.get("tool_calls")
        if is_array(calls) and calls:
            return True
        parts, tag_key, tags = msg.get("content"), "type", TOOL_TAGS
    elif fmt == "anthropic":
        parts, tag_key, tags = msg.get("content"), "type", ANTHROPIC_TOOL_TAGS
    else:
        parts, tag_key, tags = msg.get("contents"), "$type", TOOL_TAGS
    if not is_array(parts):
        return False
    return any(isinstance(p, Obj) and p.get(tag_key) in tags for p in parts)


def pinned_index(roles):
    """The index of the pinned system message, the first role `system`
    (`developer` included), or None."""
    for i, r in enumerate(roles):
        if r == "system":
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


# --- a request's history ---------------------------------------------------------

_ABSENT = object()


class History:
    """The messages of one request, in the format it came in. In the
    Anthropic format a top-level `system` is message 0 (`system_message`);
    error messages still count from the request's first message."""

    def __init__(self, messages, fmt, system=_ABSENT):
        self.fmt = fmt
        self.system_message = None
        self.offset = 0
        if system is not _ABSENT:
            self.system_message = Obj([("role", "system"), ("content", system)])
            messages = [self.system_message] + messages
            self.offset = 1
        self.messages = messages
        self._views = None
        self._roles = None

    def views(self):
        """A View of every message; an unreadable message is a BadRequest."""
        if self._views is None:
            self._views = [View(m, i - self.offset, self.fmt)
                           for i, m in enumerate(self.messages)]
        return self._views

    def roles(self):
        """Every message's role; a message without a string role is a
        BadRequest, nothing else is looked at."""
        if self._roles is None:
            self._roles = [message_role(m, i - self.offset)
                           for i, m in enumerate(self.messages)]
        return self._roles

    def carries_tool_traffic(self, i):
        return carries_tool_traffic(self.messages[i], self.roles()[i], self.fmt)

    def take(self, selection):
        """The messages at the indices `selection`, in that order."""
        return [self.messages[i] for i in selection]

    def remove_orphans(self, selection):
        """The messages at `selection` (ascending indices), less every result
        and approval response that has no partner among them; a message
        left with no items goes (spec/v1.md section 3, step 6)."""
        views = self.views()
        messages = self.messages
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
                if name == v.key and is_array(value):
                    value = [e for i, e in enumerate(value) if i not in gone]
                msg.append((name, value))
            out.append(msg)
        return out


# --- runner protocol v1 --------------------------------------------------------

def reduce_request(request, fmt, select):
    """The kept messages of a parsed request, and the value of the top-level
    `system` to answer with (_ABSENT: none)."""
    if not isinstance(request, Obj):
        raise BadRequest("the request is not a JSON object")
    budget = parse_budget(request.get("maxMessages"))
    messages = request.get("messages")
    if not is_array(messages):
        raise BadRequest("`messages` is not an array")
    system = request.get("system", _ABSENT) if fmt == "anthropic" else _ABSENT
    history = History(messages, fmt, system)
    kept = select(history, budget)
    pinned = history.system_message
    if pinned is None or not any(m is pinned for m in kept):
        return kept, _ABSENT
    return [m for m in kept if m is not pinned], pinned.get("content")


def answer(raw, fmt, select):
    try:
        request = parse_json(raw.decode("utf-8"))
        kept, system = reduce_request(request, fmt, select)
        if system is not _ABSENT:
            return "{\"system\":%s,\"messages\":%s}" % (to_text(system), to_text(kept))
        return "{\"messages\":%s}" % to_text(kept)
    except (BadRequest, ValueError, RecursionError, decimal.InvalidOperation) as e:
        return json.dumps({"error": str(e) or type(e).__name__})


def main(select, argv=None):
    """Runs `select` as a protocol v1 reducer with the command line
    `argv` (default sys.argv[1:]), then exits."""
    fmt = "canonical"
    persistent = False
    args = list(sys.argv[1:] if argv is None else argv)
    while args:
        a = args.pop(0)
        if a == "--persistent":
            persistent = True
        elif a == "--format" and args:
            fmt = args.pop(0)
        elif a.startswith("--format="):
            fmt = a.split("=", 1)[1]
        else:
            sys.stderr.write("usage: %s [--format %s] [--persistent]\n"
                             % (sys.argv[0], "|".join(FORMATS)))
            sys.exit(2)
    if fmt not in FORMATS:
        sys.stderr.write("unknown format %r\n" % fmt)
        sys.exit(2)
    out = sys.stdout
    if not persistent:
        out.write(answer(sys.stdin.buffer.read(), fmt, select) + "\n")
        out.flush()
        sys.exit(0)
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if not line.strip():
            continue
        out.write(answer(line, fmt, select) + "\n")
        out.flush()
