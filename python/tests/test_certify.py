"""``certify(fn)`` in process: the whole battery against a Python function."""

from __future__ import annotations

import time

import pytest

import reducer_kit
from reducers import last_n, reference_suffix, suffix_openai


@pytest.fixture(scope="module")
def naive():
    return reducer_kit.certify(last_n, policy="suffix", format="openai")


def test_a_plain_last_n_function_fails_with_a_small_counterexample(naive):
    assert not naive.passed and naive.failed
    assert naive.levels["protocol"] and not naive.levels["safety"]
    assert "no-orphan-result" in naive.failing_clauses
    cx = next(c for c in naive.counterexamples if c.clause == "no-orphan-result")
    assert len(cx.input) <= 4, cx.text
    assert cx.valid_input
    assert cx.actual != cx.expected
    assert "every result in the output has its call in an earlier output message" in cx.text
    assert naive.clauses["no-orphan-result"]["defects"] > 0
    assert naive.json["mode"] == "in-process"
    assert naive.certificate.startswith("certificate: reducer-kit ")
    assert "policy suffix format openai" in naive.certificate


def test_the_html_report_draws_each_counterexample_from_the_library(naive):
    page = naive.html()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page
    # One section per input: an input failing several clauses is drawn
    # once, and every counterexample keeps its anchor cx-N.
    drawn = sorted({c.drawn_as for c in naive.counterexamples})
    assert drawn == list(range(len(drawn)))
    assert page.count('<section class="cx"') == len(drawn)
    assert page.count(' id="cx-') == len(naive.counterexamples)
    for c in naive.counterexamples:
        heading = c.text.splitlines()[0]
        assert heading.startswith("minimal counterexample for ")
        assert c.clause in heading.split(" (")[0].split("for ")[1].split(", ")
    cx = next(i for i, c in enumerate(naive.counterexamples) if c.clause == "no-orphan-result")
    section = page.split(f' id="cx-{cx + 1}">')[1].split("</section>")[0]
    assert "<code>no-orphan-result</code>" in section
    assert "orphan: no call earlier in the answer" in section
    # The rerun, as the text report writes it, escaped for HTML.
    assert "reproduce: reducer_kit.certify(reducers.last_n, policy=&#39;suffix&#39;" in section


def test_the_hints_are_the_text_reports(naive):
    said = [line[len("hint: "):] for line in naive.text.splitlines() if line.startswith("hint: ")]
    assert naive.hints == said == naive.json["hints"]


def test_assert_certified_shows_the_first_counterexample():
    with pytest.raises(AssertionError) as e:
        reducer_kit.assert_certified(last_n, policy="suffix", format="openai", cases=300)
    message = str(e.value)
    lines = message.splitlines()
    assert lines[0].startswith("reducers.last_n is not certified: certificate: ")
    assert lines[1].startswith("minimal counterexample for ")
    for field in ("  clause:", "  failure:", "  input:", "  expected (reference):", "  actual (reducer):"):
        assert any(line.startswith(field) for line in lines), field
    rerun = next(line for line in lines if line.startswith("  reproduce: "))
    assert "reducer_kit.certify(reducers.last_n, policy='suffix', format='openai', only=[\"" in rerun


def test_stop_after_first_stops_a_failing_run_at_its_first_defect():
    stopped = reducer_kit.certify(last_n, policy="suffix", format="openai", stop_after_first=True)
    assert stopped.failed and stopped.counterexamples
    first = stopped.json["stoppedAtFirstDefect"]
    assert first["case"] == stopped.json["firstDefect"]["case"]
    assert first["notRun"] > 1900 and stopped.cases_run < 50, (first, stopped.cases_run)
    # assert_certified stops so by default; its message's certificate
    # counts the cases that ran.
    with pytest.raises(AssertionError) as e:
        reducer_kit.assert_certified(last_n, policy="suffix", format="openai")
    assert f"{stopped.cases_run} cases run" in str(e.value).splitlines()[0]


