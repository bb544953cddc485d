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
"""
import re
import subprocess
import sys
import time

kit, args = sys.argv[1], sys.argv[2:]


def option(name, default=None):
    return args[args.index(name) + 1] if name in args else default


policy = option("--policy", "turns")
if "--start" in args:
    time.sleep(float(option("--start")))
serve = subprocess.Popen(
    [kit, "serve", "--persistent", "--policy", policy],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
)
while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    serve.stdin.write(line)
    serve.stdin.flush()
    answer = serve.stdout.readline()
    if "--delay" in args:
        time.sleep(float(option("--delay")))
    if "--inflate" in args:
        answer = re.sub(
            rb'"amountCents":1(?=[,}])', b'"amountCents":1e99999999999999999999', answer
        )
    sys.stdout.buffer.write(answer * 2 if "--twice" in args else answer)
    sys.stdout.buffer.flush()
    if "--once" in args:
        sys.exit(int(option("--once")))
if "--goodbye" in args:
    sys.stdout.buffer.write(b"bye\n")
    sys.stdout.buffer.flush()
