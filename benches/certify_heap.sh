#!/usr/bin/env bash
# certify's memory against the number of cases (spec §8.8), two ways, side
# by side: the kit's peak heap (every allocation counted by heaptrack, so
# exact under any load) and its peak RSS (what the allocator holds from
# the system), at A and B generated cases against `reducer-kit serve
# --persistent`, 2 jobs. The heap is the kit's own; the RSS of the binary
# (mimalloc) adds what the allocator keeps, which moves from run to run.
#
#   cargo build --release && bash benches/certify_heap.sh [A B]   (default 200 20000)
#
# Needs heaptrack (apt install heaptrack); without it, RSS only.
set -euo pipefail
cd "$(dirname "$0")/.."
A=${1:-200}
B=${2:-20000}
KIT=target/release/reducer-kit
cargo build --release --quiet --example cli_system_allocator
SYS=target/release/examples/cli_system_allocator
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
peak_rss() { # BIN CASES: the peak RSS in KB
  /usr/bin/time -o "$work/time" -f '%M' "$1" certify --policy turns --cases "$2" --jobs 2 --persistent \
    -- "$KIT" serve --policy turns --persistent >/dev/null 2>&1 || true
  tail -1 "$work/time"
}
for n in "$A" "$B"; do
  rss=$(peak_rss "$KIT" "$n")
  sysrss=$(peak_rss "$SYS" "$n")
  heap=null
  if command -v heaptrack >/dev/null; then
    heaptrack -o "$work/h$n" "$SYS" certify --policy turns --cases "$n" --jobs 2 --persistent -- "$KIT" serve --policy turns --persistent >/dev/null 2>&1 || true
    heap=$(heaptrack_print "$work/h$n".zst --print-peaks 0 --print-allocators 0 --print-temporary 0 --print-leaks 0 2>/dev/null |
      sed -n 's/^peak heap memory consumption: //p')
    heap="\"$heap\""
  else
    echo "heaptrack not found: the heap is not measured (apt install heaptrack)" >&2
  fi
  echo "{\"cases\": $n, \"peakHeap\": $heap, \"rssKB\": $rss, \"rssSystemAllocatorKB\": $sysrss}"
done
