"""What the example reducers in this folder share: runner protocol v1
(spec/spec.md, section 8) and protocol 2 (spec/spec.md, section 13), the wire
formats (spec/spec.md sections 1 and 14), and the kit's view
of a message (sections 1 and 2, with the call groups and attached reasoning
of spec/spec.md 14.5-14.6). Python 3 standard library only.

A reducer script defines one function and hands it to `main`:

    from reducer_protocol import main

    def select(history, budget):
        ...
        return history.take(indices)        # or history.remove_orphans(indices)

    if __name__ == "__main__":
        main(select)

and is run as

    python3 script.py [--format canonical|openai|anthropic|responses|gemini|bedrock] [--persistent]

Without --persistent it reads all of stdin as one request
{"maxMessages": N, "messages": [...]} and writes one response,
{"messages": [...]} or {"error": "..."} (under protocol 2 with the request's
"id" echoed first). With --persistent it answers each
input line with one output line, flushed, until end of input. The exit
status is 0 whenever the command line is usable, 2 when it is not.

`select` gets a `History` and the budget (an int >= 1; sys.maxsize for "no
limit") and returns the kept messages, as `History.take` or
`History.remove_orphans` give them. Raising `BadRequest` answers with an
error. Kept messages are written back as the JSON values that were read
(member order and number spelling included).

Protocol 2 (spec/spec.md): a script that reads token budgets and summaries
calls `main(select, protocol=2)` (and may pass several policies,
`main({"suffix": f, "turns": g}, protocol=2)`, chosen with --policy). The
request may then carry "maxTokens": N with "tokens" (one cost per message)
and "countPinned", or "maxMessages" as before; "summary": true allows one
summary message, costing "summaryTokens" (1 under maxMessages). `budget` is
still N; `History.cost(i)` is message i's cost (1 under maxMessages),
`History.available()` is B, what the messages besides the pinned one may
cost (spec/spec.md 11.1), `History.summary` and `History.summary_tokens` say
whether a summary is allowed and what it costs, and
`History.summary_message(text)` makes one in the request's format. Under
protocol 1 (the default) a request is read exactly as version 1 reads it.

In the Anthropic format (section 1.5) the request's top-level `system`, when
present, is the first message of the history, the pseudo-message
{"role": "system", "content": <system>}, so it is the pinned system message
(kept, and not counted against the budget unless countPinned). When it is
kept it goes back as the top-level `system` member of the answer, next to
`messages`; its cost is the request's "systemTokens". Bedrock's top-level
`system` and Gemini's `systemInstruction` travel the same way.

In the Responses format each input item is one message: a call item
(`function_call`, ...) is an assistant message with one call, an output item
a tool message with one result, an MCP approval request / response an
assistant / approval-only user message, any other item (`reasoning`, ...)
an assistant message with one opaque item. `continues_call_group` and
`attached_reasoning` give the links of spec/spec.md 14.5-14.6, and
`History.remove_orphans` drops an attached reasoning item whose item goes.
These examples know no provider profile (spec/spec.md section 15).

Policy `repair` (spec/spec.md section 17) has no budget: `select` gets the
budget and may ignore it, and `History.without_items(m, drop)` takes calls,
results and approval items out of a message in any format (the OpenAI
format's `tool_calls` entries included).
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


FORMATS = ("canonical", "openai", "anthropic", "responses", "gemini", "bedrock")
# The top-level member carrying the system prompt, per format.
SYSTEM_KEYS = {"anthropic": "system", "bedrock": "system", "gemini": "systemInstruction"}

# Responses: client-answered call types, their output types and ids.
RESPONSES_CALLS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
}
RESPONSES_OUTPUTS = {out: call for call, out in RESPONSES_CALLS.items()}
# Gemini and Bedrock parts are keyed by member: (call member, id), (result member, id).
KEYED = {
    "gemini": ("parts", "model", ("functionCall", "id"), ("functionResponse", "id")),
    "bedrock": ("content", "assistant", ("toolUse", "toolUseId"), ("toolResult", "toolUseId")),
}

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
    if fmt == "responses":  # parts of a message item: text or opaque
        return (TEXT if tag in ("input_text", "output_text") else OPAQUE), None
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
        self.call_item = False
        self.reasoning = False
        self.items = []
        if fmt == "responses" and self._responses(msg, where):
            return
        self.role = role_of(string_member(msg, "role", where))
        if fmt in KEYED:
            self._keyed(msg, where, fmt)
            return
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

    def _responses(self, msg, where):
        """Reads a Responses item that is not a message; False for a
        message item (read as in the other formats)."""
        kind = msg.get("type")
        if kind is None and isinstance(msg.get("role"), str):
            return False
        if not isinstance(kind, str):
            raise BadRequest(where + " has no string `type` (and no `role`)")
        if kind == "message":
            self.key = "content"
            return False
        self.key = None
        if kind in RESPONSES_CALLS:
            self.role, self.call_item = "assistant", True
            self.items.append((CALL, string_member(msg, "call_id", where), None))
        elif kind in RESPONSES_OUTPUTS:
            id_key = "id" if kind == "local_shell_call_output" else "call_id"
            self.role = "tool"
            self.items.append((RESULT, string_member(msg, id_key, where), None))
        elif kind == "mcp_approval_request":
            self.role = "assistant"
            self.items.append((REQUEST, string_member(msg, "id", where), None))
        elif kind == "mcp_approval_response":
            self.role = "user"
            self.items.append((RESPONSE, string_member(msg, "approval_request_id", where), None))
        else:
            self.role, self.reasoning = "assistant", kind == "reasoning"
            self.items.append((OPAQUE, None, None))
        return True

    def _keyed(self, msg, where, fmt):
        """Gemini contents and Bedrock messages: parts keyed by member."""
        key, model_role, (call, call_id), (result, result_id) = KEYED[fmt]
        self.key = key
        if self.role == model_role:
            self.role = "assistant"
        if self.role == "system":
            return  # the system prompt: no items
        parts = msg.get(key)
        if not is_array(parts):
            if parts is not None:
                raise BadRequest("%s: `%s` is not an array" % (where, key))
            return
        unnamed = {}
        for i, part in enumerate(parts):
            here = "%s, item %d" % (where, i)
            if not isinstance(part, Obj) or part.get("$type") is not None:
                self.items.append((OPAQUE, None, i))
                continue
            found = None
            for member, id_key, kind in ((call, call_id, CALL), (result, result_id, RESULT)):
                inner = part.get(member)
                if isinstance(inner, Obj):
                    item_id = inner.get(id_key)
                    if item_id is None and fmt == "gemini":
                        name = string_member(inner, "name", here)
                        n = unnamed.get((kind, name), 0)
                        unnamed[(kind, name)] = n + 1
                        item_id = "%s#%d" % (name, n)
                    if not isinstance(item_id, str):
                        raise BadRequest("%s has no string `%s`" % (here, id_key))
                    found = (kind, item_id, i)
            if found is None:
                text = isinstance(part.get("text"), str)
                found = (TEXT if text else OPAQUE, None, i)
            self.items.append(found)
        # A user message (content) holding results is the format's tool
        # message, text beside the results included (spec 1.6, 14.2 rule 6).
        if self.role == "user" and any(kind == RESULT for kind, _, _ in self.items):
            self.role = "tool"

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
    if fmt in ("responses", "gemini", "bedrock"):
        try:
            view = View(msg, 0, fmt)
        except BadRequest:
            return False
        return any(kind in (CALL, RESULT, REQUEST, RESPONSE) for kind, _, _ in view.items)
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


def continues_call_group(views, i):
    """Message i is a call item right after another (spec/spec.md 14.5): it
    is never a legal start of a suffix or of an overflow tail."""
    return 0 < i < len(views) and views[i].call_item and views[i - 1].call_item


def attached_reasoning(views, i):
    """Message i is a reasoning item attached to message i + 1 (spec/spec.md
    14.6): the two are kept and dropped together."""
    return i + 1 < len(views) and views[i].reasoning and views[i + 1].role != "user"


def linked_to_previous(views, i):
    """A cut may not start at message i (spec/spec.md 14.5-14.6)."""
    return continues_call_group(views, i) or (i > 0 and attached_reasoning(views, i - 1))


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


def parse_budget(value, name="maxMessages"):
    bad = BadRequest("%s must be an integer >= 1, got %s" % (name, to_text(value)))
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


def parse_cost(value, name):
    """A cost (spec/spec.md 11.2): a whole number >= 0, at most 2^64 - 1."""
    bad = BadRequest("%s must be an integer >= 0, got %s" % (name, to_text(value)))
    if not isinstance(value, Num):
        raise bad
    d = decimal.Decimal(value.text)
    if d < 0 or d != d.to_integral_value() or d >= 2 ** 64:
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
        # Protocol 2 (spec/spec.md 11.1); a message budget costs 1 a message.
        self.costs = None
        self.limit = None
        self.count_pinned = False
        self.summary = False
        self.summary_tokens = 1

    def cost(self, i):
        """What message i costs as sent: 1 under maxMessages, its entry of
        `tokens` under maxTokens."""
        return 1 if self.costs is None else self.costs[i]

    def pinned(self):
        return pinned_index(self.roles())

    def available(self):
        """B: the budget less the pinned message's cost when countPinned."""
        p = self.pinned()
        if self.count_pinned and p is not None:
            return self.limit - self.cost(p)
        return self.limit

    def summary_message(self, text):
        """An assistant message holding one text item, in the request's format."""
        if self.fmt == "canonical":
            return Obj([("role", "assistant"),
                        ("contents", [Obj([("$type", "text"), ("text", text)])])])
        return Obj([("role", "assistant"), ("content", text)])

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

    def without_items(self, m, drop):
        """Message m less its items at the indices `drop` (into
        views()[m].items): elements of its items array and, in the OpenAI
        format, entries of `tool_calls` (a `tool_calls` left empty goes).
        None when no item would be left, or when an item to drop is the
        message itself (an OpenAI tool message's result, a Responses item):
        the message goes (spec/spec.md section 17.2)."""
        v = self.views()[m]
        drop = set(drop)
        if not drop:
            return self.messages[m]
        if len(drop) >= len(v.items):
            return None
        gone_elems = set()
        gone_calls = set()
        call_no = 0
        for k, (kind, _, elem) in enumerate(v.items):
            if elem is None and kind == CALL and self.fmt == "openai":
                if k in drop:
                    gone_calls.add(call_no)
                call_no += 1
            elif k in drop:
                if elem is None:
                    return None
                gone_elems.add(elem)
        msg = Obj()
        for name, value in self.messages[m]:
            if name == v.key and is_array(value):
                value = [e for i, e in enumerate(value) if i not in gone_elems]
            elif name == "tool_calls" and self.fmt == "openai" and is_array(value):
                value = [e for i, e in enumerate(value) if i not in gone_calls]
                if not value:
                    continue
            msg.append((name, value))
        return msg

    def remove_orphans(self, selection):
        """The messages at `selection` (ascending indices), less every result
        and approval response that has no partner among them; a message
        left with no items goes (spec/spec.md section 3, step 6)."""
        views = self.views()
        messages = self.messages
        partner = pair(views, selection)
        kept = {}
        for m in selection:
            v = views[m]
            dropped = [k for k, (kind, _, _) in enumerate(v.items)
                       if kind in (RESULT, RESPONSE) and (m, k) not in partner]
            if not dropped:
                kept[m] = messages[m]
                continue
            if len(dropped) == len(v.items) or any(v.items[k][2] is None for k in dropped):
                continue  # nothing left (or the item is the message): it goes
            gone = {v.items[k][2] for k in dropped}
            msg = Obj()
            for name, value in messages[m]:
                if name == v.key and is_array(value):
                    value = [e for i, e in enumerate(value) if i not in gone]
                msg.append((name, value))
            kept[m] = msg
        # An attached reasoning item goes with its item (spec/spec.md 14.6).
        for m in sorted(kept, reverse=True):
            if attached_reasoning(views, m) and m + 1 not in kept:
                del kept[m]
        return [kept[m] for m in selection if m in kept]


