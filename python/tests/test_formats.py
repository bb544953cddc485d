"""A run's default cases are those its format carries (spec section 9.5):
an application's trimmer, written with the standard ``json`` module alone
(``examples/reducers/openai_trimmer.py``, ``anthropic_trimmer.py``), passes
every level in process with no flag; the shapes outside the format run only
on request (``with_``)."""

from __future__ import annotations

import importlib.util

import pytest

import reducer_kit

LEVELS = {"protocol": True, "safety": True, "policy": True, "exact": True}


def example(repo, name):
    """The module ``examples/reducers/<name>.py`` of the repository."""
    spec = importlib.util.spec_from_file_location(name, repo / "examples" / "reducers" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "name, format, outside",
    [
        ("openai_trimmer", "openai", ["role-case", "approvals", "legacy-approvals", "non-double-numbers", "budget-spellings"]),
        ("anthropic_trimmer", "anthropic", ["role-case", "approvals", "legacy-approvals", "non-double-numbers", "budget-spellings"]),
    ],
)
def test_a_trimmer_on_the_json_module_passes_every_level_with_no_flag(repo, name, format, outside):
    trim = example(repo, name).trim
    report = reducer_kit.assert_certified(trim, policy="suffix", format=format)
    assert report.levels == LEVELS
    assert report.json["outside"] == outside
    assert report.json["with"] == [] and report.json["without"] == []
    assert report.cases_run > 1900
    skipped = [r["skipped"] for r in report.json["results"] if r["status"] == "skip"]
    # The corpus's approval cases are skipped with the reason and the flag.
    assert f"approval items (approvals): outside a default in-process {format} run; --with approvals runs it" in skipped
    # In process every budget the function gets is an int (spec 8.12): the
    # six corpus cases whose budget is written 3.0, 1e1, 2.5, "3", true or
    # null are skipped.
    spelled = f"a budget written other than as an integer (budget-spellings): outside a default in-process {format} run; --with budget-spellings runs it"
    assert skipped.count(spelled) == 6
    assert f"policy suffix format {format}: levels passed [protocol, safety, policy, exact]" in report.certificate


def test_the_shapes_outside_the_format_run_on_request(repo):
    trim = example(repo, "openai_trimmer").trim
    # Approval parts in Chat Completions messages: the trimmer does not
    # know them, and leaves an approval response without its request.
    approvals = reducer_kit.certify(trim, policy="suffix", format="openai", with_=["approvals"], cases=300)
    assert not approvals.passed
    assert "no-orphan-approval" in approvals.failing_clauses
    assert approvals.json["with"] == ["approvals"]
    assert approvals.certificate.endswith("; with approvals")
    # Budgets written 3.0 or True: the trimmer refuses 3.0 (a float), which
    # the protocol writes for 3: protocol-budget, never valid-output.
    spellings = reducer_kit.certify(trim, policy="suffix", format="openai", with_="budget-spellings", cases=0)
    assert spellings.failing_clauses == ["protocol-budget", "matches-reference"]
    assert spellings.clauses["valid-output"]["failed"] == 0
    assert spellings.clauses["protocol-budget"]["failed"] == 2


def test_with_names_only_what_a_default_run_leaves_out():
    with pytest.raises(reducer_kit.ReducerKitError, match="--with pending: a default in-process openai run has it already"):
        reducer_kit.certify(lambda r: r["messages"], format="openai", with_=["pending"])
