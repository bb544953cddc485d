"""``validate``, ``check``, ``reduce`` and ``generate`` in process: the
command line's clause ids, details and errors, on plain lists of dicts."""

from __future__ import annotations

import decimal
import json
import subprocess

import pytest

import reducer_kit
from reducer_kit import JsonFloat, ReducerKitError

OPENAI = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "12 C"},
    {"role": "assistant", "content": "12 C and cloudy."},
]


def cli(kit_cli, tmp_path, *args, **files):
    paths = []
    for name, value in files.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(value))
        paths.append(str(p))
    return subprocess.run([kit_cli, *args, *paths], capture_output=True, text=True, timeout=60)


def test_validate_gives_the_clis_violations(kit_cli, tmp_path):
    broken = OPENAI[:2] + OPENAI[3:]  # the result without its call
    found = reducer_kit.validate(broken, format="openai")
    assert [v.rule for v in found] == ["result-follows-call"]
    out = cli(kit_cli, tmp_path, "validate", "--format", "openai", history=broken)
    assert out.returncode == 1
    assert f"history.json: {found[0]}" in out.stdout
    assert reducer_kit.validate(OPENAI, format="openai") == []
    pending = OPENAI[:3]
    assert [v.rule for v in reducer_kit.validate(pending, format="openai")] == ["calls-answered"]
    assert reducer_kit.validate(pending, format="openai", allow_pending=True) == []


def test_validate_with_a_provider(kit_cli, tmp_path):
    starts_with_assistant = [{"role": "assistant", "content": "hi"}]
    found = reducer_kit.validate(starts_with_assistant, format="openai", provider="anthropic")
    out = cli(kit_cli, tmp_path, "validate", "--format", "openai", "--provider", "anthropic", h=starts_with_assistant)
    assert found and all(f"h.json: {v}" in out.stdout for v in found)


def test_a_history_in_another_format_is_refused_with_the_clis_text(kit_cli, tmp_path):
    with pytest.raises(ReducerKitError) as e:
        reducer_kit.validate(OPENAI, format="canonical")
    out = cli(kit_cli, tmp_path, "validate", h=OPENAI)
    assert out.returncode == 2
    assert str(e.value).split(": ", 1)[1] in out.stderr
    assert "try --format openai" in str(e.value)


def test_reduce_is_the_reference(kit_cli, tmp_path):
    for policy in ("turns", "suffix"):
        for budget in (1, 2, 3, 10):
            got = reducer_kit.reduce(OPENAI, budget, policy=policy, format="openai")
            out = cli(kit_cli, tmp_path, "reduce", "--policy", policy, "--format", "openai", "--max", str(budget), h=OPENAI)
            assert got == json.loads(out.stdout), (policy, budget)


