#!/usr/bin/env bash
# Executions per second of every fuzz target, as libFuzzer counts them
# (runs / seconds of its "Done N runs in S second(s)" line), from a copy of
# the committed seeds (corpus/fuzz/T, left untouched), without a sanitizer.
# With several fuzz directories (e.g. this one and the fuzz/ of an older
# checkout, each built with `cargo +nightly fuzz build -s none`), each target
# runs in every directory in turn, so that they share the machine's load.
#
#   bash fuzz/speed.sh                                  # this fuzz/ only
#   bash fuzz/speed.sh /tmp/old/fuzz fuzz               # before, after
#   SECS=30 TARGETS="reduce_invariants checker_convicts" bash fuzz/speed.sh
#
# What .ci/fuzz runs: reduce_invariants and checker_convicts built with
# `--no-trace-compares` (into fuzz/target-notc there; build a directory with
# `cargo +nightly fuzz build -s none --no-trace-compares` to time them here).
#
# SECS: seconds per run (default 60; -max_total_time). Prints one table row
# per target: exec/s per directory, in the order given. A run a crash stops
# early shows libFuzzer's figure up to the crash (its last status line),
# with how many runs it made and the panic.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=(fuzz)
secs=${SECS:-60}
targets=${TARGETS:-"reduce_invariants checker_convicts validator_agrees format_roundtrip parse_no_panic terms_agree"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| target | $(printf '%s | ' "${dirs[@]}")"
echo "|---|$(printf -- '---|%.0s' "${dirs[@]}")"
for t in $targets; do
  row="| $t |"
  for d in "${dirs[@]}"; do
    bin="$d/target/x86_64-unknown-linux-gnu/release/$t"
    if [ ! -x "$bin" ]; then
      row="$row (not built) |"
      continue
    fi
    rm -rf "$work/corpus" "$work/artifacts"
    mkdir -p "$work/artifacts"
    cp -r "corpus/fuzz/$t" "$work/corpus"
    "$bin" -max_total_time="$secs" -artifact_prefix="$work/artifacts/" "$work/corpus" \
      >"$work/log" 2>&1 || true
    done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$work/log" | tail -1 || true)
    if [ -z "$done_line" ]; then
      # A crash (or timeout) ends the run early: libFuzzer's last status
      # line gives its figure up to then (runs and exec/s, averaged from
      # the start), marked as such.
      status=$(grep -E '^#[0-9]+' "$work/log" | tail -1 || true)
      why=$(grep -m1 -E 'panicked at|ERROR: libFuzzer' "$work/log" | cut -c1-120 || echo '?')
      if [ -n "$status" ]; then
        runs=$(echo "$status" | sed -E 's/^#([0-9]+).*/\1/')
        eps=$(echo "$status" | sed -E 's/.*exec\/s: ([0-9]+).*/\1/')
        row="$row $eps (stopped by a crash after $runs runs: $why) |"
      else
        row="$row stopped early: $why |"
      fi
      continue
    fi
    runs=$(echo "$done_line" | awk '{print $2}')
    s=$(echo "$done_line" | awk '{print $5}')
    row="$row $((runs / s)) |"
  done
  echo "$row"
done
