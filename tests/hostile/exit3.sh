#!/bin/sh
# Answers, complains on stderr, then exits with status 3.
cat >/dev/null
printf '{"messages": []}'
echo "bad things happened" >&2
exit 3
