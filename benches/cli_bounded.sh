#!/usr/bin/env bash
# Bounded whatever it is given (spec §8.11), for each binary given:
#
# - `reduce` on a history whose message has a member nested 10,000 deep
#   (20 KB) and 100,000 deep (200 KB): wall time, bytes written, exit code
#   (a run is stopped after 10 s);
# - `validate`, `reduce` and `check` given /dev/zero and a FIFO with no
#   writer: exit code and wall time (stopped after 5 s, memory capped at
#   2 GB with `ulimit -v`);
# - `check` of `reduce`'s output on two histories of SIZE bytes (default
#   200,000,000): the `normal` shape of examples/throughput.rs (about 85
#   bytes a message) and one of messages of about 830 bytes (a 1,000-byte
#   text or result in most of them); wall time and peak RSS (GNU time),
#   and RSS over the larger file.
#
#   bash benches/cli_bounded.sh /tmp/reducer-kit-before target/release/reducer-kit
#   SIZE=50000000 bash benches/cli_bounded.sh target/release/reducer-kit
#
# Needs /usr/bin/time (Debian package `time`), python3 and a release build
# of the throughput example (built here when missing).
set -uo pipefail
cd "$(dirname "$0")/.."
size=${SIZE:-200000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --quiet --release --example throughput

# The histories.
python3 - "$work" <<'EOF'
import sys
work = sys.argv[1]
for n in (10_000, 100_000):
    with open(f"{work}/deep{n}.json", "w") as f:
        f.write('[{"role":"user","contents":[{"$type":"text","text":"hi"}],"x":'
                + "[" * n + "]" * n + "}]\n")
EOF
mkfifo "$work/fifo.json"
target/release/examples/throughput --dump $((size / 86)) >"$work/normal.json"
python3 - "$work/large.json" "$size" <<'EOF'
import json, sys
path, size = sys.argv[1], int(sys.argv[2])
pad = "x" * 1000
out = [{"role": "system", "contents": [{"$type": "text", "text": "Be brief."}]}]
n = size // 834
i = 0
while len(out) < n:
    cid = f"c{i}"
    for m in [
        {"role": "user", "contents": [{"$type": "text", "text": f"question {i} {pad}"}]},
        {"role": "assistant", "contents": [{"$type": "functionCall", "callId": cid, "name": "Lookup", "arguments": {"n": i}}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": cid, "result": pad}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "done " + pad}]},
    ]:
        if len(out) < n:
            out.append(m)
    i += 1
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
EOF

for bin in "$@"; do
  echo "== $bin"
  # --max-input where the binary has it (the files here are over 64 MiB).
  limit=()
  if "$bin" check --help | grep -q -- --max-input; then
    limit=(--max-input 1000000000)
  fi
  for n in 10000 100000; do
    f="$work/deep$n.json"
    start=$(date +%s.%N)
    bytes=$(timeout 10 "$bin" reduce --max 3 "$f" 2>"$work/err" | wc -c)
    code=${PIPESTATUS[0]}
    end=$(date +%s.%N)
    printf 'reduce, a member nested %s deep (%s bytes): %.2f s, %s bytes written, exit %s: %s\n' \
      "$n" "$(stat -c %s "$f")" "$(echo "$end - $start" | bc)" "$bytes" "$code" "$(head -c 120 "$work/err")"
  done
  for input in /dev/zero "$work/fifo.json"; do
    for cmd in "validate" "reduce --max 3" "check --policy turns --max 3"; do
      args=($cmd "$input")
      [ "${cmd%% *}" = check ] && args+=(tests/data/order-shipment.json)
      start=$(date +%s.%N)
      (ulimit -v 2000000; timeout 5 "$bin" "${args[@]}" >/dev/null 2>"$work/err" </dev/null)
      code=$?
      end=$(date +%s.%N)
      printf '%s %s: %.2f s, exit %s (124: stopped after 5 s): %s\n' "${cmd%% *}" "$(basename "$input")" \
        "$(echo "$end - $start" | bc)" "$code" "$(head -c 100 "$work/err" | tr '\n' ' ')"
    done
  done
  for shape in normal large; do
    f="$work/$shape.json"
    fsize=$(stat -c %s "$f")
    # Half the messages and one.
    if [ "$shape" = normal ]; then n=$((size / 86)); else n=$((size / 834)); fi
    max=$((n / 2 + 1))
    "$bin" reduce "${limit[@]}" --policy turns --max "$max" "$f" >"$work/$shape.out"
    osize=$(stat -c %s "$work/$shape.out")
    larger=$((fsize > osize ? fsize : osize))
    /usr/bin/time -f "%e %M" -o "$work/time" \
      "$bin" check "${limit[@]}" --policy turns --max "$max" "$f" "$work/$shape.out" >"$work/check" 2>&1
    read -r secs kb <"$work/time"
    printf 'check %s (%s bytes, output %s bytes): %s s, peak RSS %s KB = %.2fx the larger file; %s\n' \
      "$shape" "$fsize" "$osize" "$secs" "$kb" "$(echo "$kb * 1024 / $larger" | bc -l)" "$(tail -1 "$work/check")"
  done
done
