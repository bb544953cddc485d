#!/bin/sh
# Answers with bytes that are not UTF-8, exit status 0.
cat >/dev/null
printf '\377\376{"messages": ["\300\200"]}\n'
