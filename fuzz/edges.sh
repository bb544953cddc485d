#!/usr/bin/env bash
# Edges one execution covers: each input of a corpus run alone by a built
# fuzz target (`-runs=0` on a directory holding only it), libFuzzer's `cov`
# at INITED, then the mean. libFuzzer's own work per execution grows with
# this count (fuzz/README.md, "What libFuzzer costs per edge").
#
#   bash fuzz/edges.sh TARGET [CORPUS] [N]
#
# TARGET: a target name (binary fuzz/target-notc/... or fuzz/target/...,
# whichever is built; FUZZ_BIN=path overrides) or a path to a binary.
# CORPUS: a directory of inputs (default corpus/fuzz/TARGET). N: how many
# inputs, picked in name order with a fixed stride (default 40; 0 = all).
# Prints: inputs, mean, min and max edges.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:?usage: fuzz/edges.sh TARGET [CORPUS] [N]}
name=$(basename "$t")
corpus=${2:-corpus/fuzz/$name}
n=${3:-40}
bin=${FUZZ_BIN:-}
if [ -z "$bin" ]; then
  if [ -x "$t" ]; then
    bin=$t
  else
    for d in fuzz/target-notc fuzz/target; do
      if [ -x "$d/x86_64-unknown-linux-gnu/release/$name" ]; then
        bin=$d/x86_64-unknown-linux-gnu/release/$name
        break
      fi
    done
  fi
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
  stride=$((total / n))
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=0 sum=0 min='' max=0
for ((i = 0; i < total; i += stride)); do
  [ "$n" -gt 0 ] && [ "$count" -ge "$n" ] && break
  rm -rf "$work/one"
  mkdir "$work/one"
  cp "${files[$i]}" "$work/one/"
  cov=$("$bin" -runs=0 "$work/one" 2>&1 | sed -nE 's/.*INITED cov: ([0-9]+).*/\1/p' | head -1)
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
