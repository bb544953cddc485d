#!/usr/bin/env python3
"""certify of a Python reducer function in process (reducer_kit.certify)
against the same function behind the runner protocol in persistent mode (a
small wire program calling it), on the same cases, in one run.

Run it with a Python that has the wheel installed (python/ci.sh makes one):

    target/python-ci/test-env/bin/python benches/python_inprocess.py [--cases N] [--repeat R]

The function is python/tests/reducers.py's suffix_openai (policy suffix,
format openai), which passes every level: no shrinking in either run. The
wire program reads and writes JSON with reducer_kit.loads / dumps, the
converter certify uses, so that both runs judge the same answers. The
in-process run has one worker (the GIL); the wire run is timed with one
worker (--jobs 1, the same) and with the command line's default (a worker
per core). Prints one line per run and the ratios (benches/README.md has
the figure and where the time goes).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python", "tests"))

import reducer_kit  # noqa: E402
import reducers  # noqa: E402

WIRE = """\
import sys
sys.path.insert(0, {tests!r})
import reducer_kit
from reducers import {function}

for line in sys.stdin:
    request = reducer_kit.loads(line)
    try:
        answer = {{"messages": {function}(request)}}
    except Exception as e:
        answer = {{"error": str(e) or type(e).__name__}}
    sys.stdout.write(reducer_kit.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


def best(runs, f):
    times = []
    out = None
    for _ in range(runs):
        started = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - started)
    return min(times), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000, help="generated cases besides the corpus (2000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, the best kept (3)")
    parser.add_argument("--function", default="suffix_openai", help="the function of python/tests/reducers.py (suffix_openai)")
    args = parser.parse_args()
    kit = os.path.join(os.path.dirname(sys.executable), "reducer-kit")
    with tempfile.TemporaryDirectory() as tmp:
        wire = os.path.join(tmp, "wire.py")
        with open(wire, "w") as f:
            f.write(WIRE.format(tests=os.path.join(REPO, "python", "tests"), function=args.function))
        function = getattr(reducers, args.function)

        def in_process():
            return reducer_kit.certify(function, policy="suffix", format="openai", cases=args.cases)

        def over_the_wire(jobs):
            command = [kit, "certify", "--policy", "suffix", "--format", "openai", "--persistent",
                       "--cases", str(args.cases)]
            if jobs:
                command += ["--jobs", str(jobs)]
            command += ["--", sys.executable, wire]
            out = subprocess.run(command, capture_output=True, text=True)
            if out.returncode not in (0, 1):
                sys.exit(f"the wire run failed (exit {out.returncode}):\n{out.stdout[-3000:]}{out.stderr[-2000:]}")
            return out.stdout.strip().splitlines()[-2]

        t_in, report = best(args.repeat, in_process)
        t_wire1, certificate = best(args.repeat, lambda: over_the_wire(1))
        t_wire, _ = best(args.repeat, lambda: over_the_wire(None))
    assert certificate == report.certificate, (certificate, report.certificate)
    assert report.passed or args.function != "suffix_openai", report.explain()
    cases = report.cases_run
    print(f"in process (reducer_kit.certify, 1 worker): {t_in:.3f} s, {cases} cases, {1e6 * t_in / cases:.0f} us per case")
    print(f"persistent wire program, --jobs 1:          {t_wire1:.3f} s, {1e6 * t_wire1 / cases:.0f} us per case")
    print(f"persistent wire program, a job per core ({os.cpu_count()}): {t_wire:.3f} s")
    print(f"in process is {t_wire1 / t_in:.1f}x faster than --jobs 1, {t_wire / t_in:.1f}x than the default jobs")
    print(report.certificate)
    return 0


if __name__ == "__main__":
    sys.exit(main())
