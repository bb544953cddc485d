"""The reproductions of the published defects (docs/compat/README.md,
"Reproductions"; spec/spec.md §9.3).

A defect of a real library is published only with a program that shows it
without the kit: `compat/repro/<adapter>/<clause>.py` (or `.mjs`, `.go`, or
`.java`: Java's single-file launch, `java -cp <the pinned jars> FILE`), a
standalone program that imports the library alone (pinned as in compat/),
builds the minimal counterexample's input with the library's own types,
calls the reducer as the library's docs show an application doing it (the
doc page or docstring is cited in the program), prints what the library
gave, and exits 0 exactly when that breaks the stated property (1 when it
does not). compat/run runs the reproduction of every defect finding of the
adapters it certifies, records the outcome in matrix.json (the finding's
`repro`) and fails when a defect finding has no reproduction or its
program does not reproduce.

Which findings are defects: a finding on a protocol or safety clause. A
finding on a policy-level clause or on `matches-reference` says that the
library does not implement the policy it claims: it is shown apart, is no
defect and needs no reproduction.

    python3 compat/repro.py [NAME ...]

lists the reproductions of compat/adapters.json (or of the adapters NAMEd)
and the commands that run them. Standard library only.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PY = os.path.join(ROOT, "compat", ".cache", "venv", "bin", "python")
# the pinned jars, as compat/run's Maven build of compat/jvm resolved them
JVM_CLASSPATH = os.path.join(ROOT, "compat", ".cache", "jvm", "classpath.txt")
EXT = {"node": "mjs", "java": "java", "go": "go"}
# A Go reproduction is one `package main` file run with `go run` from the
# module compat/go (`go -C compat/go run ../repro/...`), so it resolves the
# modules that compat/go/go.mod and go.sum pin; it is no package of that
# module (its directory has no go.mod), so the reproductions of one adapter
# may each have their own main.
GO_MODULE = os.path.join(ROOT, "compat", "go")

# The clauses that say whether a reducer implements the claimed policy
# (the policy and exact levels, spec §6.4-6.6, §17.3): a finding on one is
# no defect (spec §9.3).
POLICY_CLAUSES = frozenset({
    "whole-turns", "newest-first", "maximal", "overflow-question", "contiguous-suffix",
    "maximal-suffix", "identity-when-fits", "idempotent", "budget-monotone",
    "repair-keeps-whole", "repair-keeps-content", "matches-reference",
})
TIMEOUT = 300  # seconds per program (a framework's imports take a few)
OUTPUT_LINES = 40  # of what a program prints, kept in matrix.json


def is_defect(clause, level=None):
    """Whether a finding on `clause` is a defect: its level (as a run
    reports it) is protocol or safety; without a run, it is no clause of
    POLICY_CLAUSES."""
    if level is not None:
        return level in ("protocol", "safety")
    return clause not in POLICY_CLAUSES


def expected_path(adapter, clause):
    """Where the reproduction of a finding lives, by adapter and clause."""
    ext = EXT.get(adapter["ecosystem"], "py")
    return "compat/repro/%s/%s.%s" % (adapter["name"], clause, ext)


def command(path, python=VENV_PY, node="node"):
    """The command that runs the reproduction at `path` (relative to the
    repository): the venv's Python, Node, which finds the pinned
    packages through compat/repro/node_modules (a link to
    compat/node/node_modules), Java's single-file launch with the pinned
    jars (compat/.cache/jvm/classpath.txt) on its classpath, or `go run` in
    the module compat/go (its pinned go.mod and go.sum; -mod=readonly, never
    resolved anew)."""
    full = os.path.join(ROOT, path)
    if path.endswith(".java"):
        with open(JVM_CLASSPATH) as fh:
            return ["java", "-cp", fh.read().strip(), full]
    if path.endswith(".go"):
        return ["go", "-C", GO_MODULE, "run", "-mod=readonly", os.path.relpath(full, GO_MODULE)]
    return [node, full] if path.endswith(".mjs") else [python, full]


def shown_command(path):
    """The command as docs show it, from the repository's root."""
    if path.endswith(".mjs"):
        return "node %s" % path
    if path.endswith(".java"):
        return "java -cp \"$(cat compat/.cache/jvm/classpath.txt)\" %s" % path
    if path.endswith(".go"):
        return "go -C compat/go run %s" % os.path.relpath(path, "compat/go")
    return "compat/.cache/venv/bin/python %s" % path


