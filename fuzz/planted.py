#!/usr/bin/env python3
"""The fuzz targets judged by what they find: the time each takes to find a
fixed set of planted bugs (fuzz/README.md, "Planted bugs").

    python3 fuzz/planted.py [--targets T,...] [--runs R] [--max-time SECONDS]
                            [--only N,...] [--json FILE]

The planted bugs are the mutants of the reference fuzz/planted.txt names
(benches/mutants). Each is applied (cargo-mutants' diff) to a clean
checkout of HEAD in a temporary git
worktree; every target is built as .ci/fuzz builds it (nightly, no
sanitizer, --no-trace-compares for the targets of fuzz/no-trace-compares)
and run R times (libFuzzer -seed=1..R) from the committed seeds
(corpus/fuzz/<target>), at most --max-time seconds each. A run finds the
bug when libFuzzer stops on a crash, time-out or out-of-memory input. The
figure per bug and target is the median over the runs of the seconds to the
find (a run that finds nothing counts as never: the median is "not found"
when more than half find nothing).

Prints a table, and writes it as JSON with --json FILE. Needs git, the
nightly toolchain, cargo-fuzz and cargo-mutants; exits 2 when they are missing.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sh(args, **kw):
    return subprocess.run(args, check=True, **kw)


def planted(listed):
    """The diffs of the mutants `listed` names (keys as in
    benches/mutants/summarize.py), from `cargo mutants --list --json --diff`."""
    sys.path.insert(0, str(ROOT / "benches/mutants"))
    from summarize import keyed  # noqa: E402

    files = sorted({k.split(": ")[0] for k in listed})
    args = ["cargo", "mutants", "--list", "--json", "--diff"]
    for f in files:
        args += ["--file", f]
    listing = json.loads(subprocess.run(args, cwd=ROOT, capture_output=True, text=True,
                                        check=True).stdout)
    by_key = dict(zip(keyed([m["name"] for m in listing]), listing))
    missing = [k for k in listed if k not in by_key]
    if missing:
        raise SystemExit(f"planted.py: no mutant named {missing[0]!r} (cargo mutants --list)")
    return [(k, by_key[k]["diff"]) for k in listed]


def apply(text, tree):
    target = text.splitlines()[0].removeprefix("--- ").strip()
    sh(["patch", "--quiet", str(tree / target)], input=text.encode())


def build(tree, targets, target_dir):
    no_tc = {l.strip() for l in (ROOT / "fuzz/no-trace-compares").read_text().splitlines()
             if l.strip() and not l.startswith("#")}
    bins = {}
    for notc in (False, True):
        ts = [t for t in targets if (t in no_tc) == notc]
        if not ts:
            continue
        tdir = target_dir / ("notc" if notc else "tc")
        for t in ts:
            args = ["cargo", "+nightly", "fuzz", "build", "-s", "none", "--target-dir", str(tdir)]
            if notc:
                args.append("--no-trace-compares")
            sh(args + [t], cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            found = list(tdir.glob(f"*/release/{t}"))
            if not found:
                raise SystemExit(f"planted.py: no binary for {t} under {tdir}")
            bins[t] = found[0]
    return bins


def run_once(binary, target, seed, max_time, work):
    corpus = work / f"corpus-{target}-{seed}"
    arts = work / f"artifacts-{target}-{seed}"
    shutil.rmtree(corpus, ignore_errors=True)
    shutil.rmtree(arts, ignore_errors=True)
    corpus.mkdir()
    arts.mkdir()
    started = time.monotonic()
    p = subprocess.run(
        [str(binary), f"-seed={seed}", f"-max_total_time={max_time}", "-timeout=20",
         "-rss_limit_mb=4096", f"-artifact_prefix={arts}/", str(corpus),
         str(ROOT / "corpus/fuzz" / target)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took = time.monotonic() - started
    found = p.returncode != 0 and any(arts.iterdir())
    return took if found else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default="")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-time", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--only", default="",
                    help="only these bugs of fuzz/planted.txt, by number (1-based, comma-separated)")
    a = ap.parse_args()
    if shutil.which("git") is None or subprocess.run(
            ["cargo", "+nightly", "fuzz", "--version"], capture_output=True).returncode != 0:
        print("planted.py: needs git, the nightly toolchain and cargo-fuzz", file=sys.stderr)
        return 2
    targets = [t for t in a.targets.split(",") if t] or subprocess.run(
        ["cargo", "+nightly", "fuzz", "list"], cwd=ROOT, capture_output=True, text=True,
        check=True).stdout.split()
    listed = [l.strip() for l in (ROOT / "fuzz/planted.txt").read_text().splitlines()
              if l.strip() and not l.startswith("#")]
    bugs = planted(listed)
    if a.only:
        bugs = [bugs[int(n) - 1] for n in a.only.split(",")]
    results = []
    work = Path(tempfile.mkdtemp(prefix="planted-"))
    target_dir = Path(os.environ.get("PLANTED_TARGET_DIR", work / "target"))
    try:
        for name, diff in bugs:
            tree = work / "tree"
            sh(["git", "worktree", "add", "--detach", "--force", str(tree), "HEAD"], cwd=ROOT,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                apply(diff, tree)
                bins = build(tree, targets, target_dir)
                for t in targets:
                    times = [run_once(bins[t], t, s, a.max_time, work) for s in range(1, a.runs + 1)]
                    hits = sorted(x for x in times if x is not None)
                    median = statistics.median(hits) if len(hits) * 2 > len(times) else None
                    row = {"bug": name, "target": t, "runs": times, "median": median}
                    results.append(row)
                    shown = "not found" if median is None else f"{median:.1f} s"
                    print(f"{name}\t{t}\t{shown}\t({sum(x is not None for x in times)}/{len(times)} runs found it)",
                          flush=True)
            finally:
                sh(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if a.json:
        Path(a.json).write_text(json.dumps(
            {"runs": a.runs, "maxTime": a.max_time, "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
