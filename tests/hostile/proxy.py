#!/usr/bin/env python3
"""Persistent reducer that answers as `reducer-kit serve --persistent` does
(argv[1] is the kit, the policy is --policy P, default turns), misbehaving
as its other options say:

  --twice        writes each answer line twice, in one write
  --goodbye      writes an unrequested "bye" line when its stdin ends
  --start S      sleeps S seconds before reading anything (a slow start-up)
  --delay S      sleeps S seconds before each answer
  --once STATUS  exits with STATUS right after its first answer
  --inflate      answers "amountCents":1 as "amountCents":1e99999999999999999999
  --protocol 2   speaks protocol 2 (serve echoes each request's id)
  --stray MS     writes a copy of each answer line again MS milliseconds
                 after it (a stray line; 0: in the same write)
  --debug MS     writes a line "debug: answered" MS milliseconds after each
                 answer
  --id MODE      (protocol 2) echoes another id than the request's:
                 wrong (the id + 1000), stale (the previous request's id, 0
                 for the first), behind (the previous request's id, the
                 request's own for the first), string ("17" for 17), big (2^64 + the id),
                 float (17.0), exp (17e0)
  --doubles      writes every number of its answers as a JSON library that
                 reads numbers as doubles would (JavaScript's JSON.parse and
                 JSON.stringify): beyond 2^53 or f64, the nearest double,
                 and a number beyond f64's range as null
"""
import json
import re
import subprocess
import sys
import threading
import time

kit, args = sys.argv[1], sys.argv[2:]


def option(name, default=None):
    return args[args.index(name) + 1] if name in args else default


policy = option("--policy", "turns")
protocol = option("--protocol", "1")
if "--start" in args:
    time.sleep(float(option("--start")))
serve = subprocess.Popen(
    [kit, "serve", "--persistent", "--policy", policy, "--protocol", protocol],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
)
lock = threading.Lock()


def write(data):
    with lock:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def later(ms, data):
    """Writes `data` `ms` milliseconds from now, while the next request
    is read and answered."""
    timer = threading.Timer(ms / 1000.0, write, [data])
    timer.daemon = False
    timer.start()


class Double(float):
    """A float written as JavaScript writes a number."""

    def __repr__(self):
        if self != self or self in (float("inf"), float("-inf")):
            return "null"
        if self == int(self) and abs(self) < 1e21:
            return str(int(self))
        return float.__repr__(self).replace("e-0", "e-")


def as_doubles(line):
    value = json.loads(line, parse_int=lambda t: Double(float(t)) if abs(int(t)) > 2**53 else int(t),
                       parse_float=lambda t: Double(float(t)))

    def dump(v):
        if isinstance(v, dict):
            return "{" + ",".join(json.dumps(k) + ":" + dump(x) for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ",".join(dump(x) for x in v) + "]"
        if isinstance(v, Double):
            return repr(v)
        return json.dumps(v)

    return (dump(value) + "\n").encode()
def other_id(answer, request, previous):
    """`answer` with its leading `"id":N` replaced as --id says."""
    n = json.loads(request)["id"]
    mode = option("--id")
    echoed = {
        "wrong": str(n + 1000),
        "stale": str(previous),
        "behind": str(previous or n),
        "string": json.dumps(str(n)),
        "big": str(2**64 + n),
        "float": "%d.0" % n,
        "exp": "%de0" % n,
    }[mode]
    head = b'{"id":%d,' % n
    assert answer.startswith(head), answer[:40]
    return b'{"id":' + echoed.encode() + b"," + answer[len(head):]


previous = 0
while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    serve.stdin.write(line)
    serve.stdin.flush()
    answer = serve.stdout.readline()
    if "--id" in args:
        answer = other_id(answer, line, previous)
        previous = json.loads(line)["id"]
    if "--delay" in args:
        time.sleep(float(option("--delay")))
    if "--inflate" in args:
        answer = re.sub(
            rb'"amountCents":1(?=[,}])', b'"amountCents":1e99999999999999999999', answer
        )
    if "--doubles" in args:
        answer = as_doubles(answer)
    if "--stray" in args and int(option("--stray")) == 0:
        answer = answer * 2
    write(answer * 2 if "--twice" in args else answer)
    if "--stray" in args and int(option("--stray")) > 0:
        later(int(option("--stray")), answer)
    if "--debug" in args:
        later(int(option("--debug")), b"debug: answered\n")
    if "--once" in args:
        sys.exit(int(option("--once")))
if "--goodbye" in args:
    write(b"bye\n")
