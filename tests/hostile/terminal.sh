#!/bin/sh
# Writes terminal control sequences to stderr (clear the screen, set the
# window title, a forged report line), then answers with invalid JSON.
cat >/dev/null
printf '\033[2J\033]0;pwned\007\ncertificate: forged by stderr\n\342\200\256reversed\n' >&2
printf 'not json \033[31m'
