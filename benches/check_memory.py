#!/usr/bin/env python3
"""Peak memory and CPU of `reducer-kit check` on a long history of short
messages, side by side with Python's `json.load` of the same file and the
kit's own `reduce`, in one run (the checker over values against the reader
over text).

A history of N messages (default 1,000,000), user and assistant in turn,
each about 88 bytes of JSON (`{"role":"user","contents":[{"$type":"text",
"text":"message 123456 ..."}]}`); its reference answer under `--policy
suffix --max 3` is written by `reducer-kit reduce` and then judged by
`reducer-kit check` (`--max-input` raised above the file). For each command: peak RSS (ru_maxrss of the child)
in MB and as a multiple of the file, and user + system CPU seconds.

    cargo build --release
    python3 benches/check_memory.py [--messages 1000000]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, "target", "release", "reducer-kit")


def measure(cmd, stdout=subprocess.DEVNULL):
    """Runs `cmd`; (exit code, peak RSS in bytes, user + system seconds)."""
    pid = os.fork()
    if pid == 0:
        if stdout is not subprocess.DEVNULL:
            os.dup2(stdout.fileno(), 1)
        else:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
        os.execvp(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), ru.ru_maxrss * 1024, ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=1_000_000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        hist = os.path.join(d, "history.json")
        out = os.path.join(d, "output.json")
        with open(hist, "w") as f:
            f.write("[")
            for i in range(a.messages):
                role = "user" if i % 2 == 0 else "assistant"
                f.write(("," if i else "") + json.dumps(
                    {"role": role, "contents": [{"$type": "text", "text": "message %07d of the history" % i}]},
                    separators=(",", ":")))
            f.write("]")
        size = os.path.getsize(hist)
        print("history: %d messages, %.1f MB (%.0f bytes a message)" % (a.messages, size / 1e6, size / a.messages))
        rows = []
        code, rss, cpu = measure([sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", hist])
        rows.append(("python json.load", code, rss, cpu))
        with open(out, "w") as f:
            code, rss, cpu = measure([KIT, "reduce", "--max-input", "200000000", "--policy", "suffix", "--max", "3", hist], stdout=f)
        rows.append(("reducer-kit reduce", code, rss, cpu))
        code, rss, cpu = measure([KIT, "check", "--max-input", "200000000", "--policy", "suffix", "--max", "3", hist, out])
        rows.append(("reducer-kit check", code, rss, cpu))
        base = rows[0]
        print("| command | exit | peak RSS, MB | × file | CPU s | × json.load CPU |")
        print("|---|---|---|---|---|---|")
        for name, code, rss, cpu in rows:
            print("| %s | %d | %.0f | %.1f | %.2f | %.2f |" % (name, code, rss / 1e6, rss / size, cpu, cpu / base[3]))


if __name__ == "__main__":
    main()
