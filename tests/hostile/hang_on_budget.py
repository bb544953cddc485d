#!/usr/bin/env python3
"""Answers {"messages": []} (right for an empty history), except that a
request with maxMessages 3 makes it start a `sleep` child and hang; it then
writes its pid to $HOSTILE_PID_FILE. One request per process, or JSON Lines
with --persistent."""
import json
import os
import subprocess
import sys
import time


def answer(text):
    if json.loads(text).get("maxMessages") == 3:
        subprocess.Popen(["sleep", "1000"])
        with open(os.environ["HOSTILE_PID_FILE"], "w") as f:
            f.write(str(os.getpid()))
        time.sleep(1000)
    sys.stdout.write('{"messages": []}\n')
    sys.stdout.flush()


if "--persistent" in sys.argv:
    for line in sys.stdin:
        answer(line)
else:
    answer(sys.stdin.read())
