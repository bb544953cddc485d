#!/bin/sh
# Writes endless output to stdout; records its pid (its process group's id)
# in $HOSTILE_PID_FILE when the test sets it.
[ -n "${HOSTILE_PID_FILE:-}" ] && echo "$$" > "$HOSTILE_PID_FILE"
exec yes '{"messages": [], "padding": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}'
