#!/usr/bin/env python3
"""Shrinking a long failing case, side by side with the same run of a
passing reducer (spec/spec.md section 9.1, "Shrinking is bounded").

For each size N (default 2,000 and 1,000,000 messages) a corpus case of N
messages, user and assistant in turn, maxMessages 3 (the reference keeps
the last turn; a last-N cut keeps 3 messages and starts inside a turn).
`certify --persistent --jobs 1` runs it against
examples/reducers/turns_reducer.py (passes: the baseline) and
examples/reducers/naive_last_n.py (fails whole-turns and
matches-reference, then shrinks within --shrink-time), one after the
other. For each run: wall seconds, the kit's own peak RSS (its VmHWM, read
every 0.1 s until it exits: not the reducer's), and for the failing run
the shrinking line (`shrunk 2 failures in S s (T tries)`) and the
counterexample headers; then the failing run's peak over the passing
run's, and that excess over the case file's size.

With --format openai (or another wire format both example reducers
speak), both runs are in that format: the kit converts each case and each
answer, and the failing run's excess includes what its failure keeps of
the conversion.

With --declare soft-budget the failing reducer fails one clause
(whole-turns) where it fails two: its failure's example is then held by
one failure alone, and is moved into the shrink rather than copied.
--kit BIN runs another build of the kit (an older one, to compare).

With --sigint, the failing run of each size again, its reducer slowed by
0.3 s per answer, and SIGINT sent once the reducer has been asked its
second shrinking candidate: the seconds from the signal to the kit's exit
(exit code 130).

    cargo build --release
    python3 benches/shrink_bounded.py [--sizes 2000,1000000] [--shrink-time 5] [--format F]
        [--declare D] [--kit BIN] [--sigint]
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, "target/release/reducer-kit")
REDUCERS = os.path.join(ROOT, "examples/reducers")

SLOW = r'''
import subprocess, sys, time
log, delay = sys.argv[1], float(sys.argv[2])
inner = subprocess.Popen([sys.executable, "-S", sys.argv[3], "--persistent"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    with open(log, "a") as f:
        f.write("request\n")
    inner.stdin.write(line)
    inner.stdin.flush()
    answer = inner.stdout.readline()
    time.sleep(delay)
    sys.stdout.buffer.write(answer)
    sys.stdout.buffer.flush()
'''


def message(i):
    role = "user" if i % 2 == 0 else "assistant"
    return '{"role":"%s","contents":[{"$type":"text","text":"%d"}]}' % (role, i)


def write_case(folder, n):
    """A case file of n messages, maxMessages 3, its expected answer the
    last turn; returns its size in bytes."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "long.json")
    with open(path, "w") as f:
        f.write('[{"id":"long/%d","spec":1,"policy":"turns","maxMessages":3,'
                '"expected":[%s,%s],"messages":[' % (n, message(n - 2), message(n - 1)))
        for i in range(n):
            f.write(("," if i else "") + message(i))
        f.write("]}]\n")
    return os.path.getsize(path)


def peak_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def certify(corpus, reducer, shrink_time, interrupt_after=None, log=None, fmt="canonical",
            declare=None, kit=None):
    """Runs certify; returns (seconds, peak KB, exit code, stdout, stderr,
    seconds from SIGINT to exit or None)."""
    args = [kit or KIT, "certify", "--corpus", corpus, "--cases", "0", "--persistent",
            "--jobs", "1", "--timeout", "600000", "--shrink-time", str(shrink_time),
            "--format", fmt] + (["--declare", declare] if declare else []) + ["--"] + reducer
    start = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    peak = 0
    sent = None
    out, err = b"", b""
    while p.poll() is None:
        kb = peak_kb(p.pid)
        if kb:
            peak = max(peak, kb)
        if interrupt_after and sent is None and log and os.path.exists(log):
            with open(log) as f:
                if sum(1 for _ in f) >= interrupt_after:
                    p.send_signal(signal.SIGINT)
                    sent = time.monotonic()
        time.sleep(0.1)
    out, err = p.communicate()
    end = time.monotonic()
    return (end - start, peak, p.returncode, out.decode(), err.decode(),
            None if sent is None else end - sent)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="2000,1000000")
    ap.add_argument("--shrink-time", type=int, default=5)
    ap.add_argument("--format", default="canonical")
    ap.add_argument("--sigint", action="store_true")
    ap.add_argument("--declare", help="passed to certify: soft-budget leaves the failing "
                    "reducer one failure (whole-turns), where it has two")
    ap.add_argument("--kit", help="the reducer-kit binary to run (another build, to compare)")
    a = ap.parse_args()
    if not os.path.exists(KIT):
        sys.exit("build first: cargo build --release")
    work = tempfile.mkdtemp(prefix="shrink-bounded-")
    rows = []
    for n in [int(x) for x in a.sizes.split(",")]:
        corpus = os.path.join(work, "c%d" % n)
        size = write_case(corpus, n)
        runs = {}
        for name, script in [("passing", "turns_reducer.py"), ("failing", "naive_last_n.py")]:
            r = certify(corpus, ["python3", os.path.join(REDUCERS, script), "--persistent",
                                 "--format", a.format], a.shrink_time, fmt=a.format,
                         declare=a.declare, kit=a.kit)
            runs[name] = r
            shrunk = re.search(r"shrunk .*", r[4])
            headers = [l for l in r[3].splitlines() if "counterexample for" in l]
            print(json.dumps({"messages": n, "fileBytes": size, "format": a.format,
                              "declare": a.declare, "kit": a.kit or "target/release",
                              "reducer": script,
                              "seconds": round(r[0], 2), "peakKB": r[1], "exit": r[2],
                              "shrinking": shrunk.group(0) if shrunk else None,
                              "counterexamples": headers}), flush=True)
        excess = runs["failing"][1] - runs["passing"][1]
        row = {"messages": n, "fileBytes": size,
               "peakOverPassingKB": excess,
               "peakOverPassingPerFile": round(excess * 1024 / size, 2)}
        if a.sigint:
            log = os.path.join(work, "requests-%d" % n)
            slow = os.path.join(work, "slow.py")
            with open(slow, "w") as f:
                f.write(SLOW)
            # The run sends 4 requests (the case and its extra requests);
            # the 6th is the second shrinking candidate.
            r = certify(corpus, ["python3", "-S", slow, log, "0.3",
                                 os.path.join(REDUCERS, "naive_last_n.py")],
                        a.shrink_time * 60, interrupt_after=6, log=log)
            row.update({"sigintToExitSeconds": None if r[5] is None else round(r[5], 2),
                        "sigintExit": r[2]})
        rows.append(row)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
