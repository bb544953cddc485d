"""Certify a chat-history reducer from pytest: install the kit's wheel (today
built from this repository, python/README.md "Building from source"; after
a release, ``pip install reducer-kit``) and pytest, then
``pytest examples/python/test_my_reducer.py``.

``my_reducer`` keeps the newest messages of an OpenAI Chat Completions
conversation but never starts the kept part on a tool result, so that no
result outlives the assistant message that called its tool: policy
``suffix`` of the kit's contract (spec/spec.md section 4). Chat Completions
has no tool approvals, and a run in the ``openai`` format sends none
(spec/spec.md section 9.5): no option is needed.
"""

import math

import reducer_kit


def my_reducer(request):
    """The pinned system prompt and the newest maxMessages other messages,
    the start moved past tool results; a bad budget raises (an error answer)."""
    n, messages = request["maxMessages"], request["messages"]
    if isinstance(n, bool) or not isinstance(n, (int, float)) or not n >= 1 or n != math.floor(n):
        raise ValueError(f"maxMessages must be a whole number >= 1, got {n!r}")
    n = min(int(n), len(messages)) if n != math.inf else len(messages)
    role = [m["role"].lower() for m in messages]
    system = next((i for i, r in enumerate(role) if r in ("system", "developer")), None)
    rest = [i for i in range(len(messages)) if i != system]
    start = max(0, len(rest) - n)
    while start < len(rest) and role[rest[start]] == "tool":
        start += 1
    kept = sorted(rest[start:] + ([system] if system is not None else []))
    return [messages[i] for i in kept]


def test_my_reducer_is_a_suffix_reducer():
    reducer_kit.assert_certified(my_reducer, policy="suffix", format="openai")
