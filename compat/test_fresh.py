#!/usr/bin/env python3
"""compat/fresh.py tells a published matrix that is not the kit's present
run: the published docs/compat/ and corpus/compat/ against copies of
them with one thing changed (a count, a page line, a case file), each
difference named where it is. Run by compat/ci; standard library only.

    python3 compat/test_fresh.py
"""

import json
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "compat"))
import fresh  # noqa: E402
import repro  # noqa: E402

DOCS = os.path.join(ROOT, "docs", "compat")
CORPUS = os.path.join(ROOT, "corpus", "compat")


def copies(tmp):
    docs, corpus = os.path.join(tmp, "docs"), os.path.join(tmp, "corpus")
    shutil.copytree(DOCS, docs)
    shutil.copytree(CORPUS, corpus)
    return docs, corpus


def first_failing_clause(matrix):
    """(adapter name, policy, clause, failed count) of the first run with a
    failing clause."""
    for a in matrix["adapters"]:
        for r in a.get("runs", []):
            for c, t in r.get("clauses", {}).items():
                if t.get("failed"):
                    return a["name"], r["policy"], c, t["failed"]
    raise AssertionError("the published matrix has no failing clause to change")


def main():
    failures = []

    def expect(name, got, want):
        if got != want:
            failures.append("%s:\n    got  %r\n    want %r" % (name, got, want))

    tmp = tempfile.mkdtemp(prefix="test-fresh-")
    try:
        docs, corpus = copies(tmp)
        expect("the published matrix against itself", fresh.compare(DOCS, CORPUS, docs, corpus), [])

        # a changed count
        with open(os.path.join(docs, "matrix.json"), encoding="utf-8") as fh:
            m = json.load(fh)
        name, policy, clause, failed = first_failing_clause(m)
        run = next(r for a in m["adapters"] if a["name"] == name for r in a["runs"] if r["policy"] == policy)
        run["clauses"][clause]["failed"] = failed + 1
        with open(os.path.join(docs, "matrix.json"), "w", encoding="utf-8") as fh:
            fh.write(json.dumps(m, indent=1, ensure_ascii=False) + "\n")
        expect("a changed count", fresh.compare(DOCS, CORPUS, docs, corpus), [
            "matrix.json.adapters[name=%s].runs[policy=%s].clauses.%s.failed: published %d, now %d"
            % (name, policy, clause, failed, failed + 1)])
        # left out when that adapter's library was not installed where the check ran
        expect("a changed count of an adapter not installed",
               fresh.compare(DOCS, CORPUS, docs, corpus, not_installed=[name]), [])

        # a page line
        shutil.rmtree(docs)
        docs, _ = os.path.join(tmp, "docs"), None
        shutil.copytree(DOCS, docs)
        with open(os.path.join(docs, "matrix.md"), encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        lines[0] += " (edited)"
        with open(os.path.join(docs, "matrix.md"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
        got = fresh.compare(DOCS, CORPUS, docs, corpus)
        expect("an edited page", [g.split(":")[0] + ":" + g.split(":")[1] for g in got], ["matrix.md: line 1 differs"])

        # a case file gone, and one more
        shutil.rmtree(docs)
        shutil.copytree(DOCS, docs)
        adapter = sorted(os.listdir(corpus))[0]
        case = sorted(os.listdir(os.path.join(corpus, adapter)))[0]
        os.rename(os.path.join(corpus, adapter, case), os.path.join(corpus, adapter, "x-" + case))
        expect("a case file renamed", fresh.compare(DOCS, CORPUS, docs, corpus), [
            "corpus/compat/%s/%s: published, not written now" % (adapter, case),
            "corpus/compat/%s/x-%s: written now, not published" % (adapter, case)])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # a reproduction's output is the same on every machine and day
    expect("a log line's clock time and the checkout's path",
           repro.stable_output('ok\n--- stderr ---\n14:12:54 - LiteLLM:ERROR: utils.py:9003 - x\n'
                               '  File "/ci/clone/compat/.cache/venv/lib/a.py", line 8\n'
                               'at 14:12:54 - kept', root="/ci/clone/"),
           'ok\n--- stderr ---\nhh:mm:ss - LiteLLM:ERROR: utils.py:9003 - x\n'
           '  File "compat/.cache/venv/lib/a.py", line 8\nat 14:12:54 - kept')
    if failures:
        sys.exit("compat/test_fresh.py: %d failed\n  %s" % (len(failures), "\n  ".join(failures)))
    print("compat/test_fresh.py: the published matrix agrees with itself; a changed count, an edited page "
          "and a renamed case file are each told where they are; a reproduction's output is the same on "
          "every machine and day")


if __name__ == "__main__":
    main()