def test_reduce_an_envelope_with_a_top_level_system():
    request = {"maxMessages": 1, "system": "Be brief.", "messages": [
        {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]}
    got = reducer_kit.reduce(request, policy="turns", format="anthropic")
    assert got == {"system": "Be brief.", "messages": [{"role": "user", "content": "c"}]}


def test_a_bad_budget_is_the_kits_error(kit_cli, tmp_path):
    with pytest.raises(ReducerKitError, match="maxMessages"):
        reducer_kit.reduce(OPENAI, 2.5, format="openai")
    with pytest.raises(ReducerKitError):
        reducer_kit.reduce(OPENAI, format="openai")  # no budget at all


def test_check_gives_the_clis_verdicts(kit_cli, tmp_path):
    output = OPENAI[3:]  # starts with an orphan result
    verdicts = reducer_kit.check(OPENAI, output, 2, policy="suffix", format="openai")
    failed = [v for v in verdicts if v.failed]
    assert "no-orphan-result" in [v.clause for v in failed]
    out = cli(kit_cli, tmp_path, "check", "--policy", "suffix", "--format", "openai", "--max", "2", input=OPENAI, output=output)
    assert out.returncode == 1
    for v in verdicts:
        assert str(v).splitlines()[0] in out.stdout.splitlines(), v
    right = reducer_kit.reduce(OPENAI, 2, policy="suffix", format="openai")
    assert not [v for v in reducer_kit.check(OPENAI, right, 2, policy="suffix", format="openai") if v.failed]
    error = reducer_kit.check(OPENAI, {"error": "no"}, 2, policy="suffix", format="openai")
    assert any(v.failed for v in error)


def test_generate_is_the_clis(kit_cli, tmp_path):
    got = reducer_kit.generate(5, seed=7, format="openai", policy="suffix")
    out = subprocess.run([kit_cli, "generate", "--count", "5", "--seed", "7", "--format", "openai", "--policy", "suffix"],
                         capture_output=True, text=True, check=True)
    assert got == [json.loads(line) for line in out.stdout.splitlines()]
    assert [c["id"] for c in got] == [f"gen/7/{n}" for n in range(5)]


def test_numbers_come_back_exactly():
    history = [{"role": "user", "contents": [{"$type": "text", "text": "q"}],
                "additionalProperties": {"huge": 1, "big": 123456789012345678901234567890}}]
    kept = reducer_kit.reduce(history, 1, format="canonical")
    assert kept == history
    cases = reducer_kit.generate(400, format="canonical")
    floats = [x for c in cases for x in _numbers(c["messages"]) if isinstance(x, float)]
    assert floats, "the generator makes non-integer numbers"
    x = JsonFloat(float("inf"))
    x.text = "1e400"
    tricky = [{"role": "user", "contents": [{"$type": "text", "text": "q"}], "additionalProperties": {"x": x}}]
    back = reducer_kit.reduce(tricky, 1)
    assert isinstance(back[0]["additionalProperties"]["x"], JsonFloat)
    assert decimal.Decimal(back[0]["additionalProperties"]["x"].text) == decimal.Decimal("1e400")


def _numbers(v):
    if isinstance(v, dict):
        for x in v.values():
            yield from _numbers(x)
    elif isinstance(v, list):
        for x in v:
            yield from _numbers(x)
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        yield v


def test_no_panic_crosses_the_boundary():
    with pytest.raises(TypeError, match="not JSON"):
        reducer_kit.validate([{"role": "user", "content": {1, 2}}], format="openai")
    with pytest.raises(TypeError, match="not a string"):
        reducer_kit.validate([{1: "x"}], format="openai")
    with pytest.raises(TypeError, match="not a JSON number"):
        reducer_kit.validate([{"role": "user", "content": "x", "n": float("nan")}], format="openai")
    deep: list = []
    for _ in range(1000):
        deep = [deep]
    with pytest.raises(TypeError, match="nested deeper"):
        reducer_kit.validate([{"role": "user", "content": deep}], format="openai")
    for bad in ("nope", "OpenAI"):
        with pytest.raises(ReducerKitError, match="unknown format"):
            reducer_kit.validate([], format=bad)
    with pytest.raises(ReducerKitError, match="unknown policy"):
        reducer_kit.reduce([], 1, policy="middle")
    with pytest.raises(ReducerKitError, match="expected an array of messages"):
        reducer_kit.validate({"messages": 3})


def test_loads_and_dumps_keep_numbers():
    text = '{"a":[1e400,0.1000000000000000055511151231257827,2.50,1.5,-0,123456789012345678901234567890]}'
    v = reducer_kit.loads(text)
    assert isinstance(v["a"][0], JsonFloat) and v["a"][3] == 1.5 and type(v["a"][3]) is float
    assert [decimal.Decimal(str(getattr(x, "text", x))) for x in reducer_kit.loads(reducer_kit.dumps(v))["a"]] == [
        decimal.Decimal(t) for t in ("1e400", "0.1000000000000000055511151231257827", "2.50", "1.5", "0",
                                     "123456789012345678901234567890")]
    with pytest.raises(ReducerKitError, match="not JSON"):
        reducer_kit.loads("{")
