#!/usr/bin/env python3
"""The kit's own CPU to read one long answer, persistent mode against
per-case mode, side by side in one run (persistent mode reads an answer
line by line from a pipe as it comes; each byte must be looked at once).

A reducer answers every request with one message whose text is SIZE bytes
(default 80,000,000): a fabricated answer, judged like any other.
`certify --replay tests/data/empty-case.json --shrink-tries 0` runs it
(its request and extra requests each get such an answer) in per-case mode,
then in persistent mode; for each, the kit's own user + system CPU seconds
(read from /proc every 0.05 s until it exits: not the reducer's), wall
seconds and the number of answers; then persistent over per-case.

    cargo build --release
    python3 benches/big_answer_line.py [--size 80000000] [--repeat 3]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, "target/release/reducer-kit")
TICK = os.sysconf("SC_CLK_TCK")

REDUCER = r'''
import sys
size, persistent = int(sys.argv[1]), "--persistent" in sys.argv
answer = (b'{"messages":[{"role":"user","contents":[{"$type":"text","text":"'
          + b"x" * size + b'"}]}]}\n')
while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    sys.stdout.buffer.write(answer)
    sys.stdout.buffer.flush()
    if not persistent:
        break
'''


def cpu(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError):
        return None


def run(script, size, persistent):
    args = [KIT, "certify", "--replay", os.path.join(ROOT, "tests/data/empty-case.json"),
            "--shrink-tries", "0", "--jobs", "1", "--timeout", "600000",
            "--max-output", str(size + 1000)]
    reducer = ["python3", "-S", script, str(size)]
    if persistent:
        args.append("--persistent")
        reducer.append("--persistent")
    start = time.monotonic()
    p = subprocess.Popen(args + ["--"] + reducer, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT)
    used = 0.0
    while p.poll() is None:
        c = cpu(p.pid)
        if c is not None:
            used = c
        time.sleep(0.05)
    out, _ = p.communicate()
    return time.monotonic() - start, used, p.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=80_000_000)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    if not os.path.exists(KIT):
        sys.exit("build first: cargo build --release")
    work = tempfile.mkdtemp(prefix="big-answer-")
    script = os.path.join(work, "reducer.py")
    with open(script, "w") as f:
        f.write(REDUCER)
    best = {}
    for _ in range(a.repeat):
        for mode in ("per-case", "persistent"):
            wall, used, code = run(script, a.size, mode == "persistent")
            print(json.dumps({"mode": mode, "answerBytes": a.size, "kitCpuSeconds": round(used, 2),
                              "wallSeconds": round(wall, 2), "exit": code}), flush=True)
            best[mode] = min(best.get(mode, used), used)
    print(json.dumps({"persistentOverPerCase": round(best["persistent"] / max(best["per-case"], 0.01), 2),
                      "bestKitCpuSeconds": best}))


if __name__ == "__main__":
    main()
