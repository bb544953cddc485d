#!/bin/sh
# Persistent reducer: echoes each line, but hangs on a line containing "hang".
# Records its pid in $HOSTILE_PID_FILE when the test sets it.
if [ -n "$HOSTILE_PID_FILE" ]; then echo $$ > "$HOSTILE_PID_FILE"; fi
while IFS= read -r line; do
    case "$line" in
        *hang*) sleep 1000 ;;
    esac
    printf '%s\n' "$line"
done
