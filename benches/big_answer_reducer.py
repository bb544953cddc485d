#!/usr/bin/env python3
"""A persistent reducer for the memory benchmark (benches/memory.py): it
answers as `reducer-kit serve --persistent` does (argv[1] is the kit, argv[2:]
go to serve), but adds to the first message of each answer a "padding"
member of about 600 KB (10,000 short strings), so every answer is about
600 KB and fabricated (it fails no-fabrication and the clauses that follow
from it): the kind of reducer that made the kit keep every response."""
import sys
import subprocess

PAD = (
    b'"padding":['
    + b",".join(b'"%054d"' % i for i in range(10_000))
    + b"],"
)
serve = subprocess.Popen(
    [sys.argv[1], "serve", "--persistent"] + sys.argv[2:],
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
    if answer.startswith(b'{"messages":[{'):
        answer = b'{"messages":[{' + PAD + answer[len(b'{"messages":[{'):]
    sys.stdout.buffer.write(answer)
    sys.stdout.buffer.flush()
