#!/usr/bin/env python3
"""Persistent reducer that starts slowly and lives for one request: sleeps
argv[2] seconds before reading anything, answers its one request with no
messages, notes the answer as a line of the file argv[1], and exits 0 (the
kit starts it again for the next request, spec §8.3).

    python3 -S slow_start_once.py LOG SECONDS
"""
import sys
import time

time.sleep(float(sys.argv[2]))
line = sys.stdin.readline()
if line:
    sys.stdout.write('{"messages":[]}\n')
    sys.stdout.flush()
    with open(sys.argv[1], "a") as log:
        log.write("answered\n")
