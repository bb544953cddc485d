#!/usr/bin/env python3
"""Certifying a failing reducer costs about what certifying a passing one
does: in persistent mode every shrink candidate goes to the live
reducer of its worker, so shrinking adds tries, not process starts.

Runs `reducer-kit certify --persistent` (release build, the kit's corpus and
2,000 generated cases of seed 1, default shrinking: --shrink-tries 200,
--shrink-time 30) against three Python example reducers on the same cases,
each started as `python3 -S SCRIPT --persistent`:

- turns_reducer.py under --policy turns: passes every level (the base);
- suffix_reducer.py under --policy suffix: passes every level;
- naive_last_n.py under --policy suffix: fails no-orphan-result and more;
- last_n_id_filter.py under --policy suffix: one bug (reused call ids).

Prints each run's wall time, exit code and shrink summary, and the ratio of
each run to the first passing one; exits 1 when a ratio exceeds 2.

    cargo build --release && python3 benches/certify_failing.py [--repeat N]

Each run takes a few seconds on 2 cores; the best of --repeat runs (default
3) is reported.
"""
import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, "target", "release", "reducer-kit")
EXAMPLES = os.path.join(ROOT, "examples", "reducers")
LIMIT = 2.0
RUNS = [
    ("turns_reducer.py", "turns", "passing"),
    ("suffix_reducer.py", "suffix", "passing"),
    ("naive_last_n.py", "suffix", "failing"),
    ("last_n_id_filter.py", "suffix", "failing"),
]


def run(script, policy):
    argv = [KIT, "certify", "--policy", policy, "--persistent", "--",
            sys.executable, "-S", os.path.join(EXAMPLES, script), "--persistent"]
    start = time.monotonic()
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    took = time.monotonic() - start
    summary = [line for line in done.stderr.decode().splitlines()
               if line.startswith("shrunk ")]
    return took, done.returncode, summary[0] if summary else "nothing to shrink"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not os.path.exists(KIT):
        sys.exit("build it first: cargo build --release")
    best = {}
    for _ in range(args.repeat):
        for script, policy, _ in RUNS:
            took, code, summary = run(script, policy)
            if script not in best or took < best[script][0]:
                best[script] = (took, code, summary)
    base = best[RUNS[0][0]][0]
    worst = 0.0
    print("%-22s %-7s %8s %5s %7s  %s" % ("reducer", "", "wall s", "exit", "ratio", "shrinking"))
    for script, policy, kind in RUNS:
        took, code, summary = best[script]
        ratio = took / base
        if kind == "failing":
            worst = max(worst, ratio)
        print("%-22s %-7s %8.2f %5d %6.2fx  %s" % (script, kind, took, code, ratio, summary))
    print("worst failing / passing: %.2fx (limit %.1fx)" % (worst, LIMIT))
    return 1 if worst > LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
