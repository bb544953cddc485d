#!/bin/sh
# Hangs forever without reading stdin or writing anything; records its pid
# (its process group's id) in $HOSTILE_PID_FILE when the test sets it.
[ -n "${HOSTILE_PID_FILE:-}" ] && echo "$$" > "$HOSTILE_PID_FILE"
sleep 1000
