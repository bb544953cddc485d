"""Exact JSON numbers across the boundary between the kit and Python."""

from __future__ import annotations

import functools
import json

__all__ = ["JsonFloat", "loads", "read_float"]


class JsonFloat(float):
    """A JSON number that is no integer, as the kit read it.

    A ``float`` in every way, plus ``text``: the number as it was written
    (``1e400``, ``0.1000000000000000055511151231257827``, ``2.50``). The
    kit gives one wherever a plain ``float`` would not write the number
    back the same (a float reads ``1e400`` as infinity, which is not
    JSON), and writes it back as ``text``: a message a reducer keeps comes
    back denoting the same numbers, as spec section 1.3 asks. Arithmetic
    on it gives plain floats.
    """

    __slots__ = ("text",)
    text: str


def read_float(text: str) -> float:
    """A JSON number with a fraction or an exponent: a ``float`` when the
    float is written back as ``text``, else a :class:`JsonFloat`."""
    f = float(text)
    if repr(f) == text:
        return f
    x = JsonFloat(f)
    x.text = text
    return x


#: JSON text as Python objects with exact numbers, by Python's own reader
#: (what ``certify`` gives a reducer each request with: one pass in C).
loads = functools.partial(json.loads, parse_float=read_float)
