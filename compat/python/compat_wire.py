"""What every Python compat adapter shares: runner protocol v1 of
reducer-kit (spec/spec.md section 8), the draft token fields of protocol v2,
and the rule that kept messages go back exactly as they came.

An adapter is a small program that puts a real library's reducer behind the
protocol. It defines one function and hands it to `serve`:

    from compat_wire import serve, require

    def reduce(request):
        lc = require("langchain_core.messages", "langchain-core")
        ...                       # map request.messages into the library
        ...                       # call the library's own reducer
        return [...]              # what the library gave back, mapped back

    if __name__ == "__main__":
        serve(reduce, fmt="openai", package="langchain-core")

`reduce` gets a `Request` and returns a list whose entries are either
`Message` objects of the request (the library kept that message: it is
written back as the exact JSON text it was read as, member order and number
spelling included) or plain dicts (a message the library made itself: a
summary, a "skipped N messages" note, a modified copy; written with
json.dumps, in the request's wire format). Raising any exception answers
{"error": "..."}: a library that refuses a request is judged by the kit
(`valid-output`), it never crashes the adapter.

The library is imported inside `reduce` (through `require`), never at the
top of an adapter, so every adapter file can be compiled and its
`--probe` run on a machine where the library is not installed.

Command line of every adapter:

    python3 adapter.py [--config NAME] [--persistent] [--probe]

--persistent answers one JSON line per input line, flushed (spec 8.3);
without it the whole of stdin is one request (8.2). --probe prints
{"package": ..., "version": ...} and exits 0 when the library imports, or
says why not on stderr and exits 3. The exit status is 0 after answering,
2 for a bad command line.

Protocol 2 (`certify --protocol 2`, spec/spec.md sections 11 and 13):
instead of "maxMessages" a request may carry "maxTokens": N and "tokens":
[t0, t1, ...], one cost per message of "messages"; "countPinned": true
makes the pinned system message's cost count (default false); "summary":
true with "summaryTokens": S tells a summarizer what a summary message
costs. `Request.cost(message)` gives every message's cost under either
protocol (1 per message under 1, the pinned system message 0 unless
countPinned), so token-counting adapters use one counter for both.

Request ids (protocol 2): a request that carries "id" gets it back as the
first member of its answer, whichever answer it is: {"id": 17,
"messages": [...]}, {"id": 17, "error": "..."} or {"id": 17,
"unsupported": "why"}. An adapter raises `Unsupported(why)` for a request
its library cannot express (a token budget for a library that counts
messages, budget 1 for a head-and-tail buffer that needs 2): the kit
records that case as skipped by the reducer, never as the library's
failure. A request without an id (protocol 1) gets {"error": why} for it
instead, as before ids existed. The budget is checked before the adapter
runs, so a bad budget is always an error, never `unsupported`.
"""

import decimal
import importlib
import json
import os
import sys


# --- JSON that keeps what it read ---------------------------------------------

class Num:
    """A JSON number kept as the text it was written with (so 1e400 and a
    30-digit integer go back unchanged)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class Obj(list):
    """A JSON object as its (name, value) members in the order read."""

    def get(self, key, default=None):
        found = default
        for k, v in self:
            if k == key:
                found = v  # a duplicate member: the last one wins, as in the kit
        return found


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def parse_json(text):
    return json.loads(text, object_pairs_hook=Obj, parse_int=Num,
                      parse_float=Num, parse_constant=_no_constant)


def is_array(value):
    return isinstance(value, list) and not isinstance(value, Obj)


def to_text(value):
    """The exact JSON text of a value read by parse_json."""
    out = []

    def dump(v):
        if isinstance(v, Obj):
            out.append("{")
            for i, (k, x) in enumerate(v):
                if i:
                    out.append(",")
                out.append(json.dumps(k))
                out.append(":")
                dump(x)
            out.append("}")
        elif isinstance(v, list):
            out.append("[")
            for i, x in enumerate(v):
                if i:
                    out.append(",")
                dump(x)
            out.append("]")
        elif isinstance(v, Num):
            out.append(v.text)
        else:
            out.append(json.dumps(v))

    dump(value)
    return "".join(out)


def plain(value):
    """The value as ordinary Python data, for handing to a library: objects
    become dicts, numbers int or float (lossy for huge or very precise
    numbers, which is why nothing plain is ever written back for a kept
    message)."""
    if isinstance(value, Obj):
        return {k: plain(v) for k, v in value}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, Num):
        d = decimal.Decimal(value.text)
        if d == d.to_integral_value() and abs(d.adjusted()) < 19:
            return int(d)
        try:
            return float(d)
        except (OverflowError, ValueError):
            return 0.0
    return value


# --- requests -------------------------------------------------------------------

class BadRequest(Exception):
    pass


class Unsupported(Exception):
    """The request asks for something the library cannot express (answered
    {"id": N, "unsupported": why} under protocol 2, {"error": why} without
    an id)."""


class LibraryMissing(Exception):
    """The adapter's library cannot be imported here."""


