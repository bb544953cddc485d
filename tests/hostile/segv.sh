#!/bin/sh
# Announces itself on stderr, then dies on SIGSEGV (no core file).
ulimit -c 0 2>/dev/null
echo "about to crash" >&2
kill -SEGV $$
