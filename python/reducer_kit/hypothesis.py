"""Hypothesis strategies drawing valid histories from the kit's generator.

The kit's generator (``src/generate/``) builds a valid tool-bearing history
from a string of bytes, every choice (how many turns, which step, how many
parallel calls, which budget) read from the next bytes, the smallest choice
when they run out. Here Hypothesis draws those bytes (``st.binary``) and
the kit builds the history from them, so Hypothesis's shrinking (shorter,
smaller bytes give simpler histories) and its example database work as for
any strategy::

    from hypothesis import given
    from reducer_kit.hypothesis import requests

    @given(requests(format="openai"))
    def test_my_reducer_keeps_pairs(request):
        out = my_reducer(request)
        assert not [v for v in reducer_kit.check(request, out, policy="suffix", format="openai") if v.failed]

Knobs are the generator's (``generate::Config`` fields: ``max_turns``,
``tool_calls``, ``approvals``, ``pending``, ...; ``reducer_kit.hypothesis.
knobs(format)`` lists them with their values), on top of the configuration
``certify`` uses for the format; ``without`` turns knobs off by the names
of ``certify --without``. Pending tails are off unless ``pending=True``, so
that every history drawn passes :func:`reducer_kit.validate`.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from hypothesis import strategies as st

from . import _native

__all__ = ["budgets", "histories", "knobs", "requests"]

#: How many bytes a draw takes at least: Hypothesis draws short byte
#: strings by default, and the generator makes an empty history of a few
#: bytes; 64 give histories of five messages on average, a fifth of them
#: with tool calls, and still shrink to the smallest (a failing case of a
#: naive last-N reducer shrinks to 4 messages).
MIN_BYTES = 64
#: The bytes of the swarm draw of the knobs (which are on, how many turns,
#: steps and parallel calls at most): one per switch and per maximum.
SWARM_BYTES = 32
#: How many bytes a draw may take at most: enough for the generator's
#: largest choices of a few turns; Hypothesis shrinks towards fewer.
MAX_BYTES = 4096


def knobs(format: str = "canonical", protocol: int = 1) -> Dict[str, Any]:
    """The generator's knobs as ``certify`` sets them for ``format``."""
    config, _ = _native.generator_knobs(format, protocol)
    return dict(config)


def _draws(
    format: str,
    protocol: int,
    without: Union[str, Sequence[str], None],
    min_bytes: int,
    max_bytes: int,
    settings: Dict[str, Any],
) -> st.SearchStrategy[Dict[str, Any]]:
    off = without if isinstance(without, str) else ",".join(without or ())
    settings = dict(settings)
    settings.setdefault("pending", False)
    # Unknown knobs, formats and protocols are refused now, not at a draw.
    _native.draw(b"", format, protocol, off, settings)

    def build(drawn: Tuple[bytes, bytes]) -> Any:
        swarm, data = drawn
        return _native.draw(data, format, protocol, off, settings, swarm)

    # The knobs' swarm draw reads bytes of its own: shrinking the history's
    # bytes leaves the knobs as they are, and shrinking these turns knobs
    # off (the generator reads a zero byte as the smallest choice).
    swarm = st.binary(min_size=SWARM_BYTES, max_size=SWARM_BYTES)
    data = st.binary(min_size=min_bytes, max_size=max_bytes)
    return st.tuples(swarm, data).map(build).filter(lambda d: d is not None)


def histories(
    format: str = "canonical",
    *,
    without: Union[str, Sequence[str], None] = None,
    min_bytes: int = MIN_BYTES,
    max_bytes: int = MAX_BYTES,
    **knobs: Any,
) -> st.SearchStrategy[List[Dict[str, Any]]]:
    """Valid histories in ``format``: lists of message dicts.

    In a format with a top-level system prompt (``anthropic``, ``bedrock``,
    ``gemini``) a pinned system message is the list's first item, the
    pseudo-message ``{"role": "system", "content": ...}`` that the kit reads
    as that prompt (:func:`requests` puts it in the envelope's member).
    """
    return _draws(format, 1, without, min_bytes, max_bytes, knobs).map(lambda d: d["messages"])


def requests(
    format: str = "canonical",
    *,
    protocol: int = 1,
    budget: Optional[st.SearchStrategy[Any]] = None,
    without: Union[str, Sequence[str], None] = None,
    min_bytes: int = MIN_BYTES,
    max_bytes: int = MAX_BYTES,
    **knobs: Any,
) -> st.SearchStrategy[Dict[str, Any]]:
    """Requests as ``certify`` sends them: ``{"maxMessages": n, "messages": [...]}``.

    The format's top-level system member holds a pinned system prompt.
    ``maxMessages`` is the generator's budget, drawn around the edges (1, a
    turn boundary, exactly fits, one short, larger than the history), or one
    of ``budget`` (default: :func:`budgets` up to 16), which Hypothesis
    shrinks on its own (towards 1), so that a failure shrinks to a short
    history. Under ``protocol=2`` about half carry a token budget
    (``maxTokens``, ``tokens``) instead, left as drawn.
    """
    own = budgets(max_value=16) if budget is None else budget
    drawn = _draws(format, protocol, without, min_bytes, max_bytes, knobs)

    def with_budget(pair: Tuple[Dict[str, Any], Any]) -> Dict[str, Any]:
        request: Dict[str, Any] = pair[0]["request"]
        if pair[1] is not None and "maxMessages" in request:
            request = dict(request, maxMessages=pair[1])
        return request

    return st.tuples(drawn, st.one_of(st.none(), own)).map(with_budget)


def budgets(*, max_value: int = 64, invalid: bool = False) -> st.SearchStrategy[Any]:
    """Message budgets (``maxMessages``): whole numbers from 1 to ``max_value``.

    With ``invalid=True`` also values that are no budget (spec section 2:
    ``0``, ``-1``, ``2.5``, ``"3"``, ``None``, ``True``), which a reducer
    must answer with ``{"error": ...}`` (clause ``rejects-bad-budget``).
    """
    valid = st.integers(min_value=1, max_value=max_value)
    if not invalid:
        return valid
    return st.one_of(valid, st.sampled_from([0, -1, 2.5, "3", None, True, [], {}]))