def require(module, package):
    """Imports `module` of the library `package`, or raises LibraryMissing
    with a message saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise LibraryMissing(
            "%s is not installed (%s); run compat/run, which installs "
            "compat/python/requirements.txt into compat/.cache/venv" % (package, e))


def ascii_lower(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def parse_budget(value, name):
    """A budget as the kit reads one (spec/spec.md section 2): a JSON number
    whose value is a whole number >= 1; a huge one means no limit. The
    adapters check this before calling the library, as any caller turning
    a wire request into the library's integer knob has to: the clause
    `rejects-bad-budget` therefore judges the adapter, not the library."""
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


def parse_count(value, name):
    """A non-negative whole number (a token cost)."""
    bad = BadRequest("%s must be an integer >= 0, got %s" % (name, to_text(value)))
    if not isinstance(value, Num):
        raise bad
    d = decimal.Decimal(value.text)
    if d < 0 or d != d.to_integral_value():
        raise bad
    return int(d)


def responses_role(item_type):
    """The role of a Responses input item that has no `role` member (the
    kit's view, src/formats/responses.rs): an output item (`*_output`) is a
    tool message, an approval response a user message, any other item
    (calls, reasoning, approval requests) an assistant message."""
    if not isinstance(item_type, str):
        return None
    if item_type.endswith("_output"):
        return "tool"
    if item_type == "mcp_approval_response":
        return "user"
    return "assistant"


class Message:
    """One message of a request.

    raw    the message as read (an Obj): what is written back if kept
    data   the same as plain Python data, for building library objects
    role   its role, lowercased; `developer` is read as `system`
    index  its position in the request's `messages` (-1: Anthropic's
           top-level system prompt)
    pinned whether it is the pinned system message (the first system one)
    """

    def __init__(self, raw, index, role):
        self.raw = raw
        self.data = plain(raw)
        self.index = index
        self.role = role
        self.pinned = False
        self.token_cost = 1

    def __repr__(self):
        return "Message(%d, %s)" % (self.index, self.role)


_ABSENT = object()


class Request:
    """A parsed request.

    messages      every Message, the pinned one included, in order
    pinned        the pinned system Message or None
    budget_kind   "messages" (protocol v1) or "tokens" (draft v2)
    budget        maxMessages or maxTokens (sys.maxsize: no limit)
    summary       whether the request allows a summary (v2), and
    summary_tokens what one costs
    """

    def __init__(self, obj, fmt):
        if not isinstance(obj, Obj):
            raise BadRequest("the request is not a JSON object")
        self.fmt = fmt
        messages = obj.get("messages")
        if not is_array(messages):
            raise BadRequest("`messages` is not an array")
        self.messages = []
        if fmt == "anthropic":
            system = obj.get("system", _ABSENT)
            if system is not _ABSENT:
                pseudo = Obj([("role", "system"), ("content", system)])
                m = Message(pseudo, -1, "system")
                m.system_value = system
                self.messages.append(m)
        for i, raw in enumerate(messages):
            role = raw.get("role") if isinstance(raw, Obj) else None
            if fmt == "responses" and isinstance(raw, Obj) and not isinstance(role, str):
                role = responses_role(raw.get("type"))
            if not isinstance(role, str):
                raise BadRequest("message %d has no string `role`" % i)
            role = ascii_lower(role)
            self.messages.append(Message(raw, i, "system" if role == "developer" else role))
        self.pinned = next((m for m in self.messages if m.role == "system"), None)
        if self.pinned is not None:
            self.pinned.pinned = True

        has_tokens = obj.get("maxTokens", _ABSENT) is not _ABSENT
        has_messages = obj.get("maxMessages", _ABSENT) is not _ABSENT
        if has_tokens and has_messages:
            raise BadRequest("the request has both maxMessages and maxTokens (exactly one is allowed)")
        if has_messages or not has_tokens:
            self.budget_kind = "messages"
            self.budget = parse_budget(obj.get("maxMessages"), "maxMessages")
            self.count_pinned = False
        else:
            self.budget_kind = "tokens"
            self.budget = parse_budget(obj.get("maxTokens"), "maxTokens")
            tokens = obj.get("tokens")
            wire = [m for m in self.messages if m.index >= 0]
            if not is_array(tokens) or len(tokens) != len(wire):
                raise BadRequest("`tokens` must be an array with one cost per message")
            for m, t in zip(wire, tokens):
                m.token_cost = parse_count(t, "tokens[%d]" % m.index)
            for m in self.messages:
                if m.index < 0 and obj.get("systemTokens", _ABSENT) is not _ABSENT:
                    m.token_cost = parse_count(obj.get("systemTokens"), "systemTokens")
            count_pinned = obj.get("countPinned", False)
            if not isinstance(count_pinned, bool):
                raise BadRequest("`countPinned` must be true or false")
            self.count_pinned = count_pinned
            if count_pinned and self.pinned is not None and self.pinned.token_cost > self.budget:
                raise BadRequest("countPinned: the pinned system message alone costs %d > maxTokens %d"
                                 % (self.pinned.token_cost, self.budget))
        summary = obj.get("summary", False)
        if not isinstance(summary, bool):
            raise BadRequest("`summary` must be true or false")
        self.summary = summary
        self.summary_tokens = 1
        if obj.get("summaryTokens", _ABSENT) is not _ABSENT:
            self.summary_tokens = parse_count(obj.get("summaryTokens"), "summaryTokens")

    def cost(self, message):
        """What a message of the request costs against the budget: under v1
        1 per message, under v2 its entry of `tokens`; the pinned system
        message 0 unless the request says countPinned."""
        if message.pinned and not self.count_pinned:
            return 0
        return message.token_cost

    def created_cost(self):
        """What a message the library made (a summary) costs: summaryTokens
        when the request gives it, else 1."""
        return self.summary_tokens

    def unpinned(self):
        """Every message but the pinned system message."""
        return [m for m in self.messages if not m.pinned]


# --- mapping library objects back ------------------------------------------------

def with_pinned(request, out):
    """`out` (what a library kept of the messages it was given, the pinned
    system message held aside) with the pinned system message put back, for
    a library that keeps the system prompt beside the history: at its
    original place among the kept messages (first, unless the history had
    messages before it; a message the library made counts as later)."""
    p = request.pinned
    if p is None:
        return out
    at = 0
    while at < len(out) and isinstance(out[at], Message) and out[at].index < p.index:
        at += 1
    return out[:at] + [p] + out[at:]


class IdentityMap:
    """Remembers which wire Message each library object was made from, by
    object identity (never by equality: two equal messages are still two
    messages)."""

    def __init__(self):
        self._by_id = {}
        self._keep = []  # holds the objects so that their ids stay unique

    def add(self, lib_obj, message):
        self._by_id[id(lib_obj)] = message
        self._keep.append(lib_obj)
        return lib_obj

    def get(self, lib_obj):
        return self._by_id.get(id(lib_obj))


# --- running -------------------------------------------------------------------

_loop = None


def run_async(coro):
    """Runs a coroutine on the adapter's one event loop."""
    import asyncio  # here, not at the top: it is slow to import (see the zygote)
    global _loop
    if _loop is None:
        _loop = asyncio.new_event_loop()
    return _loop.run_until_complete(coro)


