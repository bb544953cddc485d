#!/usr/bin/env python3
"""How soon a failing reducer goes red in pytest: reducer_kit.assert_certified
against a Hypothesis test written for the bug, CPU time side by side in one
run, for three bugs.

Run it with a Python that has the wheel and Hypothesis installed
(python/ci.sh makes one):

    target/python-ci/test-env/bin/python benches/assert_certified_vs_hypothesis.py [--repeat R]

The bugs, each a Python function over the request dict (OpenAI Chat
messages, policy suffix), as a developer would write them:

- naive last-N: the newest maxMessages messages, whatever they are;
- off-by-one budget: the kit's own suffix reducer asked for one message
  more than the budget;
- system message dropped when not first: the kit's suffix reducer, less
  the pinned system message when it is not the first message.

For each, two tests that go red on it: `assert_certified(bug,
policy="suffix", format="openai")` (which stops at the first defect by
default, shrinks it and raises AssertionError), and a Hypothesis test that
checks the one property the bug breaks (no tool result without its call in
the output; at most maxMessages messages besides the system message; the
pinned system message kept) on requests drawn by reducer_kit.hypothesis,
with Hypothesis's defaults (100 examples, shrinking) but derandomized and
without its example database, so that every run draws the same. Each is
timed by the process's CPU time (time.process_time: every thread, the
kit's Rust work included) until it raises, R times in alternation; the
figure is the median, and the ratio is assert_certified's over
Hypothesis's. A Hypothesis test that does not go red is reported as such.
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python", "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402

import reducer_kit  # noqa: E402
from reducer_kit.hypothesis import requests  # noqa: E402
from reducers import last_n  # noqa: E402

FORMAT = "openai"
POLICY = "suffix"


def off_by_one(request):
    """The suffix policy with one message more than the budget."""
    return reducer_kit.reduce(request["messages"], int(request["maxMessages"]) + 1,
                              policy=POLICY, format=FORMAT)


def system_dropped_when_not_first(request):
    """The suffix policy, less the pinned system message when it is not first."""
    out = reducer_kit.reduce(request["messages"], request["maxMessages"], policy=POLICY,
                             format=FORMAT)
    roles = [m.get("role") for m in request["messages"]]
    if "system" in roles and roles.index("system") > 0:
        out = [m for m in out if m.get("role") != "system"]
    return out


def no_orphan_result(request, out):
    called = set()
    for m in out:
        for c in m.get("tool_calls") or []:
            called.add(c["id"])
        if m.get("role") == "tool":
            assert m["tool_call_id"] in called, f"result {m['tool_call_id']!r} without its call"


def within_budget(request, out):
    kept = [m for m in out if m.get("role") != "system"]
    assert len(kept) <= int(request["maxMessages"]), f"{len(kept)} > {request['maxMessages']}"


def system_kept(request, out):
    systems = [m for m in request["messages"] if m.get("role") == "system"]
    if systems:
        assert systems[0] in out, "the pinned system message is gone"


BUGS = [
    ("naive last-N", last_n, no_orphan_result),
    ("off-by-one budget", off_by_one, within_budget),
    ("system message dropped when not first", system_dropped_when_not_first, system_kept),
]


def hypothesis_test(bug, prop):
    @settings(database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(requests(format=FORMAT))
    def test(request):
        prop(request, bug(request))

    return test


def red(test):
    """CPU seconds until `test()` raises AssertionError (None: it passed)."""
    started = time.process_time()
    try:
        test()
    except AssertionError:
        return time.process_time() - started
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    rows = []
    for name, bug, prop in BUGS:
        kit, hyp = [], []
        for _ in range(a.repeat):
            kit.append(red(lambda: reducer_kit.assert_certified(bug, policy=POLICY, format=FORMAT)))
            hyp.append(red(hypothesis_test(bug, prop)))
        k = statistics.median(t for t in kit if t is not None) if all(
            t is not None for t in kit) else None
        h = statistics.median(t for t in hyp if t is not None) if all(
            t is not None for t in hyp) else None
        ratio = f"{k / h:.2f}x" if k is not None and h else "n/a"
        show = lambda t: "did not go red" if t is None else f"{t * 1000:.0f} ms"  # noqa: E731
        print(f"{name}: assert_certified {show(k)}, Hypothesis {show(h)}: {ratio} "
              f"(CPU, median of {a.repeat}; assert_certified {sorted(round(t * 1000) for t in kit if t is not None)} ms, "
              f"Hypothesis {sorted(round(t * 1000) for t in hyp if t is not None)} ms)", flush=True)
        rows.append((name, k, h))
    worst = max((k / h for _, k, h in rows if k is not None and h), default=None)
    if worst is not None:
        print(f"worst ratio: {worst:.2f}x (target: at most 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
