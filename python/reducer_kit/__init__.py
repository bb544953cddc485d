"""reducer-kit from Python: certify a chat-history reducer function in process.

A reducer takes a conversation and a budget and keeps a shorter, still valid
conversation. This package is the kit's Rust library (the one implementation
of every clause, wire format and generator rule), with:

- :func:`certify` and :func:`assert_certified`: the whole battery of
  ``reducer-kit certify`` (the kit's corpus, generated cases, the extra
  requests, shrinking to a minimal counterexample, the graded levels and the
  reports) against a Python callable, in process;
- :func:`validate`, :func:`check`, :func:`reduce`, :func:`generate`: the
  command line's ``validate``, ``check``, ``reduce`` and ``generate`` on plain
  Python lists of dicts, in any of the kit's wire formats (:data:`FORMATS`);
- :mod:`reducer_kit.hypothesis`: Hypothesis strategies drawing valid
  histories from the kit's generator;
- the ``reducer-kit`` command line itself (a console script).

Histories are lists of message dicts in the run's wire format, or request
envelopes (``{"maxMessages": 4, "messages": [...]}``, with the format's
top-level ``system`` member where it has one). Errors are
:class:`ReducerKitError` with the command line's text.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from . import _native
from ._json import JsonFloat
from ._native import ReducerKitError

__all__ = [
    "FORMATS",
    "POLICIES",
    "PROVIDERS",
    "Counterexample",
    "JsonFloat",
    "ReducerKitError",
    "Report",
    "Verdict",
    "Violation",
    "__version__",
    "assert_certified",
    "certify",
    "check",
    "dumps",
    "generate",
    "loads",
    "reduce",
    "validate",
]

__version__: str = _native.__version__

#: The wire formats (``docs/formats.md``): the canonical one is the
#: Microsoft.Extensions.AI ``ChatMessage`` JSON.
FORMATS = ("canonical", "openai", "anthropic", "responses", "gemini", "bedrock")
#: The policies (spec sections 3 and 4).
POLICIES = ("turns", "suffix")
#: The provider profiles (spec section 15).
PROVIDERS = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")

Message = Dict[str, Any]
History = Union[Sequence[Message], Mapping[str, Any]]


def _request(
    history: History,
    max_messages: Any = None,
    max_tokens: Any = None,
    tokens: Any = None,
    count_pinned: Any = None,
) -> Dict[str, Any]:
    """A request envelope: ``history`` (a list of messages or an envelope)
    with the budget members given (each overrides the envelope's)."""
    if isinstance(history, Mapping):
        request = dict(history)
    else:
        request = {"messages": list(history)}
    for key, value in (
        ("maxMessages", max_messages),
        ("maxTokens", max_tokens),
        ("tokens", tokens),
        ("countPinned", count_pinned),
    ):
        if value is not None:
            request[key] = value
    if max_messages is not None and max_tokens is None:
        request.pop("maxTokens", None)
    if max_tokens is not None and max_messages is None:
        request.pop("maxMessages", None)
    return request


@dataclasses.dataclass(frozen=True)
class Violation:
    """One rule of spec section 5 that a history breaks (``validate``)."""

    #: The rule's id (``result-follows-call``, ...), ``malformed`` for a
    #: message the format cannot read, or a provider rule's id.
    rule: str
    #: The message it is about (0-based, the kit's list: a top-level system
    #: prompt is message 0), when there is one.
    index: Optional[int]
    #: The call or approval request id involved, when there is one.
    id: Optional[str]
    #: The line ``reducer-kit validate`` prints for it (after the file name).
    text: str

    def __str__(self) -> str:
        return self.text


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One clause's verdict on one answer (``check``)."""

    #: The clause id (``no-orphan-result``, ...).
    clause: str
    #: Its level: ``protocol``, ``safety``, ``policy`` or ``exact``.
    level: str
    #: ``pass``, ``fail`` or ``not judged``.
    outcome: str
    #: Where it fails, or why it is not judged; empty when it passes.
    detail: str
    #: The clause's definition (spec section 6).
    definition: str

    @property
    def failed(self) -> bool:
        """Whether the clause fails."""
        return self.outcome == "fail"

    def __str__(self) -> str:
        if self.outcome == "pass":
            return f"pass        {self.clause}"
        if self.outcome == "fail":
            return f"FAIL        {self.clause}: {self.detail}\n            ({self.definition})"
        return f"not judged  {self.clause}: {self.detail}"


def validate(
    history: History,
    *,
    format: str = "canonical",
    allow_pending: bool = False,
    provider: Optional[str] = None,
) -> List[Violation]:
    """The rules of spec section 5 that ``history`` breaks (``reducer-kit validate``).

    Empty when the history is valid. ``allow_pending``: calls and approval
    requests of the newest turn may be unanswered. ``provider``: also the
    provider's acceptance rules (spec section 15.3).

    Raises :class:`ReducerKitError` when the messages are not in ``format``
    at all (``try --format openai``), ``TypeError`` when they are not JSON.
    """
    found = _native.validate(_request(history), format, allow_pending, provider)
    return [Violation(**v) for v in found]


def reduce(
    history: History,
    max_messages: Any = None,
    *,
    policy: str = "turns",
    format: str = "canonical",
    max_tokens: Any = None,
    tokens: Any = None,
    count_pinned: Any = None,
    provider: Optional[str] = None,
) -> Any:
    """The reference reducer's answer (``reducer-kit reduce``).

    ``history`` is a list of messages (the answer is the list kept) or a
    request envelope (the answer is the response envelope, with the
    format's top-level ``system`` member). The budget is ``max_messages``,
    or ``max_tokens`` with ``tokens`` (one cost per message) and
    ``count_pinned``, or the envelope's members.

    Raises :class:`ReducerKitError` with the kit's text for a budget it
    refuses (``maxMessages must be a whole number >= 1 ...``) or a history
    it cannot read.
    """
    request = _request(history, max_messages, max_tokens, tokens, count_pinned)
    as_list = not isinstance(history, Mapping)
    return _native.reduce(request, policy, format, provider, as_list)


def check(
    history: History,
    output: Any,
    max_messages: Any = None,
    *,
    policy: str,
    format: str = "canonical",
    max_tokens: Any = None,
    tokens: Any = None,
    count_pinned: Any = None,
    provider: Optional[str] = None,
    summaries: bool = False,
    summary_tokens: Optional[int] = None,
) -> List[Verdict]:
    """Every clause's verdict on ``output``, one answer to ``history`` (``reducer-kit check``).

    ``output`` is a list of messages, a response (``{"messages": [...]}``)
    or an error answer (``{"error": "..."}``). Use
    ``[v for v in verdicts if v.failed]`` for the failures; ``str(verdict)``
    is the line the command line prints.
    """
    request = _request(history, max_messages, max_tokens, tokens, count_pinned)
    found = _native.check(
        request, output, policy, format, provider, summaries, summary_tokens
    )
    return [Verdict(**v) for v in found]


def generate(
    count: int = 100,
    *,
    seed: int = 1,
    format: str = "canonical",
    policy: str = "turns",
    config: Optional[Mapping[str, Any]] = None,
) -> List[Dict[str, Any]]:
    """Generated cases ``gen/<seed>/0`` .. ``count - 1`` (``reducer-kit generate``).

    Each is a case of the case format (``id``, ``maxMessages``, canonical
    ``messages``, the reference's ``expected``, ...): the cases ``certify``
    runs with the same seed and format. ``config``: a generator config (the
    fields of ``generate::Config``; absent ones take their defaults), as
    ``--config`` reads it.
    """
    return _native.generate(count, seed, format, policy, config)


def loads(text: str) -> Any:
    """JSON text as Python objects, as :func:`certify` gives a request to a
    reducer: numbers exact (a non-integer that a float would not write back
    the same is a :class:`JsonFloat`). For a wire program (a reducer behind
    the runner protocol) that must keep messages byte for byte in value."""
    return _native.loads(text)


def dumps(obj: Any) -> str:
    """Python objects as compact JSON text, as :func:`certify` reads a
    reducer's answer: a :class:`JsonFloat` as its text; ``TypeError`` for
    what is not JSON (a ``set``, ``NaN``, a key that is no string)."""
    return _native.dumps(obj)


@dataclasses.dataclass(frozen=True)
class Counterexample:
    """A minimal counterexample: the smallest input found that fails a clause."""

    #: The clause id.
    clause: str
    #: The clause's definition.
    definition: str
    #: How the minimal input fails it.
    failure: str
    #: The minimal input's messages (canonical).
    input: List[Message]
    #: Its budget members (``maxMessages``, or ``maxTokens`` and ``tokens``).
    budget: Dict[str, Any]
    #: The reference reducer's answer (a response object in the run's format).
    expected: Any
    #: The reducer's answer, or ``None`` when it gave none.
    actual: Any
    #: The case it was shrunk from (``gen/1/55``): ``certify(..., only=[id])`` reruns it.
    original_id: str
    #: Whether the minimal input is valid (failures on invalid input do not
    #: decide the levels).
    valid_input: bool
    #: How many failing cases of the run fail the clause this way.
    cases: int
    #: The index of the text report's counterexample that draws it: one
    #: input failing several clauses with the same answers is drawn once.
    drawn_as: int
    #: The counterexample as the text report shows it (shared by those
    #: drawn together).
    text: str

    def __str__(self) -> str:
        return self.text


_BUDGET_MEMBERS = ("maxMessages", "maxTokens", "tokens", "countPinned", "summaryTokens")


class Report:
    """What :func:`certify` found: the levels, the clause table, the
    counterexamples, the certificate line, and the text and JSON reports of
    ``reducer-kit certify`` (``--report-json``)."""

    def __init__(self, name: str, found: Mapping[str, Any]) -> None:
        report: Dict[str, Any] = found["report"]
        #: The reducer's name, as the report names it.
        self.name = name
        #: The JSON report, as ``reducer-kit certify --report-json`` writes it
        #: (every case's result under ``results``).
        self.json: Dict[str, Any] = report
        #: The text report ``reducer-kit certify`` prints.
        self.text: str = found["text"]
        self._html: str = found["html"]
        #: Every level passed (and the run was not stopped).
        self.passed: bool = bool(report["passed"])
        #: Whether ``reducer-kit certify`` would exit 1: a failure on a valid
        #: input, or a reducer that answered nothing.
        self.failed: bool = bool(found["failed"])
        #: ``{"protocol": True, "safety": False, ...}``: each level and every
        #: lower one passed.
        self.levels: Dict[str, bool] = dict(report["levels"])
        #: Per clause id: ``level``, ``passed``, ``failed``, ``defects`` (on
        #: valid input), ``invalidInput`` and ``notJudged`` (counts of cases).
        self.clauses: Dict[str, Dict[str, Any]] = dict(report["clauses"])
        #: The certificate line.
        self.certificate: str = report["certificate"]
        #: Cases run and skipped.
        self.cases_run: int = report["casesRun"]
        self.cases_skipped: int = report["casesSkipped"]
        #: What the answers suggest to change or declare (a ``developer``
        #: message is the system prompt, a declaration that fits the
        #: failures, another wire format): the text report's ``hint:``
        #: lines, without the prefix.
        self.hints: List[str] = list(report.get("hints", []))
        blocks = _counterexample_blocks(self.text)
        self.counterexamples: List[Counterexample] = []
        for i, cx in enumerate(report["counterexamples"]):
            self.counterexamples.append(
                Counterexample(
                    clause=cx["clause"],
                    definition=cx["definition"],
                    failure=cx["detail"],
                    input=cx["messages"],
                    budget={k: cx[k] for k in _BUDGET_MEMBERS if k in cx},
                    expected=cx["expected"],
                    actual=cx["actual"],
                    original_id=cx["originalId"],
                    valid_input=cx.get("validInput", True),
                    cases=cx["cases"],
                    drawn_as=cx.get("drawnAs", i),
                    text=blocks[cx.get("drawnAs", i)] if cx.get("drawnAs", i) < len(blocks) else "",
                )
            )

    @property
    def failing_clauses(self) -> List[str]:
        """The clauses that fail on a valid input (the defects), in report order."""
        return [c for c, row in self.clauses.items() if row.get("defects", row["failed"])]

    def html(self) -> str:
        """The HTML report, as ``reducer-kit certify --report-html`` writes it:
        one self-contained page (styles inline, no script) with the levels,
        the clause table and each counterexample drawn as a conversation."""
        return self._html

    def explain(self) -> str:
        """What a failing test shows: the certificate line, the first minimal
        counterexample (clause, failure, input, expected, actual) and the
        other failing clauses."""
        lines = [f"{self.name} is not certified: {self.certificate}"]
        if self.counterexamples:
            first = self.counterexamples[0]
            lines.append(first.text)
            # The clauses the first block does not already show.
            rest = [c.clause for c in self.counterexamples[1:] if c.drawn_as != first.drawn_as]
            if rest:
                # One entry per clause, with how many kinds of failure it had.
                kinds: dict = {}
                for c in rest:
                    kinds[c] = kinds.get(c, 0) + 1
                named = ", ".join(c if n == 1 else f"{c} ({n} kinds)" for c, n in kinds.items())
                noun = "counterexample" if len(rest) == 1 else "counterexamples"
                lines.append(f"({len(rest)} more {noun}: {named}; report.text has them all)")
        else:
            lines.append(_first_failure(self.text))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<reducer_kit.Report {self.name}: {self.certificate}>"


def _counterexample_blocks(text: str) -> List[str]:
    """The text report's counterexamples, each its heading and indented lines."""
    blocks: List[str] = []
    current: Optional[List[str]] = None
    for line in text.splitlines():
        if line.startswith("minimal counterexample for "):
            current = [line]
            blocks.append("")
        elif current is not None and line.startswith("  "):
            current.append(line)
        else:
            current = None
            continue
        blocks[-1] = "\n".join(current)
    return blocks


def _first_failure(text: str) -> str:
    """The text report's first failing case, or its end."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("FAIL ") or line.startswith("stopped"):
            block = [line]
            for more in lines[i + 1 :]:
                if not more.startswith("  "):
                    break
                block.append(more)
            return "\n".join(block)
    return "\n".join(lines[-12:])


def _name(reducer: Callable[..., Any]) -> str:
    module = getattr(reducer, "__module__", None)
    qualname = getattr(reducer, "__qualname__", None) or type(reducer).__name__
    return f"{module}.{qualname}" if module not in (None, "__main__") else qualname


def _names(x: Union[str, Sequence[str], None]) -> str:
    if x is None:
        return ""
    return x if isinstance(x, str) else ",".join(x)


def certify(
    reducer: Callable[[Dict[str, Any]], Any],
    *,
    policy: str = "turns",
    format: str = "canonical",
    cases: int = 2000,
    seed: int = 1,
    without: Union[str, Sequence[str], None] = None,
    with_: Union[str, Sequence[str], None] = None,
    declare: Union[str, Sequence[str], None] = None,
    protocol: int = 1,
    summaries: bool = False,
    provider: Optional[str] = None,
    corpus: Optional[Sequence[str]] = None,
    replay: Optional[Sequence[str]] = None,
    only: Optional[Sequence[str]] = None,
    shrink_tries: int = 200,
    shrink_time: float = 30.0,
    max_output: int = 16 << 20,
    jobs: int = 1,
    stop_after_first: bool = False,
) -> Report:
    """Certify ``reducer``, a Python callable, in process: ``reducer-kit certify`` without a process.

    ``reducer`` is called with each request as a dict, the members of the
    runner protocol (spec sections 8 and 13): ``{"maxMessages": 4,
    "messages": [...]}`` (with ``system`` in the Anthropic and Bedrock
    formats, ``systemInstruction`` in Gemini's; under ``protocol=2`` an
    ``id``, and maybe ``maxTokens``, ``tokens``, ``countPinned``). It
    returns the response dict (``{"messages": [...]}``, ``{"error": "..."}``
    for a budget that is not a whole number >= 1, ``{"unsupported":
    "why"}`` under protocol 2) or just the list of kept messages. An
    exception it raises is its error answer, ``{"error": str(e)}``. Its
    answer is read as a process's answer line is: it must be JSON, in the
    run's format; numbers it keeps come back exactly (:class:`JsonFloat`).

    The options are ``reducer-kit certify``'s (``docs/cli.md``): ``policy``,
    ``format``, ``cases`` (generated cases besides the corpus), ``seed``,
    ``without`` (generator knobs to skip), ``with_`` (``--with``: shapes a
    default run of the format leaves out, spec section 9.5, to run all the
    same: ``role-case``, ``approvals``, ``legacy-approvals``,
    ``non-double-numbers``, and ``budget-spellings``, budgets written other
    than as an integer, ``3.0``, ``True``, ``2.5``, which an in-process run
    does not send by default: the budget a function gets is an ``int``),
    ``declare`` (documented
    differences from the contract, spec section 16), ``protocol``,
    ``summaries``, ``provider``, ``corpus`` (case folders; the kit's own by
    default), ``replay``, ``only`` (case ids, ``--case``), ``shrink_tries``,
    ``shrink_time`` (seconds), ``max_output`` (bytes), ``jobs`` (the GIL
    serializes the callable: 1 is as fast as more), ``stop_after_first``
    (``--stop-after-first``: stop at the first defect, shrink it and
    report; a passing run still runs every case).

    Returns a :class:`Report`; raises :class:`ReducerKitError` for options
    the command line refuses, and re-raises a ``KeyboardInterrupt`` the
    callable raised once the run has stopped.
    """
    name = _name(reducer)
    declared = _names(declare)
    knobs = _names(without)
    with_knobs = _names(with_)
    rerun_options = [f"policy={policy!r}", f"format={format!r}"]
    for key, value, default in (
        ("protocol", protocol, 1),
        ("summaries", summaries, False),
        ("provider", provider, None),
        ("declare", declared, ""),
        ("with_", with_knobs, ""),
        ("without", knobs, ""),
        ("seed", seed, 1),
        ("corpus", list(corpus) if corpus else None, None),
        ("replay", list(replay) if replay else None, None),
    ):
        if value != default:
            rerun_options.append(f"{key}={value!r}")
    rerun = f"reducer_kit.certify({name}, {', '.join(rerun_options)}, only=[{{case}}])"
    found = _native.certify(
        reducer,
        name=name,
        policy=policy,
        format=format,
        provider=provider,
        protocol=protocol,
        summaries=summaries,
        declare=declared,
        without=knobs,
        with_knobs=with_knobs,
        cases=cases,
        seed=seed,
        corpus=[str(c) for c in corpus or ()],
        replay=[str(r) for r in replay or ()],
        only=list(only or ()),
        shrink_tries=shrink_tries,
        shrink_time=shrink_time,
        max_output=max_output,
        jobs=jobs,
        rerun=rerun,
        stop_after_first=stop_after_first,
    )
    return Report(name, found)


def assert_certified(reducer: Callable[[Dict[str, Any]], Any], **options: Any) -> Report:
    """:func:`certify` ``reducer`` and raise ``AssertionError`` unless it passes.

    The error's message is :meth:`Report.explain`: the certificate line and
    the first minimal counterexample (clause, failure, input, expected,
    actual, and how to rerun it), so that a failing pytest test shows it.
    Takes :func:`certify`'s options; returns the report when it passes.
    ``stop_after_first`` is on by default here: a failing reducer goes red
    at its first defect, shrunk, without running the other cases (a
    passing one still runs every case); pass ``stop_after_first=False``
    for the whole tally.
    """
    options.setdefault("stop_after_first", True)
    report = certify(reducer, **options)
    if report.failed or not report.passed:
        raise AssertionError(report.explain())
    return report
