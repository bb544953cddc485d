#!/bin/sh
# Leaves a daemon in a session of its own that holds stdout and stderr for
# 30 s, then answers as `reducer-kit serve` does ($1 is the kit, the other
# arguments go to serve).
kit="$1"
shift
setsid sleep 30 </dev/null &
exec "$kit" serve "$@"