# --- runner protocols 1 and 2 ---------------------------------------------------

def read_budget_v2(request, history):
    """The budget of a protocol 2 request (spec/spec.md 11.2), in that order:
    exactly one of maxMessages and maxTokens; maxTokens >= 1; one cost per
    message (systemTokens first in the Anthropic format); countPinned a
    boolean; and with countPinned the pinned message must fit alone."""
    has_messages = request.get("maxMessages", _ABSENT) is not _ABSENT
    has_tokens = request.get("maxTokens", _ABSENT) is not _ABSENT
    if has_messages and has_tokens:
        raise BadRequest("the request has both maxMessages and maxTokens")
    if not has_messages and not has_tokens:
        raise BadRequest("the request has neither maxMessages nor maxTokens")
    summary = request.get("summary", False)
    if not isinstance(summary, bool):
        raise BadRequest("summary must be true or false")
    history.summary = summary
    if has_messages:
        history.limit = parse_budget(request.get("maxMessages"))
        return history.limit
    history.limit = parse_budget(request.get("maxTokens"), "maxTokens")
    tokens = request.get("tokens")
    if is_array(tokens) and history.system_message is not None:
        system_tokens = request.get("systemTokens", _ABSENT)
        if system_tokens is not _ABSENT:
            tokens = [system_tokens] + list(tokens)
    if not is_array(tokens) or len(tokens) != len(history.messages):
        raise BadRequest("tokens must be an array with one cost per message")
    history.costs = [parse_cost(t, "tokens[%d]" % i) for i, t in enumerate(tokens)]
    count_pinned = request.get("countPinned", False)
    if not isinstance(count_pinned, bool):
        raise BadRequest("countPinned must be true or false")
    history.count_pinned = count_pinned
    if history.available() < 0:
        raise BadRequest("the pinned system message costs more than maxTokens")
    if request.get("summaryTokens", _ABSENT) is not _ABSENT:
        history.summary_tokens = parse_cost(request.get("summaryTokens"), "summaryTokens")
    return history.limit


