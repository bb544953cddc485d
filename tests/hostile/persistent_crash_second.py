#!/usr/bin/env python3
"""Persistent reducer that answers request 1, exits with status 3 on request 2."""
import sys

count = 0
for line in sys.stdin:
    count += 1
    if count == 2:
        sys.stderr.write("crashing on request 2\n")
        sys.stderr.flush()
        sys.exit(3)
    sys.stdout.write('{"n": %d}\n' % count)
    sys.stdout.flush()
