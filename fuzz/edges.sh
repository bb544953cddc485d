#!/usr/bin/env bash
# Edges one execution covers: each input of a corpus run alone by a built
# fuzz target (`-runs=0` on a directory holding only it), libFuzzer's `cov`
# at INITED, then the mean. libFuzzer's own work per execution grows with
# this count (fuzz/README.md, "what libFuzzer costs per edge"). The count
# includes the edges of the empty input libFuzzer runs first.
#
#   bash fuzz/edges.sh TARGET [CORPUS] [N]
#
# TARGET: a target name (binary fuzz/target-notc/... or fuzz/target/...,
# whichever is built; FUZZ_BIN=path overrides) or a path to a binary.
# CORPUS: a directory of inputs (default corpus/fuzz/TARGET). N: how many
# inputs, picked in name order with a fixed stride over the whole corpus
# (default 40; 0 = all). Prints: inputs, mean, min and max edges. Exit
# codes: 0 done, 1 no input ran (each crashed), 2 usage or a missing
# binary or corpus.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 3 ]; then
  echo "usage: fuzz/edges.sh TARGET [CORPUS] [N]" >&2
  exit 2
fi
t=$1
n=${3:-40}
if ! [[ "$n" =~ ^[0-9]+$ ]]; then
  echo "edges: N must be a whole number, not '$n'" >&2
  exit 2
fi
# Paths given relative to where the script is run from.
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
name=$(basename "$t")
if [ $# -ge 2 ]; then
  corpus=$(abs "$2")
fi
bin=${FUZZ_BIN:+$(abs "$FUZZ_BIN")}
if [ -z "$bin" ] && [ -x "$t" ] && [ -f "$t" ]; then
  bin=$(abs "$t")
fi
cd "$(dirname "$0")/.."
corpus=${corpus:-corpus/fuzz/$name}
if [ -z "$bin" ]; then
  for d in fuzz/target-notc fuzz/target; do
    if [ -x "$d/x86_64-unknown-linux-gnu/release/$name" ]; then
      bin=$d/x86_64-unknown-linux-gnu/release/$name
      break
    fi
  done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "edges: no built binary for $t (cargo +nightly fuzz build -s none $name)" >&2
  exit 2
fi
if [ ! -d "$corpus" ]; then
  echo "edges: $corpus: not a directory" >&2
  exit 2
fi
mapfile -t files < <(find "$corpus" -maxdepth 1 -type f ! -name '.*' | sort)
total=${#files[@]}
if [ "$total" -eq 0 ]; then
  echo "edges: $corpus: no inputs" >&2
  exit 2
fi
stride=1
if [ "$n" -gt 0 ] && [ "$total" -gt "$n" ]; then
  # Rounded up, so that the sample spans the whole corpus.
  stride=$(((total + n - 1) / n))
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=0 sum=0 min='' max=0
for ((i = 0; i < total; i += stride)); do
  [ "$n" -gt 0 ] && [ "$count" -ge "$n" ] && break
  rm -rf "$work/one"
  mkdir "$work/one"
  cp "${files[$i]}" "$work/one/"
  cov=$({ "$bin" -runs=0 -artifact_prefix="$work/" "$work/one" 2>&1 || true; } |
    sed -nE 's/.*INITED cov: ([0-9]+).*/\1/p' | head -1)
  if [ -z "$cov" ]; then
    echo "edges: ${files[$i]}: no INITED line (a crash?)" >&2
    continue
  fi
  count=$((count + 1))
  sum=$((sum + cov))
  [ -z "$min" ] || [ "$cov" -lt "$min" ] && min=$cov
  [ "$cov" -gt "$max" ] && max=$cov
done
if [ "$count" -eq 0 ]; then
  echo "edges: no input ran" >&2
  exit 1
fi
echo "$name: $count inputs of $total, edges per execution: mean $((sum / count)), min $min, max $max"
