#!/usr/bin/env python3
"""Persistent reducer: answers each request line with {"echo": <line>}."""
import json
import sys

for line in sys.stdin:
    sys.stdout.write(json.dumps({"echo": line.rstrip("\n")}, separators=(",", ":")) + "\n")
    sys.stdout.flush()
