#!/usr/bin/env python3
"""The figures of a mutants run (benches/mutants/README.md).

    summarize.py OUT/mutants.out... [--write FILE]   the reference's mutants
    summarize.py --checker OUT/mutants.out        the checker's mutants
                                                  (survivors: checker-survivors.txt)
    summarize.py --sample N --seed S < listing    a regex naming N mutants of
                                                  `cargo mutants --list`
    summarize.py --listed < listing               a regex naming the mutants of
                                                  survivors.txt (to judge them again)

Reads cargo-mutants' outcomes.json and each mutant's log, where
tests/mutant_conviction.rs printed `MUTANT-VERDICT {json}` lines. Prints the
counts, the median and 90th percentile time to the first failing case, the
clauses that convicted, and every survivor; exits 1 when a survivor is not
in benches/mutants/survivors.txt or a mutant's run failed in the harness
(a listed one convicted now is a note), 2 on a missing or unreadable file.
With --write, writes the outcome of every mutant as a tab-separated table.
"""

import argparse
import json
import random
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SURVIVORS = HERE / "survivors.txt"
CHECKER_SURVIVORS = HERE / "checker-survivors.txt"
LOCATION = re.compile(r"^([^:]+):\d+:\d+: ")


def key_of(name):
    """A mutant's name without its line and column: `file: replacement`."""
    return LOCATION.sub(r"\1: ", name)


def keyed(names):
    """Stable keys for names in listing order: the name without line and
    column, then `#2`, `#3` for later mutants with the same key."""
    seen = Counter()
    out = []
    for n in names:
        k = key_of(n)
        seen[k] += 1
        out.append(k if seen[k] == 1 else f"{k} #{seen[k]}")
    return out


def read_list(path):
    """Lines `KEY<TAB>REASON` (comments with #): key -> reason."""
    listed = {}
    if not path.exists():
        return listed
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        k, _, why = line.partition("\t")
        listed[k.strip()] = why.strip()
    return listed


