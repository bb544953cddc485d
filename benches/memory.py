#!/usr/bin/env python3
"""Peak memory of `reducer-kit certify` against the number of cases (spec
§8.8): a run keeps a compact record per case and, in full, only the
smallest failing case of each clause, so its peak RSS must not grow with the
number of cases.

Runs certify (release build, persistent mode, 2 jobs, the generated cases of
seed 1 only, --report-json written) against benches/big_answer_reducer.py,
whose every answer is about 600 KB and fabricated, at 200 and at 20,000
cases, and reads each run's peak RSS: the kernel's high-water mark, both as
VmHWM sampled from /proc/<pid>/status while it runs and as the ru_maxrss
wait4() reports when it ends (the same counter, read at the very end).
Exits 1 when the ratio of the two peaks exceeds 1.5.

    cargo build --release && python3 benches/memory.py [--cases 200,20000]

The 20,000-case run takes about 10 minutes on 2 cores.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, "target", "release", "reducer-kit")
REDUCER = os.path.join(ROOT, "benches", "big_answer_reducer.py")
LIMIT = 1.5


def vm_hwm(pid):
    """VmHWM of `pid` in KiB, or None once it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def run(cases, work):
    corpus = os.path.join(work, "empty-corpus")
    os.makedirs(corpus, exist_ok=True)
    report = os.path.join(work, "report-%d.json" % cases)
    argv = [
        KIT, "certify", "--persistent", "--jobs", "2",
        "--corpus", corpus, "--cases", str(cases), "--shrink-tries", "5",
        "--report-json", report,
        "--", sys.executable, "-S", REDUCER, KIT,
    ]
    start = time.monotonic()
    with open(os.path.join(work, "stdout-%d.txt" % cases), "wb") as out:
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
        sampled = 0
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            sampled = max(sampled, vm_hwm(child.pid) or 0)
            time.sleep(0.05)
    took = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit("certify --cases %d exited %d" % (cases, code))
    with open(report) as f:
        import json
        ran = json.load(f)["casesRun"]
    return {"cases": cases, "ran": ran, "seconds": took,
            "vmhwm_kib": sampled, "maxrss_kib": usage.ru_maxrss}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", default="200,20000",
                   help="the two case counts, smaller first (default 200,20000)")
    args = p.parse_args()
    counts = [int(n) for n in args.cases.split(",")]
    if not os.path.exists(KIT):
        sys.exit("build the kit first: cargo build --release")
    with tempfile.TemporaryDirectory() as work:
        rows = [run(n, work) for n in counts]
    print("%8s %8s %9s %13s %14s" % ("cases", "run", "seconds", "VmHWM (MiB)", "maxrss (MiB)"))
    for r in rows:
        print("%8d %8d %9.1f %13.1f %14.1f" % (
            r["cases"], r["ran"], r["seconds"], r["vmhwm_kib"] / 1024, r["maxrss_kib"] / 1024))
    ratio = rows[-1]["maxrss_kib"] / rows[0]["maxrss_kib"]
    print("peak RSS ratio %d / %d cases: %.2f (limit %.1f)" % (counts[-1], counts[0], ratio, LIMIT))
    sys.exit(0 if ratio <= LIMIT else 1)


if __name__ == "__main__":
    main()
