#!/bin/sh
# Leaves a grandchild running (holding stdout and stderr open), records
# "<own pid> <grandchild pid>" in $HOSTILE_PID_FILE (set by the test), answers.
cat >/dev/null
sleep 1000 &
echo "$$ $!" > "$HOSTILE_PID_FILE"
printf '{"messages": []}'
