"""Per-Op timers for ``aotbuild compile --profile``.

Compiled code has no clock of its own. A profiled graph module declares two C functions that the
package's entry module defines (``templates/native/entry.c.j2``) and wraps every Op call::

    _aot_t = _aot_clock()
    v0 = subtract_0(x, mu)
    _aot_record(1234567890123, _aot_clock() - _aot_t)

The number is the timer's id: a hash of the scope (the graph or subgraph whose module makes the
call) and the callee's symbol, so a module's text — its identity and cache key — holds no
package-specific index, and an Op called by two graphs is timed per graph. The C entry looks the
id up in its table of timers (sorted by id) and adds calls and nanoseconds. Without the flag the
modules have no timers at all.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Timer:
    id: int
    """63 bits of sha256(scope, symbol): fits numba's int64."""

    scope: str
    """``graph NAME`` or ``subgraph module:function``: whose module makes the timed call."""

    symbol: str
    """The Op timed; for a graph's own total, the graph's entry symbol."""

    title: str


def timer_id(scope: str, symbol: str) -> int:
    digest = hashlib.sha256(f"{scope}\0{symbol}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


CLOCK_DECLARATIONS = """from numba import types as _types

# Timers of `aotbuild compile --profile`: the package's runtime provides the clock and the table.
_aot_clock = _types.ExternalFunction("aot_profile_clock", _types.int64())
_aot_record = _types.ExternalFunction("aot_profile_record", _types.void(_types.int64, _types.int64))"""


def timed(statement: str, timer: Timer) -> list[str]:
    """``statement`` (an Op call) between two readings of the clock."""
    return [
        "_aot_t = _aot_clock()",
        statement,
        f"_aot_record({timer.id}, _aot_clock() - _aot_t)  # {timer.symbol}",
    ]
