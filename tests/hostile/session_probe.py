#!/usr/bin/env python3
"""Reports on stderr whether it leads its own session and process group
and what opening /dev/tty gives, then answers {"messages": []}."""
import errno
import os
import sys

sys.stdin.read()
me = os.getpid()
sys.stderr.write("own session: %s\n" % (os.getsid(0) == me))
sys.stderr.write("own group: %s\n" % (os.getpgid(0) == me))
try:
    os.close(os.open("/dev/tty", os.O_RDWR))
    sys.stderr.write("/dev/tty: opened\n")
except OSError as e:
    sys.stderr.write("/dev/tty: %s\n" % errno.errorcode.get(e.errno, e.errno))
sys.stdout.write('{"messages": []}')