def test_the_rerun_reruns_the_case(naive):
    cx = naive.counterexamples[0]
    again = reducer_kit.certify(last_n, policy="suffix", format="openai", only=[cx.original_id])
    assert again.cases_run == 1 and again.failed
    assert cx.clause in again.failing_clauses


def test_a_correct_suffix_function_passes_every_level():
    started = time.perf_counter()
    report = reducer_kit.assert_certified(suffix_openai, policy="suffix", format="openai")
    took = time.perf_counter() - started
    assert report.passed and not report.failed
    assert report.levels == {"protocol": True, "safety": True, "policy": True, "exact": True}
    assert report.cases_run > 1900
    assert not report.counterexamples
    assert "levels passed [protocol, safety, policy, exact]" in report.certificate
    print(f"certify(suffix_openai): {report.cases_run} cases in {took:.2f} s")


def test_the_reference_called_from_python_passes_under_protocol_2():
    report = reducer_kit.certify(reference_suffix, policy="suffix", format="openai", protocol=2, cases=300)
    assert report.passed, report.explain()
    assert report.json["spec"] == 2


def test_a_list_or_a_response_dict_is_an_answer_and_an_exception_an_error():
    def as_dict(request):
        return {"messages": suffix_openai(request)}

    assert reducer_kit.certify(as_dict, policy="suffix", format="openai", cases=100).passed

    def raises(request):
        raise RuntimeError("boom")

    report = reducer_kit.certify(raises, policy="suffix", format="openai", cases=20, shrink_tries=5)
    assert report.levels["protocol"] and report.failed
    failures = [f for r in report.json["results"] for f in r.get("failures", [])]
    assert any("boom" in f["detail"] for f in failures)


def test_an_answer_that_is_not_json_fails_protocol_json():
    def a_set(request):
        return {"messages": {1, 2}}

    report = reducer_kit.certify(a_set, policy="suffix", format="openai", cases=5, shrink_tries=0)
    assert not report.levels["protocol"]
    detail = report.json["results"][0]["failures"][0]
    assert detail["clause"] == "protocol-json"
    assert "an object of type set is not JSON" in detail["detail"]


def test_keyboard_interrupt_stops_the_run_and_is_raised_again():
    calls = []

    def interrupted(request):
        calls.append(1)
        if len(calls) == 10:
            raise KeyboardInterrupt
        return suffix_openai(request)

    with pytest.raises(KeyboardInterrupt):
        reducer_kit.certify(interrupted, policy="suffix", format="openai", cases=100)
    assert len(calls) == 10


def test_options_the_command_line_refuses_are_refused_with_its_text():
    with pytest.raises(reducer_kit.ReducerKitError, match="--summaries needs --protocol 2"):
        reducer_kit.certify(last_n, summaries=True)
    with pytest.raises(reducer_kit.ReducerKitError, match='--without: unknown knob "approval"'):
        reducer_kit.certify(last_n, without=["approval"])
    with pytest.raises(reducer_kit.ReducerKitError, match="--declare"):
        reducer_kit.certify(last_n, declare="nonsense")


def test_declarations_and_knobs_reach_the_certificate():
    report = reducer_kit.certify(suffix_openai, policy="suffix", format="openai", cases=50,
                                 declare=["soft-budget"], without="approvals,pending")
    assert "declares soft-budget" in report.certificate
    assert report.certificate.endswith("; without approvals,pending")


def test_policy_repair_certifies_a_sanitizer():
    # A sanitizer that changes nothing keeps a broken history broken:
    # under --policy repair (spec §17) it fails repair-valid on a history
    # broken on purpose, with a small counterexample.
    def keep_everything(request):
        return request["messages"]

    r = reducer_kit.certify(keep_everything, policy="repair", cases=200)
    assert not r.passed
    assert "policy repair format canonical" in r.certificate
    assert "repair-valid" in r.failing_clauses
    cx = next(c for c in r.counterexamples if c.clause == "repair-valid")
    assert len(cx.input) <= 3, cx.text
