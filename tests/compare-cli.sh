#!/usr/bin/env bash
# Records what the `reducer-kit` command line prints for a fixed set of
# commands, so that two builds can be compared byte for byte (a refactor
# must not change a single output):
#
#   cp target/release/reducer-kit /tmp/reducer-kit-before    # before the change
#   cargo build --release                                    # after it
#   bash tests/compare-cli.sh /tmp/reducer-kit-before /tmp/cli-before
#   bash tests/compare-cli.sh target/release/reducer-kit /tmp/cli-after
#   diff -r /tmp/cli-before /tmp/cli-after && echo identical
#
# Each command's stdout, stderr and exit code go to OUTDIR/<name>.{out,err,code}
# (JSON and JUnit reports and saved files in OUTDIR/files). The binary runs through a
# symlink at one fixed path, so the reducer command lines the reports name
# are the same for both builds. Covered: reduce, validate, check, generate,
# serve through certify (every format and policy, persistent and per-case,
# the example reducers with their failures, shrinking, saved
# counterexamples, JSON and JUnit reports, known failures), and corpus
# check / regen / min / add / seed-fuzz; --help and usage errors. Takes a
# few minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1")
out=$2
rm -rf "$out"
mkdir -p "$out"
link_dir=${TMPDIR:-/tmp}/reducer-kit-compare
mkdir -p "$link_dir"
ln -sfn "$bin" "$link_dir/reducer-kit"
rk=$link_dir/reducer-kit
work=$link_dir/work
rm -rf "$work"
mkdir -p "$work"
# Files the commands write (reports, saved counterexamples): copied into
# OUTDIR at the end, written here so that the paths printed are the same.
keep=$work/keep
mkdir -p "$keep"

# run NAME CMD...: stdout, stderr and exit code of one command.
run() {
  local name=$1
  shift
  "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
  echo $? >"$out/$name.code"
}

run help "$rk" --help
for sub in reduce validate check serve certify generate corpus "corpus regen" "corpus check" \
    "corpus add" "corpus min" "corpus seed-fuzz"; do
  # shellcheck disable=SC2086
  run "help-${sub// /-}" "$rk" $sub --help
done
run usage-no-args "$rk"
run usage-bad-format "$rk" reduce --format gemini
run usage-bad-policy "$rk" certify --policy newest -- true
run usage-bad-shard "$rk" certify --shard 4/3 -- true

tau=corpus/tau-bench/sample.jsonl
seed=tests/data/order-shipment.json
# The corpus cases as JSON Lines requests, for reduce / validate / check.
python3 - >"$work/corpus.jsonl" <<'EOF'
import json, pathlib

class Num(str):
    """A JSON number, kept as written."""

def dump(v):
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dump(x) for x in v) + "]"
    return json.dumps(v)

for p in sorted(pathlib.Path("corpus").rglob("*.json")):
    if "fuzz" in p.parts:
        continue
    data = json.loads(p.read_text(), parse_float=Num, parse_int=Num)
    for c in data if isinstance(data, list) else [data]:
        if "expected" in c:  # a valid budget: reduce reads every line
            # The budget members the case has: maxMessages, or (spec v2) a
            # token budget.
            budget = {k: c[k] for k in ("maxMessages", "maxTokens", "tokens", "countPinned") if k in c}
            print(dump({"id": c["id"], **budget, "messages": c["messages"]}))
EOF

for policy in turns suffix; do
  run "reduce-corpus-$policy" "$rk" reduce --policy "$policy" "$work/corpus.jsonl"
  run "reduce-seed-$policy-max3" "$rk" reduce --policy "$policy" --max 3 "$seed"
  for max in 1 3 8 0 -2; do
    run "reduce-tau-$policy-max$max" "$rk" reduce --format openai --policy "$policy" --max "$max" "$tau"
  done
  "$rk" reduce --policy "$policy" "$work/corpus.jsonl" >"$work/reduced-$policy.jsonl" 2>/dev/null
  "$rk" reduce --format openai --policy "$policy" --max 4 "$tau" >"$work/tau-reduced-$policy.jsonl"
  run "check-corpus-$policy" "$rk" check --policy "$policy" "$work/corpus.jsonl" "$work/reduced-$policy.jsonl"
  run "check-corpus-identity-$policy" "$rk" check --policy "$policy" "$work/corpus.jsonl" "$work/corpus.jsonl"
  run "check-tau-$policy" "$rk" check --format openai --policy "$policy" --max 4 "$tau" "$work/tau-reduced-$policy.jsonl"
  run "check-tau-identity-$policy" "$rk" check --format openai --policy "$policy" --max 4 "$tau" "$tau"
  run "check-seed-$policy" "$rk" check --policy "$policy" --max 4 "$seed" tests/data/order-shipment-last4.json