# A log line's clock time at its start, as LiteLLM's logger writes it
# ("14:12:54 - LiteLLM:ERROR: ...").
CLOCK = re.compile(r"^\d\d:\d\d:\d\d(?:[.,]\d+)? - ", re.M)


def stable_output(text, root=ROOT):
    """`text` as every run of the program prints it, so the published
    matrix is the same on every machine and day: the repository's path
    (in a traceback's file names) made relative, and a clock time that
    starts a log line written `hh:mm:ss`. Nothing else is changed."""
    text = text.replace(root.rstrip(os.sep) + os.sep, "")
    return CLOCK.sub("hh:mm:ss - ", text)


def run(path, python=VENV_PY, node="node"):
    """Runs one reproduction; returns its record for matrix.json: `path`,
    `command` (as shown), `exit` (None when it could not run or timed
    out), `reproduced` (exit 0) and `output` (the last lines it printed,
    stderr after stdout, made stable by `stable_output`)."""
    rec = {"path": path, "command": shown_command(path), "exit": None, "reproduced": False,
           "output": ""}
    if not os.path.exists(os.path.join(ROOT, path)):
        rec["output"] = "no such file"
        return rec
    try:
        r = subprocess.run(command(path, python, node), capture_output=True, text=True,
                           timeout=TIMEOUT, cwd=ROOT)
    except subprocess.TimeoutExpired:
        rec["output"] = "timed out after %d s" % TIMEOUT
        return rec
    except OSError as e:  # also: no classpath file, the JVM build is missing
        rec["output"] = str(e)
        return rec
    text = stable_output(r.stdout + (("\n--- stderr ---\n" + r.stderr) if r.stderr.strip() else ""))
    rec.update(exit=r.returncode, reproduced=r.returncode == 0,
               output="\n".join(text.strip().splitlines()[-OUTPUT_LINES:]))
    return rec


def check(adapter, levels, python=VENV_PY, node="node"):
    """Runs the reproduction of each defect finding of `adapter` (its
    manifest entry); `levels` maps a clause to its level in the adapter's
    judged run (clauses missing from it are read by POLICY_CLAUSES).
    Returns ({clause: record}, errors): an error for a defect finding with
    no `repro`, a `repro` that is not where it belongs, or a program that
    does not reproduce."""
    records, errors = {}, []
    for f in adapter.get("findings", []):
        c = f["clause"]
        if not is_defect(c, levels.get(c)):
            continue
        path = f.get("repro")
        want = expected_path(adapter, c)
        if not path:
            errors.append("%s: the defect finding on %s has no reproduction (%s): a defect is "
                          "published only with a program that shows it" % (adapter["name"], c, want))
            continue
        if path != want:
            errors.append("%s: the reproduction of %s is %s, not %s" % (adapter["name"], c, path, want))
        rec = run(path, python, node)
        records[c] = rec
        if not rec["reproduced"]:
            last = rec["output"].strip().splitlines()[-1:] or [""]
            errors.append("%s: the reproduction of the finding on %s does not reproduce (`%s`: exit %s%s)"
                          % (adapter["name"], c, rec["command"], rec["exit"],
                             ", " + last[0][:200] if last[0] else ""))
    return records, errors


def main():
    with open(os.path.join(ROOT, "compat", "adapters.json")) as fh:
        adapters = json.load(fh)["adapters"]
    names = sys.argv[1:]
    for a in adapters:
        if names and a["name"] not in names:
            continue
        for f in a.get("findings", []):
            if is_defect(f["clause"]):
                path = f.get("repro") or "(none: %s)" % expected_path(a, f["clause"])
                print("%s %s: %s" % (a["name"], f["clause"], shown_command(path) if f.get("repro") else path))


if __name__ == "__main__":
    main()
