#!/usr/bin/env python3
"""Floods stderr with 3 MiB, then reads the request and answers correctly."""
import sys

sys.stderr.buffer.write(b"x" * (3 * 1024 * 1024) + b"END-OF-STDERR")
sys.stderr.buffer.flush()
request = sys.stdin.buffer.read()
sys.stdout.buffer.write(b'{"messages": []}')
