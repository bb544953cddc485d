#!/usr/bin/env python3
"""Persistent reducer that answers each request line with two lines, in one
write: the line itself, then an unrequested "extra"."""
import sys

for line in sys.stdin:
    sys.stdout.write(line.rstrip("\n") + "\nextra\n")
    sys.stdout.flush()