def _with_id(rid, body):
    """`body` (the text of a JSON object) with the request id first."""
    if rid is _ABSENT:
        return body
    return '{"id":%s,%s' % (to_text(rid), body[1:]) if body != "{}" else '{"id":%s}' % to_text(rid)


def _answer_text(request, out_entries):
    system = _ABSENT
    parts = []
    for e in out_entries:
        if isinstance(e, Message):
            if e.index < 0:  # Anthropic's system prompt goes back on top
                system = e.system_value
                continue
            parts.append(to_text(e.raw))
        else:
            parts.append(json.dumps(e))
    body = "[" + ",".join(parts) + "]"
    if system is not _ABSENT:
        return '{"system":%s,"messages":%s}' % (to_text(system), body)
    return '{"messages":%s}' % body


def request_id(obj):
    """The request's `id` (protocol 2), or _ABSENT."""
    return obj.get("id", _ABSENT) if isinstance(obj, Obj) else _ABSENT


def answer(line, fmt, reduce, config):
    """One response line for one request line (with the request's id first
    when it has one)."""
    rid = _ABSENT
    try:
        obj = parse_json(line.decode("utf-8"))
        rid = request_id(obj)
        request = Request(obj, fmt)
        request.config = config
        request.id = rid
    except (BadRequest, ValueError, RecursionError, decimal.InvalidOperation) as e:
        return _with_id(rid, json.dumps({"error": str(e) or type(e).__name__}))
    try:
        out = reduce(request)
        return _with_id(rid, _answer_text(request, out))
    except Unsupported as e:
        if rid is _ABSENT:
            return json.dumps({"error": str(e)})
        return _with_id(rid, json.dumps({"unsupported": str(e)}))
    except BadRequest as e:
        return _with_id(rid, json.dumps({"error": str(e)}))
    except LibraryMissing as e:
        sys.stderr.write("compat adapter: %s\n" % e)
        raise SystemExit(3)
    except Exception as e:  # the library refused the request
        text = "%s: %s" % (type(e).__name__, e)
        sys.stderr.write("compat adapter: the library raised %s\n" % text[:500])
        return _with_id(rid, json.dumps({"error": "the library raised " + text[:2000]}))


