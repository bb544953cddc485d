"""The Hypothesis strategies: the kit's generator driven by Hypothesis's bytes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

import reducer_kit
from reducer_kit.hypothesis import budgets, histories, knobs, requests
from reducers import last_n, suffix_openai



def quiet(examples: int) -> settings:
    return settings(database=None, deadline=None, max_examples=examples,
                    suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("format", reducer_kit.FORMATS)
def test_a_thousand_draws_are_valid(format):
    seen = {"calls": 0, "messages": 0}

    @quiet(1000 if format in ("openai", "canonical") else 200)
    @given(histories(format=format))
    def valid(history):
        assert reducer_kit.validate(history, format=format) == []
        seen["messages"] += len(history)
        seen["calls"] += sum(1 for m in history if "tool_calls" in m or "tool_use" in str(m) or "functionCall" in str(m)
                             or "function_call" in str(m) or "toolUse" in str(m))

    valid()
    assert seen["messages"] > 0 and seen["calls"] > 0, seen


def test_requests_are_what_certify_sends():
    @quiet(200)
    @given(requests(format="anthropic"))
    def answered(request):
        assert request["maxMessages"] >= 1
        assert set(request) <= {"maxMessages", "system", "messages"}
        reducer_kit.reduce(request, policy="turns", format="anthropic")

    answered()


def test_a_correct_reducer_passes_every_drawn_request():
    @quiet(300)
    @given(requests(format="openai"))
    def passes(request):
        out = suffix_openai(request)
        failed = [v for v in reducer_kit.check(request, out, policy="suffix", format="openai") if v.failed]
        assert not failed, failed

    passes()


def _fails(request):
    verdicts = reducer_kit.check(request, last_n(request), policy="suffix", format="openai")
    return {v.clause for v in verdicts if v.failed}


def test_a_buggy_reducer_is_found_and_shrunk():
    sizes = []

    def fails(request):
        failing = "no-orphan-result" in _fails(request)
        if failing:
            sizes.append(len(request["messages"]))
        return failing

    minimal = find(requests(format="openai"), fails,
                   settings=settings(database=None, max_examples=2000, deadline=None, derandomize=True))
    messages = minimal["messages"]
    assert len(messages) <= 6 < max(sizes), (sizes, messages)
    assert messages[-1]["role"] == "tool"
    assert minimal["maxMessages"] < len(messages)


def test_a_failing_given_test_reports_the_shrunk_history():
    @settings(database=None, deadline=None, max_examples=3000, derandomize=True)
    @given(requests(format="openai"))
    def keeps_pairs(request):
        assert "no-orphan-result" not in _fails(request)

    with pytest.raises(AssertionError):
        keeps_pairs()


def test_knobs_and_budgets():
    assert knobs("openai")["batched_results"] is False
    with pytest.raises(reducer_kit.ReducerKitError, match="unknown generator knob"):
        histories(max_turn=3)
    with pytest.raises(reducer_kit.ReducerKitError, match="unknown knob"):
        histories(without="approval")

    @quiet(100)
    @given(histories(format="openai", tool_calls=False), budgets())
    def no_calls(history, budget):
        assert budget >= 1
        assert not any(m.get("role") == "tool" for m in history)

    no_calls()

    @quiet(200)
    @given(budgets(invalid=True))
    def budget(b):
        try:
            ok = reducer_kit.reduce([], b)
        except reducer_kit.ReducerKitError:
            assert not (isinstance(b, int) and not isinstance(b, bool) and b >= 1)
        else:
            assert ok == []

    budget()
