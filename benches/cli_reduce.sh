#!/usr/bin/env bash
# The command line on a large file: `reduce` (and `check` of its output) on
# the `normal` history of N messages (default 1,000,000; see
# examples/throughput.rs), for each binary given, printing wall time and
# peak RSS (GNU time), with the file's size, and whether the outputs of all
# binaries are byte-identical.
#
#   bash benches/cli_reduce.sh target/release/reducer-kit /tmp/reducer-kit-before
#   N=200000 bash benches/cli_reduce.sh target/release/reducer-kit
#
# Needs /usr/bin/time (Debian package `time`) and a release build of the
# throughput example (built here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --quiet --release --example throughput
target/release/examples/throughput --dump "$n" >"$work/history.json"
echo "history: $n messages, $(stat -c %s "$work/history.json") bytes"
first=""
for bin in "$@"; do
  name=$(basename "$bin")
  # The input gate's size limit (64 MiB by default) raised for the large
  # history, on a binary that has one.
  limit=()
  if "$bin" reduce --help | grep -q -- --max-input; then limit=(--max-input 4294967296); fi
  /usr/bin/time -f "reduce  $bin: %e s, peak RSS %M KB" \
    "$bin" reduce "${limit[@]}" --policy turns --max $((n / 2 + 1)) "$work/history.json" >"$work/out-$name.json"
  /usr/bin/time -f "check   $bin: %e s, peak RSS %M KB" \
    "$bin" check "${limit[@]}" --policy turns --max $((n / 2 + 1)) "$work/history.json" "$work/out-$name.json" \
    | tail -1
  if [ -z "$first" ]; then
    first="$work/out-$name.json"
  elif cmp -s "$first" "$work/out-$name.json"; then
    echo "output of $bin: byte-identical to the first binary's"
  else
    echo "output of $bin: DIFFERS from the first binary's"
  fi
done
