#!/usr/bin/env python3
"""Tries to join the kit's process group (it used to, and the kit
then waited for it without a limit), reports how that went on stderr,
leaves a child in a process group of its own holding the pipes, and hangs
(per-case) or hangs on its first request (with --persistent)."""
import errno
import os
import sys
import time

try:
    os.setpgid(0, os.getpgid(os.getppid()))
    sys.stderr.write("setpgid: joined the kit's group\n")
except OSError as e:
    sys.stderr.write("setpgid: %s\n" % errno.errorcode.get(e.errno, e.errno))
sys.stderr.flush()
if os.fork() == 0:
    os.setpgid(0, 0)
    time.sleep(1000)
    os._exit(0)
if "--persistent" in sys.argv:
    sys.stdin.readline()
time.sleep(1000)