def reduce_request(request, fmt, select, protocol=1):
    """The kept messages of a parsed request, and the value of the top-level
    `system` to answer with (_ABSENT: none)."""
    if not isinstance(request, Obj):
        raise BadRequest("the request is not a JSON object")
    if protocol == 1:
        budget = parse_budget(request.get("maxMessages"))
    messages = request.get("messages")
    if not is_array(messages):
        raise BadRequest("`messages` is not an array")
    system_key = SYSTEM_KEYS.get(fmt)
    system = request.get(system_key, _ABSENT) if system_key else _ABSENT
    history = History(messages, fmt, system)
    if protocol == 1:
        history.limit = budget
    else:
        budget = read_budget_v2(request, history)
    kept = select(history, budget)
    pinned = history.system_message
    if pinned is None or not any(m is pinned for m in kept):
        return kept, _ABSENT
    return [m for m in kept if m is not pinned], pinned.get("content")


def answer(raw, fmt, select, protocol=1):
    """The answer to one request text. Under protocol 2 it echoes the
    request's `id` first (spec/spec.md 13.7), so that the kit never takes a
    stray line for an answer."""
    echo = ""
    try:
        request = parse_json(raw.decode("utf-8"))
        if protocol == 2 and isinstance(request, Obj):
            rid = request.get("id", _ABSENT)
            if rid is not _ABSENT:
                echo = "\"id\":%s," % to_text(rid)
        kept, system = reduce_request(request, fmt, select, protocol)
        if system is not _ABSENT:
            return "{%s%s:%s,\"messages\":%s}" % (
                echo, json.dumps(SYSTEM_KEYS[fmt]), to_text(system), to_text(kept))
        return "{%s\"messages\":%s}" % (echo, to_text(kept))
    except (BadRequest, ValueError, RecursionError, decimal.InvalidOperation) as e:
        return "{%s\"error\":%s}" % (echo, json.dumps(str(e) or type(e).__name__))


