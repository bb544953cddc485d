#!/bin/sh
# Reads the request and answers with truncated JSON, exit status 0.
cat >/dev/null
printf '{"messages": [ {"role": '
