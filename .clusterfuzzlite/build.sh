#!/bin/bash -eu
# Builds every cargo-fuzz target of fuzz/ (the thin shims over
# src/fuzzers/) and puts each binary, with its committed seed corpus from
# corpus/fuzz/<target>/ zipped as <target>_seed_corpus.zip, into $OUT.
# Run by ClusterFuzzLite / OSS-Fuzz in the image of ./Dockerfile, from
# $SRC/reducer-kit.

cd "$SRC/reducer-kit"
cargo fuzz build -O

release=fuzz/target/x86_64-unknown-linux-gnu/release
for target in $(cargo fuzz list); do
  cp "$release/$target" "$OUT/"
  seeds="corpus/fuzz/$target"
  if [ -d "$seeds" ] && [ -n "$(ls -A "$seeds")" ]; then
    rm -f "$OUT/${target}_seed_corpus.zip"
    zip -j -q "$OUT/${target}_seed_corpus.zip" "$seeds"/*
  fi
done
