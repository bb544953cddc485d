#!/usr/bin/env python3
"""The kit's reference reducers and checker against LangChain's
`trim_messages`, in one run, on the same history.

    python3 benches/compare_langchain.py                  # 1k, 10k, 100k, 1M messages
    python3 benches/compare_langchain.py --sizes 1000,10000 --json out.json

Installs nothing. LangChain is measured when `langchain_core` is importable
(the version compat/ pins: pip install 'langchain-core==1.8.3'); otherwise
the Rust figures are printed alone, with that line.

For each size N the history is the `normal` history of
`examples/throughput.rs` (a system message, then turns of user question,
assistant call, tool result, assistant answer), dumped by that example
(`--dump N`) and converted to LangChain messages (SystemMessage,
HumanMessage, AIMessage with tool_calls, ToolMessage). LangChain runs
`trim_messages(strategy="last", start_on="human", include_system=True,
token_counter=len, max_tokens=N/2+1)`; the kit runs `reduce` (policy
turns and suffix, values in and values out), `reduce_indices` (the
selection on a history classified beforehand), `check` (every clause,
extra responses precomputed) and `check_prepared` (the same on the input
and answers read beforehand: classified and written as canonical texts;
`check_read` is that reading alone) with budget N/2+1, in process
(`examples/throughput.rs`, built in release mode). Every figure is the best
of several runs of the call alone (inputs built beforehand). Printed:
messages per second, ns per message, the growth of the time per 10x size,
and the ratio Rust / LangChain (> 1: the kit is faster).

With `--cpu` every run is timed by the thread's CPU time (the example's
`--cpu`; `time.thread_time()` for LangChain), so that other processes on
a shared machine count less.

With `--before DIR`, the same figures of an older tree (DIR: a checkout of
the kit before the speed work of 1 December 2026, with this tree's examples/throughput.rs and
benches/shapes/ copied in and the `indices` op removed, since the old kit
has no `reduce_indices`) are measured in the same run, named `before: ...`;
its sizes whose predicted time is over `--before-limit` seconds (default
30; the old checker is quadratic on two shapes) are skipped.
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIP_LINE = "pip install 'langchain-core==1.8.3'"


def rust(args, root=ROOT):
    """Runs the throughput example of the tree `root` with `args`; its stdout."""
    cmd = ["cargo", "run", "--quiet", "--release", "--example", "throughput", "--"] + args
    return subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True).stdout


def to_langchain(history):
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out = []
    for m in history:
        role = m["role"]
        items = m.get("contents") or []
        text = "".join(i.get("text", "") for i in items if i.get("$type") == "text")
        if role == "system":
            out.append(SystemMessage(content=text))
        elif role == "user":
            out.append(HumanMessage(content=text))
        elif role == "assistant":
            calls = [{"name": i["name"], "args": i.get("arguments") or {}, "id": i["callId"],
                      "type": "tool_call"} for i in items if i.get("$type") == "functionCall"]
            out.append(AIMessage(content=text, tool_calls=calls))
        elif role == "tool":
            r = next(i for i in items if i.get("$type") == "functionResult")
            out.append(ToolMessage(content=str(r.get("result")), tool_call_id=r["callId"]))
    return out


CLOCK = time.perf_counter


def best_of(f):
    """Best time of f() (by CLOCK) over at least 3 runs or one second (1 run when slow)."""
    best, start, runs = float("inf"), time.perf_counter(), 0
    while runs < 3 or (time.perf_counter() - start < 1.0 and runs < 50):
        t = CLOCK()
        f()
        best = min(best, CLOCK() - t)
        runs += 1
        if best > 2.0:
            break
    return best


def langchain_secs(n):
    from langchain_core.messages import trim_messages

    history = json.loads(rust(["--dump", str(n)]))
    messages = to_langchain(history)
    del history
    budget = n // 2 + 1

    def run():
        trim_messages(messages, max_tokens=budget, strategy="last", start_on="human",
                      include_system=True, token_counter=len)

    run()  # the first call initialises LangChain (seconds): not timed
    return best_of(run)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1000,10000,100000,1000000")
    p.add_argument("--json", help="also write every figure to this file")
    p.add_argument("--before", metavar="DIR", help="also measure the throughput example of DIR")
    p.add_argument("--before-limit", type=float, default=30.0, metavar="SECS",
                   help="skip the older tree's sizes predicted to take longer (default 30)")
    p.add_argument("--cpu", action="store_true", help="time by the thread's CPU time")
    a = p.parse_args()
    global CLOCK
    cpu = ["--cpu"] if a.cpu else []
    if a.cpu:
        CLOCK = time.thread_time
    sizes = [int(s) for s in a.sizes.split(",")]

    try:
        import langchain_core
        lc_version = langchain_core.__version__
    except ImportError:
        lc_version = None
        print(f"langchain-core is not installed: LangChain is skipped ({PIP_LINE} to compare)")

    figures = {}  # (name, n) -> secs
    if a.before:
        # All sizes in one call, so that the example skips the sizes that
        # would take too long from the previous size's time.
        args = ["--sizes", a.sizes, "--ops", "reduce,check", "--limit", str(a.before_limit)] + cpu
        for line in rust(args, a.before).splitlines():
            d = json.loads(line)
            if "op" in d:
                figures[(f"before: {d['op']} {d['shape']} {d['policy']}", d["n"])] = d["secs"]
            elif "skipped" in d:
                print(f"before: {d['skipped']} at {d['n']:,}: skipped ({d['reason']})")
    for n in sizes:
        ops = ["--sizes", str(n), "--ops", "reduce,indices,check,prepared"] + cpu
        for line in rust(ops).splitlines():
            d = json.loads(line)
            if "op" in d:
                figures[(f"{d['op']} {d['shape']} {d['policy']}", n)] = d["secs"]
        if lc_version:
            figures[("langchain trim_messages", n)] = langchain_secs(n)

    names = sorted({k for k, _ in figures}, key=lambda s: (not s.startswith("langchain"), s))
    print(f"\nmessages/s (ns/msg) per size; growth = time ratio per 10x size"
          + (f"; LangChain = langchain-core {lc_version}, Python {sys.version.split()[0]}"
             if lc_version else ""))
    header = "| what | " + " | ".join(f"{n:,}" for n in sizes) + " | growth per 10x |"
    print(header)
    print("|" + "---|" * (len(sizes) + 2))
    for name in names:
        cells, growth = [], []
        for i, n in enumerate(sizes):
            s = figures.get((name, n))
            cells.append("—" if s is None else f"{n / s / 1e6:.2f} M ({s * 1e9 / n:.0f} ns)")
            prev = figures.get((name, sizes[i - 1])) if i else None
            if s is not None and prev and n == 10 * sizes[i - 1]:
                growth.append(f"{s / prev:.1f}x")
        print(f"| {name} | " + " | ".join(cells) + f" | {', '.join(growth) or '—'} |")
    if lc_version:
        print("\nRust / LangChain (speed ratio, > 1: the kit is faster)")
        print("| what | " + " | ".join(f"{n:,}" for n in sizes) + " |")
        print("|" + "---|" * (len(sizes) + 1))
        for name in names:
            if name.startswith("langchain") or "nothing-matches" in name or "long-turn" in name:
                continue
            cells = []
            for n in sizes:
                s, lc = figures.get((name, n)), figures.get(("langchain trim_messages", n))
                cells.append("—" if s is None or lc is None else f"{lc / s:.2f}x")
            print(f"| {name} | " + " | ".join(cells) + " |")
    if a.before:
        print("\nAfter / before (speed ratio, > 1: faster than before)")
        print("| what | " + " | ".join(f"{n:,}" for n in sizes) + " |")
        print("|" + "---|" * (len(sizes) + 1))
        for name in names:
            if not name.startswith("before: "):
                continue
            cells = []
            for n in sizes:
                old, new = figures.get((name, n)), figures.get((name[len("before: "):], n))
                cells.append("—" if old is None or new is None else f"{old / new:.1f}x")
            print(f"| {name[len('before: '):]} | " + " | ".join(cells) + " |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"what": k, "n": n, "secs": s} for (k, n), s in sorted(figures.items())],
                      f, indent=1)


if __name__ == "__main__":
    main()