def main(select, argv=None, protocol=1):
    """Runs `select` as a reducer speaking runner protocol `protocol` (1 or
    2) with the command line `argv` (default sys.argv[1:]), then exits.
    `select` may be a dict of policy name to function: --policy NAME picks
    one (default: the first)."""
    fmt = "canonical"
    persistent = False
    policies = select if isinstance(select, dict) else None
    policy = next(iter(policies)) if policies else None
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: %s [--format %s]%s [--persistent]\n" % (
        sys.argv[0], "|".join(FORMATS),
        " [--policy %s]" % "|".join(policies) if policies else "")
    while args:
        a = args.pop(0)
        if a == "--persistent":
            persistent = True
        elif a == "--format" and args:
            fmt = args.pop(0)
        elif a.startswith("--format="):
            fmt = a.split("=", 1)[1]
        elif policies and a == "--policy" and args:
            policy = args.pop(0)
        else:
            sys.stderr.write(usage)
            sys.exit(2)
    if fmt not in FORMATS:
        sys.stderr.write("unknown format %r\n" % fmt)
        sys.exit(2)
    if policies:
        if policy not in policies:
            sys.stderr.write("unknown policy %r\n" % policy)
            sys.exit(2)
        select = policies[policy]
    out = sys.stdout
    if not persistent:
        out.write(answer(sys.stdin.buffer.read(), fmt, select, protocol) + "\n")
        out.flush()
        sys.exit(0)
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if not line.strip():
            continue
        out.write(answer(line, fmt, select, protocol) + "\n")
        out.flush()