done
run validate-corpus "$rk" validate "$work/corpus.jsonl"
run validate-corpus-pending "$rk" validate --allow-pending "$work/corpus.jsonl"
run validate-tau "$rk" validate --format openai "$tau"
run validate-tau-as-anthropic "$rk" validate --format anthropic "$tau"
run validate-seed "$rk" validate "$seed"

for format in canonical openai anthropic; do
  for policy in turns suffix; do
    run "generate-$format-$policy" "$rk" generate --count 2000 --seed 1 --format "$format" --policy "$policy"
  done
done
run generate-default "$rk" generate --count 2000
run generate-stats "$rk" generate --count 500 --seed 7 --stats

for format in canonical openai anthropic; do
  for policy in turns suffix; do
    name="certify-serve-$format-$policy"
    run "$name" "$rk" certify --policy "$policy" --format "$format" --persistent \
      --report-json "$keep/$name.json" --report-junit "$keep/$name.xml" \
      -- "$rk" serve --policy "$policy" --format "$format" --persistent
  done
done
run certify-serve-per-case "$rk" certify --cases 100 --seed 3 --report-json "$keep/certify-serve-per-case.json" \
  -- "$rk" serve
run certify-serve-wrong-policy "$rk" certify --policy suffix --persistent --cases 300 \
  --report-json "$keep/certify-serve-wrong-policy.json" --save-failures "$keep/saved-wrong-policy" \
  -- "$rk" serve --policy turns --persistent
printf 'seed/order-shipment-turns-4 no-orphan-result\ngen/1/3 budget\n' >"$work/known.txt"
for reducer in naive_last_n drop_tool_messages turns_reducer suffix_reducer; do
  for format in canonical anthropic; do
    name="certify-$reducer-$format"
    run "$name" "$rk" certify --policy turns --format "$format" --persistent --cases 500 \
      --report-json "$keep/$name.json" --report-junit "$keep/$name.xml" \
      --save-failures "$keep/saved-$name" --expect-fail "$work/known.txt" \
      -- python3 "examples/reducers/$reducer.py" --format "$format" --persistent
  done
done
run certify-shard "$rk" certify --shard 2/3 --cases 300 --persistent -- "$rk" serve --persistent
run certify-case "$rk" certify --case gen/1/17 --case spec/turns-maximal -- "$rk" serve
first_saved=$(ls "$keep/saved-certify-naive_last_n-canonical"/*.json 2>/dev/null | head -n 1)
if [ -n "$first_saved" ]; then
  run certify-replay "$rk" certify --replay "$first_saved" -- python3 examples/reducers/naive_last_n.py
fi

run corpus-check "$rk" corpus check
run corpus-regen-dry "$rk" corpus regen corpus --dry-run
run corpus-min-dry "$rk" corpus min corpus --dry-run
cp -r corpus/spec "$work/spec-copy"
run corpus-min-copy "$rk" corpus min "$work/spec-copy"
(cd "$work/spec-copy" && sha256sum $(ls | sort)) >"$out/corpus-min-copy.files"
run corpus-add "$rk" corpus add --dir "$work/regressions" "$keep"/saved-*/*.json corpus/fuzz/reduce_invariants/seed-0
(cd "$work/regressions" && sha256sum $(ls | sort)) >"$out/corpus-add.files"
run corpus-seed-fuzz "$rk" corpus seed-fuzz --out "$work/seeds" --count 8 --seed 1
(cd "$work/seeds" && find . -type f | sort | xargs sha256sum) >"$out/corpus-seed-fuzz.files"
cp -r "$keep" "$out/files"
rm -rf "$work"
echo "recorded in $out"