def percentile(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    i = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[i]


def load(out_dir, listing=None):
    try:
        doc = json.loads((out_dir / "outcomes.json").read_text())
    except (OSError, ValueError) as e:
        print(f"summarize.py: cannot read {out_dir}/outcomes.json: {e}", file=sys.stderr)
        sys.exit(2)
    rows = []
    for o in doc.get("outcomes", []):
        scenario = o.get("scenario")
        if not isinstance(scenario, dict) or "Mutant" not in scenario:
            continue
        m = scenario["Mutant"]
        name = m.get("name") or describe(m)
        verdicts = []
        log = out_dir / o.get("log_path", "")
        if log.is_file():
            for line in log.read_text(errors="replace").splitlines():
                at = line.find("MUTANT-VERDICT ")
                if at >= 0:
                    try:
                        verdicts.append(json.loads(line[at + len("MUTANT-VERDICT "):]))
                    except ValueError:
                        pass
        rows.append({"name": name, "summary": o.get("summary"), "verdicts": verdicts,
                     "file": m.get("file", "")})
    # Keys over every mutant of the files, in listing order (file, line,
    # column), so that a sample gives each mutant the key a full run does.
    names = [l.strip() for l in listing.read_text().splitlines() if l.strip()] if listing else \
        sorted((r["name"] for r in rows), key=location)
    keys = dict(zip(names, keyed(names)))
    for r in rows:
        r["key"] = keys.get(r["name"], key_of(r["name"]))
    return rows


def load_all(args):
    """The rows of every folder of `args.out`, a later folder's outcome of
    a mutant replacing an earlier one's, in listing order when the
    listing is given."""
    listing = Path(args.listing) if args.listing else None
    by_name = {}
    for out in args.out:
        for r in load(Path(out), listing):
            by_name[r["name"]] = r
    rows = list(by_name.values())
    if listing:
        order = {n.strip(): i for i, n in enumerate(listing.read_text().splitlines())}
        rows.sort(key=lambda r: order.get(r["name"], len(order)))
    return rows


def location(name):
    """(file, line, column) of a mutant's name, for ordering."""
    m = re.match(r"^([^:]+):(\d+):(\d+): ", name)
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else (name, 0, 0)


def describe(m):
    f = m.get("function") or {}
    span = m.get("span", {}).get("start", {})
    return (f"{m.get('file')}:{span.get('line')}:{span.get('column')}: "
            f"replace {m.get('name', '?')} in {f.get('function_name', '?')}")


def outcome(r):
    """convicted / survived / unviable / timeout / error, with the verdicts."""
    s = r["summary"]
    if s == "Unviable":
        return "unviable"
    if s == "Timeout":
        return "timeout"
    by = {v.get("test"): v for v in r["verdicts"]}
    if any(v.get("outcome") == "error" for v in r["verdicts"]):
        return "error"
    if s == "CaughtMutant":
        if any(v.get("outcome") == "convicted" for v in r["verdicts"]):
            return "convicted"
        return "error"
    if s == "MissedMutant":
        return "survived"
    return "error" if not by else "survived"


def fmt(x):
    return "-" if x is None else f"{x:.2f}"


def first_line(text):
    """A clause as one table cell: a panic's message without its backtrace."""
    return (text.splitlines() or [""])[0].replace("\t", " ")


def reference(args):
    rows = load_all(args)
    listed = read_list(Path(args.survivors) if args.survivors else SURVIVORS)
    counts = Counter()
    first, whole, sizes, clauses = [], [], [], Counter()
    survivors, bad, notes = [], [], []
    table = []
    by_test = Counter()
    for r in rows:
        o = outcome(r)
        counts[o] += 1
        red = next((v for v in r["verdicts"] if v.get("test") == "reducer"), {})
        convicting = [v for v in r["verdicts"] if v.get("outcome") == "convicted"]
        if o == "convicted":
            for v in convicting:
                by_test[v.get("test")] += 1
            if red.get("outcome") == "convicted":
                if red.get("firstDefectSeconds") is not None:
                    first.append(red["firstDefectSeconds"])
                if red.get("counterexampleMessages") is not None:
                    sizes.append(red["counterexampleMessages"])
                whole.append(red.get("seconds", 0.0))
                for c in red.get("clauses", []):
                    clauses[c] += 1
        if o == "survived":
            survivors.append(r)
            if r["key"] not in listed:
                bad.append(f"survivor not listed: {r['key']}"
                           + (" (matches-reference only: "
                              + ", ".join(red.get("referenceOnly", [])) + ")"
                              if red.get("referenceOnly") else ""))
        if o in ("convicted", "timeout") and r["key"] in listed:
            notes.append(f"note: listed as a survivor but convicted now (drop its line): {r['key']}")
        if o == "error":
            bad.append(f"the harness failed on: {r['key']}")
        table.append("\t".join([
            r["key"], o,
            " | ".join(v.get("test", "?") + ": " + "; ".join(first_line(c) for c in v.get("clauses", []))
                       for v in convicting) if o == "convicted" else
            "matches-reference only: " + ", ".join(red.get("referenceOnly", []))
            if red.get("referenceOnly") else "",
            str(red.get("counterexampleMessages", "") or ""),
            fmt(red.get("firstDefectSeconds")) if red.get("outcome") == "convicted" else "-",
            fmt(red.get("seconds")) if red else "-",
        ]))
    if args.listing:
        # A listed key that names no mutant of the listing (a function
        # renamed, code gone) would hide the survivor under its new name.
        names = [l.strip() for l in Path(args.listing).read_text().splitlines() if l.strip()]
        for k in sorted(set(listed) - set(keyed(names))):
            bad.append(f"listed survivor is not a mutant of the listing (renamed or gone): {k}")
    made = len(rows)
    if made == 0:
        print("summarize.py: no mutant was tested (did the unmutated tree build and pass?)",
              file=sys.stderr)
        return 1
    viable = made - counts["unviable"]
    equivalent = sum(1 for r in survivors if listed.get(r["key"], "").startswith("equivalent"))
    judged = viable - equivalent
    print(f"mutants made: {made}; unviable (do not build): {counts['unviable']}")
    print(f"convicted: {counts['convicted']}; timeout (convicted by hanging): {counts['timeout']}; "
          f"survived: {counts['survived']} ({equivalent} shown equivalent); harness errors: {counts['error']}")
    if judged:
        rate = (counts["convicted"] + counts["timeout"]) / judged
        print(f"conviction rate of the non-equivalent viable mutants: {100 * rate:.1f}% "
              f"({counts['convicted'] + counts['timeout']} of {judged})")
    if first:
        print(f"time to the first failing case (s): median {fmt(statistics.median(first))}, "
              f"90th percentile {fmt(percentile(first, 0.9))}, max {fmt(max(first))} "
              f"({len(first)} convicted by certify)")
    if whole:
        print(f"whole harness run per convicted mutant (s): median {fmt(statistics.median(whole))}")
    if sizes:
        print(f"first counterexample (messages): median {statistics.median(sizes)}, max {max(sizes)}")
    if by_test:
        print("convicted by: " + ", ".join(f"{t} {n}" for t, n in by_test.most_common()))
    if clauses:
        print("clauses convicting serve: " + ", ".join(f"{c} {n}" for c, n in clauses.most_common()))
    for r in survivors:
        why = listed.get(r["key"], "NOT LISTED")
        print(f"survivor: {r['key']}\t{why}")
    if args.write:
        Path(args.write).write_text(
            "# mutant\toutcome\tclauses (or matches-reference only configs)\tcounterexample messages\t"
            "first failing case s\tharness s\n" + "\n".join(table) + "\n")
    for n in notes + bad:
        print(n, file=sys.stderr)
    return 1 if bad else 0


def checker(args):
    rows = load_all(args)
    if not rows:
        print("summarize.py: no mutant was tested (did the unmutated tree build and pass?)",
              file=sys.stderr)
        return 1
    listed = read_list(Path(args.survivors) if args.survivors else CHECKER_SURVIVORS)
    counts = Counter(r["summary"] for r in rows)
    print(f"checker mutants made: {len(rows)}; caught by the tests: {counts['CaughtMutant']}; "
          f"missed: {counts['MissedMutant']}; timeout: {counts['Timeout']}; unviable: {counts['Unviable']}")
    bad = []
    for r in rows:
        if r["summary"] == "MissedMutant":
            why = listed.get(r["key"])
            print(f"survivor: {r['key']}\t{why or 'NOT LISTED'}")
            if why is None:
                bad.append(r["key"])
    for b in bad:
        print(f"checker survivor not in checker-survivors.txt: {b}", file=sys.stderr)
    return 1 if bad else 0


def rust_escape(text):
    """`text` as a literal in the syntax of Rust's regex crate (cargo-mutants
    --re): its meta characters escaped, nothing else (it refuses `\\ `)."""
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$" else c for c in text)


def sample(args):
    names = [l.strip() for l in sys.stdin if l.strip()]
    if not names:
        print("summarize.py --sample: no mutants listed on stdin", file=sys.stderr)
        return 2
    picked = random.Random(args.seed).sample(names, min(args.sample, len(names)))
    print("^(" + "|".join(rust_escape(n) for n in sorted(picked)) + ")$")
    return 0


def listed_names(args):
    """A regex naming the mutants of the listing (stdin) whose keys the
    survivors list holds, to judge them again after a change."""
    names = [l.strip() for l in sys.stdin if l.strip()]
    listed = read_list(Path(args.survivors) if args.survivors else SURVIVORS)
    picked = [n for n, k in zip(names, keyed(names)) if k in listed]
    missing = set(listed) - set(keyed(names))
    for k in sorted(missing):
        print(f"summarize.py --listed: not a mutant of the listing: {k}", file=sys.stderr)
    if not picked or missing:
        return 2
    print("^(" + "|".join(rust_escape(n) for n in picked) + ")$")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="*", help="mutants.out folders; a mutant in several "
                   "takes its outcome from the last")
    p.add_argument("--checker", action="store_true")
    p.add_argument("--survivors", help="the list of known survivors (default "
                   "benches/mutants/survivors.txt, with --checker checker-survivors.txt)")
    p.add_argument("--listing", help="`cargo mutants --list` of the files (benches/mutants/run "
                   "saves it): the keys are numbered over every mutant, not only those run")
    p.add_argument("--write", help="write every mutant's outcome to this file (tab-separated)")
    p.add_argument("--sample", type=int)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--listed", action="store_true",
                   help="print a regex naming the listed survivors of the listing on stdin")
    args = p.parse_args()
    if args.listed:
        sys.exit(listed_names(args))
    if args.sample is not None:
        sys.exit(sample(args))
    if not args.out:
        p.error("a mutants.out folder is needed")
    sys.exit(checker(args) if args.checker else reference(args))


if __name__ == "__main__":
    main()
