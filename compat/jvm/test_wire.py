#!/usr/bin/env python3
"""Hand-written requests to the JVM adapters (compat/jvm/adapter) and the
exact answers they must give: the wire (spec/spec.md §8 and §13: ids,
budgets, `unsupported`, errors, kept messages as their exact text) and
each adapter's mapping of the budget and of the system message, worked
out from the libraries' algorithms (the sources cited in the adapters).

    python3 compat/jvm/test_wire.py

Needs the Maven build compat/run makes (compat/.cache/jvm); prints
'N passed, 0 failed' and exits 0 when every answer is the expected one,
1 otherwise, 2 when the build is missing. Standard library only.
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADAPTER = os.path.join(ROOT, "compat", "jvm", "adapter")

S = '{"role":"system","content":"Be brief."}'
U1 = '{"role":"user","content":"q1","x":1e400,  "n":123456789012345678901234567890}'
A1 = '{"role":"assistant","content":"a1"}'
U2 = '{"role":"user","content":[{"type":"text","text":"q2"}]}'
A2 = '{"role":"assistant","content":"a2"}'
CALLS = ('{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":'
         '{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]}')
T1 = '{"role":"tool","tool_call_id":"c1","content":"r1"}'
T2 = '{"role":"tool","tool_call_id":"c2","content":"r2"}'


def req(budget, *messages, **extra):
    """A request line, the messages as their exact texts."""
    head = "".join('"%s":%s,' % (k, v) for k, v in extra.items())
    return '{%s%s,"messages":[%s]}' % (head, budget, ",".join(messages))


def ans(rid, *messages):
    return '{"id":%s,"messages":[%s]}' % (rid, ",".join(messages))


CASES = [
    # (adapter args, request line, expected answer line, what it shows)
    (["langchain4j", "--config", "message-window"], req('"maxMessages":9', S, U1, A1, id=1), ans(1, S, U1, A1),
     "kept messages go back as their exact text (1e400, a 30-digit integer, spacing)"),
    (["langchain4j", "--config", "message-window"], req('"maxMessages":2', S, U1, A1, U2, A2, id=2),
     ans(2, S, U2, A2), "the window counts the SystemMessage: maxMessages + 1"),
    (["langchain4j", "--config", "message-window"], req('"maxMessages":1', CALLS, T1, T2, id=3), ans(3, T2),
     "the library's orphan: c1's result evicted with its AiMessage, c2's added after (the finding)"),
    (["langchain4j", "--config", "message-window"], req('"maxMessages":3', U1, CALLS, T1, T2, id=4),
     ans(4, CALLS, T1, T2), "an evicted user message, the call group whole"),
    (["langchain4j", "--config", "message-window"], req('"maxTokens":9,"tokens":[1,1]', U1, A1, id=5),
     '{"id":5,"unsupported":"MessageWindowChatMemory counts messages (maxMessages); it takes no token budget"}',
     "a token budget is unsupported"),
    (["langchain4j", "--config", "message-window"], req('"maxMessages":3.0', U1, A1, U2, A2, id=6),
     ans(6, A1, U2, A2), "3.0 is the budget 3"),
    (["langchain4j", "--config", "message-window"], req('"maxMessages":2e99999999999999999999', U1, A1, id=7),
     ans(7, U1, A1), "a huge budget is no limit"),
    (["langchain4j", "--config", "message-window"], req('"maxMessages":1.5', U1, id=8),
     '{"id":8,"error":"maxMessages must be an integer >= 1, got 1.5"}', "a fraction is no budget"),
    (["langchain4j", "--config", "message-window"], req('"maxMessages":0', U1),
     '{"error":"maxMessages must be an integer >= 1, got 0"}', "protocol 1: no id"),
    (["langchain4j", "--config", "token-window"],
     req('"maxTokens":3,"tokens":[5,1,2,1,1]', S, U1, A1, U2, A2, id=9), ans(9, S, U2, A2),
     "token costs from the request; the pinned system message costs 0 without countPinned"),
    (["langchain4j", "--config", "token-window"],
     req('"maxTokens":4,"tokens":[2,1,1,1,1],"countPinned":true', S, U1, A1, U2, A2, id=10), ans(10, S, U2, A2),
     "countPinned: the SystemMessage's cost counts in the window"),
    (["langchain4j", "--config", "token-window"],
     req('"maxTokens":2,"tokens":[0,1,1,1]', '{"role":"system","content":""}', U1, A1, A2, id=11),
     ans(11, '{"role":"system","content":""}', A1, A2), "a blank system prompt is held aside and put back"),
    (["spring-ai", "--config", "message-window-advisor"], req('"maxMessages":4', S, U1, CALLS, T1, T2, A2, id=12),
     ans(12, S, U1, CALLS, T1, T2, A2), "one ToolResponseMessage for a run of tool messages, written back whole"),
    (["spring-ai", "--config", "message-window-advisor"], req('"maxMessages":3', S, U1, A1, U2, A2, id=13),
     ans(13, S, U2, A2), "the cut snaps forward to a user message; the system prompt is held aside"),
    (["spring-ai", "--config", "message-window-advisor"], req('"maxMessages":1', U1, CALLS, T1, T2, id=14),
     ans(14, T1, T2), "the library's orphan: the ToolResponseMessage saved after a cut that emptied the memory"),
    (["spring-ai", "--config", "message-window-advisor"], req('"maxTokens":9,"tokens":[1]', U1, id=15),
     '{"id":15,"unsupported":"Spring AI\'s MessageWindowChatMemory counts messages (maxMessages); it takes no token'
     ' budget"}', "a token budget is unsupported"),
    (["spring-ai", "--config", "message-window-advisor"], '{"id":16,"maxMessages":2,"messages":[{"content":"x"}]}',
     '{"id":16,"error":"message 0 has no string `role`"}', "a message without a role"),
]


def run(args, stdin):
    r = subprocess.run([ADAPTER] + args, input=stdin.encode("utf-8"), capture_output=True, timeout=120)
    return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8", "replace")


def main():
    passed, failed = 0, []
    code, out, err = run(["langchain4j", "--probe"], "")
    if code == 3:
        sys.stderr.write("compat/jvm/test_wire.py: %s" % err)
        return 2
    checks = [("probe langchain4j", (code, out), (0, '{"package":"langchain4j","version":"1.19.0"}\n'))]
    code, out, _ = run(["spring-ai", "--probe"], "")
    checks.append(("probe spring-ai", (code, out), (0, '{"package":"spring-ai-model","version":"2.0.1"}\n')))
    # persistent mode: one answer line per request line, blank lines skipped, in order
    by_args = {}
    for args, line, want, what in CASES:
        by_args.setdefault(tuple(args), []).append((line, want, what))
    for args, cases in by_args.items():
        code, out, err = run(list(args) + ["--persistent"], "\n".join(line for line, _, _ in cases) + "\n\n")
        got = out.splitlines()
        if code != 0 or len(got) != len(cases):
            checks.append((" ".join(args), (code, len(got), err[-300:]), (0, len(cases), "")))
            continue
        for (line, want, what), g in zip(cases, got):
            checks.append(("%s: %s" % (" ".join(args), what), g, want))
    # per-case mode: the whole of stdin is one request
    line, want, what = by_args[("langchain4j", "--config", "message-window")][0]
    code, out, _ = run(["langchain4j", "--config", "message-window"], line.replace('"id":1,', '"id":1,\n  ') + "\n")
    checks.append(("per-case mode: " + what, (code, out), (0, want + "\n")))
    code, out, _ = run(["langchain4j", "--persistent"], "not json\n")
    checks.append(("not JSON", (code, out.startswith('{"error":"Unrecognized token')), (0, True)))
    r = subprocess.run([ADAPTER, "langchain4j", "--persistent"], input=b'{"maxMessages":1,"messages":["\xff"]}\n',
                       capture_output=True, timeout=120)
    checks.append(("not UTF-8", (r.returncode, r.stdout), (0, b'{"error":"the request is not UTF-8"}\n')))
    r = subprocess.run([ADAPTER, "langchain4j", "--config", "nope"], capture_output=True, timeout=120)
    checks.append(("unknown --config", r.returncode, 2))
    for name, got, want in checks:
        if got == want:
            passed += 1
        else:
            failed.append("%s:\n    got  %r\n    want %r" % (name, got, want))
    for f in failed:
        print("FAIL " + f)
    print("%d passed, %d failed" % (passed, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
