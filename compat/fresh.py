"""Whether the published matrix is the kit's present run.

`compat/run --check` certifies every adapter with the published settings
into a temporary folder and hands both sides to `compare`: the files of
docs/compat/ (matrix.json, matrix.md, index.html, README.md) and the
counterexamples of corpus/compat/ must be byte for byte what the kit
writes now. A difference is told where it is: a member of matrix.json by
its path (adapters and runs named, not numbered), a page or case file by
its first differing line.

Adapters whose library could not be installed where the check ran are
left out of the comparison (named in the result); the pages, which draw
every adapter, are then not compared.

    python3 compat/fresh.py PUBLISHED_DOCS PUBLISHED_CORPUS WRITTEN_DOCS WRITTEN_CORPUS

compares two folders already written (exit 1 on a difference).
Standard library only.
"""

import json
import os
import sys

PAGES = ("matrix.md", "index.html", "README.md")
MAX_LINES = 40  # of differences told; the rest are counted


def _key(item):
    """How an element of a list of objects is named in a path."""
    if isinstance(item, dict):
        for k in ("name", "policy", "clause", "path"):
            if isinstance(item.get(k), str):
                return "%s=%s" % (k, item[k])
    return None


def _short(value):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _walk(path, old, new, out):
    if type(old) is not type(new):
        out.append("%s: published %s, now %s" % (path, _short(old), _short(new)))
    elif isinstance(old, dict):
        for k in old:
            if k not in new:
                out.append("%s.%s: published %s, now absent" % (path, k, _short(old[k])))
            else:
                _walk("%s.%s" % (path, k), old[k], new[k], out)
        for k in new:
            if k not in old:
                out.append("%s.%s: not published, now %s" % (path, k, _short(new[k])))
    elif isinstance(old, list):
        keys_old = [_key(x) for x in old]
        keys_new = [_key(x) for x in new]
        if None not in keys_old and None not in keys_new and len(set(keys_old)) == len(keys_old) \
                and len(set(keys_new)) == len(keys_new):
            by_new = dict(zip(keys_new, new))
            for k, x in zip(keys_old, old):
                if k in by_new:
                    _walk("%s[%s]" % (path, k), x, by_new[k], out)
                else:
                    out.append("%s[%s]: published, now absent" % (path, k))
            for k in keys_new:
                if k not in keys_old:
                    out.append("%s[%s]: not published, now present" % (path, k))
            if [k for k in keys_old if k in by_new] != [k for k in keys_new if k in set(keys_old)]:
                out.append("%s: the same entries in another order" % path)
        elif len(old) != len(new):
            out.append("%s: published %d entries, now %d" % (path, len(old), len(new)))
        else:
            for i, (x, y) in enumerate(zip(old, new)):
                _walk("%s[%d]" % (path, i), x, y, out)
    elif old != new:
        out.append("%s: published %s, now %s" % (path, _short(old), _short(new)))


def _first_difference(name, old, new):
    a, b = old.splitlines(), new.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "%s: line %d differs: published %s, now %s" % (name, i + 1, _short(x), _short(y))
    return "%s: published %d lines, now %d" % (name, len(a), len(b))


def _read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _cases(root, skip):
    """{adapter/file: path} of the case files under a corpus/compat folder."""
    out = {}
    if not os.path.isdir(root):
        return out
    for adapter in sorted(os.listdir(root)):
        if adapter in skip or not os.path.isdir(os.path.join(root, adapter)):
            continue
        for f in sorted(os.listdir(os.path.join(root, adapter))):
            out["%s/%s" % (adapter, f)] = os.path.join(root, adapter, f)
    return out


def compare(published_docs, published_corpus, written_docs, written_corpus, not_installed=()):
    """The differences between the published matrix and a run's, as lines
    (empty when they agree). `not_installed` names adapters whose library
    could not be installed for the run: their entries and case files are
    not compared, nor the pages."""
    skip = set(not_installed)
    out = []
    old = json.loads(_read(os.path.join(published_docs, "matrix.json")))
    new = json.loads(_read(os.path.join(written_docs, "matrix.json")))
    for m in (old, new):
        m["adapters"] = [a for a in m.get("adapters", []) if a.get("name") not in skip]
    _walk("matrix.json", old, new, out)
    if not skip:
        for page in PAGES:
            a, b = os.path.join(published_docs, page), os.path.join(written_docs, page)
            if not os.path.exists(b):
                continue
            if not os.path.exists(a):
                out.append("%s: not published" % page)
            elif _read(a) != _read(b):
                out.append(_first_difference(page, _read(a), _read(b)))
    old_cases, new_cases = _cases(published_corpus, skip), _cases(written_corpus, skip)
    for k in sorted(set(old_cases) | set(new_cases)):
        if k not in new_cases:
            out.append("corpus/compat/%s: published, not written now" % k)
        elif k not in old_cases:
            out.append("corpus/compat/%s: written now, not published" % k)
        elif _read(old_cases[k]) != _read(new_cases[k]):
            out.append(_first_difference("corpus/compat/" + k, _read(old_cases[k]), _read(new_cases[k])))
    return out


def report(differences, not_installed=()):
    """Prints the differences (at most MAX_LINES of them); True when none."""
    if not_installed:
        sys.stderr.write("compat/fresh: not compared (not installed here): %s; the pages not compared\n"
                         % ", ".join(sorted(not_installed)))
    if not differences:
        sys.stderr.write("compat/fresh: docs/compat/ and corpus/compat/ are what the kit writes now\n")
        return True
    sys.stderr.write("compat/fresh: docs/compat/ and corpus/compat/ are not the kit's present run "
                     "(%d differences; rerun compat/run and commit what it writes):\n" % len(differences))
    for line in differences[:MAX_LINES]:
        sys.stderr.write("  %s\n" % line)
    if len(differences) > MAX_LINES:
        sys.stderr.write("  ... and %d more\n" % (len(differences) - MAX_LINES))
    return False


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.stderr.write("usage: compat/fresh.py PUBLISHED_DOCS PUBLISHED_CORPUS WRITTEN_DOCS WRITTEN_CORPUS\n")
        sys.exit(2)
    sys.exit(0 if report(compare(*sys.argv[1:])) else 1)