# --- the zygote: a pre-imported adapter that forks per process ------------------
#
# Importing a framework takes a second or more, and the kit starts a new
# reducer process for every candidate while it shrinks a failure (hundreds
# per adapter). compat/run therefore starts each adapter once more as a
# zygote (`--zygote SOCKET`) that imports the library and waits on a Unix
# socket, and runs the kit with COMPAT_ZYGOTE=SOCKET in the environment.
# An adapter process started by the kit then hands its own stdin, stdout
# and stderr to the zygote (SCM_RIGHTS), which forks a child that serves
# them exactly as the adapter would have, and reports the child's exit
# status back; the kit's process exits with it. Nothing else changes: same
# code, same pipes, one fresh child per process. Without COMPAT_ZYGOTE (or
# when its socket does not answer) the adapter runs in its own process.

def _zygote_client(path, argv):
    import array
    import socket
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    payload = json.dumps(argv).encode("utf-8")
    fds = array.array("i", [0, 1, 2])
    s.sendmsg([payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    s.shutdown(socket.SHUT_WR)
    reply = b""
    while True:
        chunk = s.recv(64)
        if not chunk:
            break
        reply += chunk
    return int(reply or b"1")


def _zygote_serve(path, run_child):
    import signal
    import socket
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    if os.path.exists(path):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sys.stderr.write("compat zygote: ready on %s\n" % path)
    sys.stderr.flush()
    while True:
        conn, _ = listener.accept()
        try:
            msg, fds, _, _ = socket.recv_fds(conn, 65536, 3)
            argv = json.loads(msg.decode("utf-8"))
        except (OSError, ValueError):
            conn.close()
            continue
        if len(fds) != 3:
            conn.close()
            continue
        pid = os.fork()
        if pid == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            global _loop
            _loop = None  # never share the parent's event loop (its epoll fd) with a child
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            sys.stdin = open(0, "r", closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            code = 0
            try:
                run_child(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except BaseException:  # noqa: BLE001 - report as a crash, like a real process
                import traceback
                traceback.print_exc()
                code = 1
            try:
                sys.stdout.flush()
                sys.stderr.flush()
                conn.sendall(str(code).encode())
                conn.close()
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)
        conn.close()


def serve(reduce, fmt, package, module, configs=None, default_config=None):
    """Runs an adapter from its command line (see the module docstring).
    `module` is imported by --probe; `configs` names the configurations
    that --config accepts."""
    argv = list(sys.argv[1:])
    zygote = os.environ.get("COMPAT_ZYGOTE")
    if zygote and "--zygote" not in argv and "--probe" not in argv:
        try:
            sys.exit(_zygote_client(zygote, argv))
        except OSError:
            pass  # no zygote answering: run here
    _serve(reduce, fmt, package, module, configs, default_config, argv)


def _serve(reduce, fmt, package, module, configs, default_config, argv):
    persistent = False
    probe = False
    zygote = None
    config = default_config
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--persistent":
            persistent = True
        elif a == "--probe":
            probe = True
        elif a == "--config" and args:
            config = args.pop(0)
        elif a == "--zygote" and args:
            zygote = args.pop(0)
        else:
            sys.stderr.write("usage: %s [--config %s] [--persistent] [--probe] [--zygote SOCKET]\n"
                             % (sys.argv[0], "|".join(configs or ["-"])))
            sys.exit(2)
    if configs is not None and config not in configs:
        sys.stderr.write("unknown --config %r (one of %s)\n" % (config, ", ".join(configs)))
        sys.exit(2)
    if zygote:
        # Import the library and warm it up with a request, then fork per process.
        saved = sys.stdout
        sys.stdout = sys.stderr
        answer(b'{"maxMessages": 1, "messages": []}', fmt, reduce, config)
        sys.stdout = saved
        _zygote_serve(zygote, lambda child_argv: _serve(
            reduce, fmt, package, module, configs, default_config,
            [a for a in child_argv if a != "--zygote"]))
        return
    if probe:
        import importlib.metadata
        try:
            require(module, package)
            version = importlib.metadata.version(package)
        except (LibraryMissing, importlib.metadata.PackageNotFoundError) as e:
            sys.stderr.write("%s\n" % e)
            sys.exit(3)
        print(json.dumps({"package": package, "version": version}))
        sys.exit(0)
    # Libraries may print or log; only answers go to the real stdout.
    out = sys.stdout
    sys.stdout = sys.stderr
    if not persistent:
        out.write(answer(sys.stdin.buffer.read(), fmt, reduce, config) + "\n")
        out.flush()
        sys.exit(0)
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if not line.strip():
            continue
        out.write(answer(line, fmt, reduce, config) + "\n")
        out.flush()
