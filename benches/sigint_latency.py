#!/usr/bin/env python3
"""The time from SIGINT to the kit's exit, at chosen points of one run on a
long failing case (spec/spec.md section 8.7: a signal takes effect within
about a second wherever it lands).

The case is benches/shrink_bounded.py's: N messages (default 1,000,000,
64 MB), user and assistant in turn, maxMessages 3; the reducer is
examples/reducers/naive_last_n.py (it fails whole-turns and
matches-reference, so the run goes on to shrink), behind a wrapper that
notes each answer it passes on. Each point is EVENT+SECONDS, one run per
point:

    start          the kit was started (it is reading the corpus)
    answerK        the reducer's K-th answer was passed on (the case asks
                   4: the request, the repeat, the output again, a smaller
                   budget); after the 4th the kit judges the case
    TEXT           a line of the kit's stderr that starts with TEXT
                   ("cases done", "shrunk whole-turns", ...)

For each point, one JSON line: the seconds from the signal to the exit,
the exit code (130; -2 is a death by the signal itself), the last stderr
line before the signal, and the INTERRUPTED line of stdout. Run it beside
`--load 3` busy loops for the figure under load.

    cargo build --release
    python3 benches/sigint_latency.py [--messages N] [--load K] \\
        [--points start+2,answer4+0.05,answer4+0.4,"cases done+0.05",...]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shrink_bounded  # noqa: E402  (the case and the kit's path)

WRAP = r'''
import subprocess, sys
log = sys.argv[1]
inner = subprocess.Popen([sys.executable, "-S"] + sys.argv[2:],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
k = 0
while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    inner.stdin.write(line)
    inner.stdin.flush()
    sys.stdout.buffer.write(inner.stdout.readline())
    sys.stdout.buffer.flush()
    k += 1
    with open(log, "a") as f:
        f.write("answer %d\n" % k)
'''

DEFAULT_POINTS = ("start+2,answer1+0.2,answer4+0.05,answer4+0.2,answer4+0.4,answer4+0.7,"
                  "cases done+0.05,shrunk whole-turns+0.3,shrunk whole-turns+1.0")


def one(corpus, work, event, delay):
    log = os.path.join(work, "answers.log")
    if os.path.exists(log):
        os.remove(log)
    wrap = os.path.join(work, "wrap.py")
    with open(wrap, "w") as f:
        f.write(WRAP)
    args = [shrink_bounded.KIT, "certify", "--corpus", corpus, "--cases", "0", "--persistent",
            "--jobs", "1", "--timeout", "600000", "--shrink-time", "5", "--progress-interval", "0",
            "--", "python3", wrap, log,
            os.path.join(shrink_bounded.REDUCERS, "naive_last_n.py"), "--persistent"]
    start = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = []

    def read():
        for line in p.stderr:
            lines.append((time.monotonic(), line.decode(errors="replace").rstrip()))

    reader = threading.Thread(target=read)
    reader.start()
    sent = at = None
    while p.poll() is None:
        now = time.monotonic()
        if at is None:
            if event == "start":
                at = start
            elif event.startswith("answer") and event[6:].isdigit():
                if os.path.exists(log) and sum(1 for _ in open(log)) >= int(event[6:]):
                    at = now
            elif any(text.startswith(event) for _, text in lines):
                at = now
        if sent is None and at is not None and now - at >= delay:
            p.send_signal(signal.SIGINT)
            sent = time.monotonic()
        time.sleep(0.005)
    end = time.monotonic()
    reader.join()
    out = p.stdout.read().decode(errors="replace")
    before = [text for t, text in lines if sent is not None and t <= sent]
    return {"point": "%s+%g" % (event, delay),
            "sigintToExitSeconds": None if sent is None else round(end - sent, 3),
            "exit": p.returncode,
            "runSeconds": round(end - start, 2),
            "lastLineBefore": before[-1][:70] if before else None,
            "interrupted": next((l for l in out.splitlines() if "INTERRUPTED" in l), None)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--points", default=DEFAULT_POINTS)
    ap.add_argument("--load", type=int, default=0, help="busy loops beside the run")
    a = ap.parse_args()
    if not os.path.exists(shrink_bounded.KIT):
        sys.exit("build first: cargo build --release")
    work = tempfile.mkdtemp(prefix="sigint-latency-")
    corpus = os.path.join(work, "corpus")
    shrink_bounded.write_case(corpus, a.messages)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(a.load)]
    try:
        for point in a.points.split(","):
            event, delay = point.rsplit("+", 1)
            print(json.dumps(one(corpus, work, event, float(delay))), flush=True)
    finally:
        for b in busy:
            b.kill()


if __name__ == "__main__":
    main()
