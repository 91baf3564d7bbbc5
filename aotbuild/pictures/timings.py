"""Saved profiles (``report.save(path)`` in a package built with ``--profile``) read back, and
their times put on a picture's boxes.

A profile's rows are keyed by (scope, symbol): the module that made the call (``graph NAME``,
``subgraph F``, ``region F``) and the Op called, so an Op two graphs call is timed per graph.
Shares are of the graph's own total (the row of its entry), which includes the time of the
timers themselves: two clock readings per Op call.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..package.records import entry_symbols
from .modules import PictureError
from .picture import Picture

#: What ``report.save`` writes in its ``format`` field (templates/package/_profile.py.j2).
PROFILE_FORMAT = "aotbuild profile 1"


@dataclass(frozen=True)
class Row:
    scope: str
    symbol: str
    title: str
    calls: int
    seconds: float


@dataclass(frozen=True)
class Profile:
    package: str
    rows: tuple[Row, ...]

    def scopes(self) -> list[str]:
        """Graphs first, then subgraphs and regions, each sorted by name."""
        return sorted(
            {row.scope for row in self.rows}, key=lambda scope: (not scope.startswith("graph "), scope)
        )


@dataclass(frozen=True)
class Timing:
    seconds: float
    calls: int
    share: float
    """Of the graph's total time, 0 to 1."""

    boxes: int = 1
    """How many boxes of the picture share this time: the timer is per calling module and Op,
    so the calls of one Op from one module are timed together."""


def load_profile(path: Path, manifest: dict[str, Any]) -> Profile:
    """A saved profile, checked: readable, of this format, of this package, with rows that name
    Ops the package has (else it was saved from another build of it)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PictureError(
            f"no profile at {path}: save one with report.save(path) (docs/package.md)"
        ) from None
    except (OSError, ValueError) as exc:
        raise PictureError(f"cannot read the profile {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
        raise PictureError(f"{path} is not a profile saved by report.save() (no format {PROFILE_FORMAT!r})")
    package = manifest["package"]["name"]
    if data.get("package") != package:
        raise PictureError(f"{path} is a profile of {data.get('package')!r}, not of {package!r}")
    try:
        rows = tuple(
            Row(str(r["scope"]), str(r["symbol"]), str(r["title"]), int(r["calls"]), float(r["seconds"]))
            for r in data["rows"]
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise PictureError(f"{path}: a row of the profile is malformed ({exc!r})") from None
    if any(row.calls < 0 or not 0 <= row.seconds < math.inf for row in rows):
        raise PictureError(f"{path}: a row of the profile has a negative or non-finite count or time")
    unknown = sorted({row.symbol for row in rows} - set(manifest["ops"]))
    if unknown:
        raise PictureError(
            f"{path} times Ops this build of {package} does not have ({', '.join(unknown[:3])}"
            f"{', ...' if len(unknown) > 3 else ''}): it was saved from another build; profile this one"
        )
    return Profile(package, rows)


def graph_total(profile: Profile, manifest: dict[str, Any], graph: str) -> Row | None:
    """A graph's own total, if it ran: the rows of its entries together (each signature's, each
    ufunc loop's variant is timed as a whole by the entry that calls it)."""
    return _total(profile, graph, entry_symbols(manifest["graphs"][graph]))


def _total(profile: Profile, graph: str, entries: set[str]) -> Row | None:
    scope = f"graph {graph}"
    rows = [row for row in profile.rows if row.scope == scope and row.symbol in entries]
    if not rows:
        return None
    calls, seconds = sum(row.calls for row in rows), sum(row.seconds for row in rows)
    return Row(scope, rows[0].symbol if len(rows) == 1 else "", f"graph {graph}", calls, seconds)


def box_timings(picture: Picture, profile: Profile, manifest: dict[str, Any]) -> dict[str, Timing]:
    """The time of each box of ``picture`` that a row of ``profile`` times, by box id."""
    rows = {(row.scope, row.symbol): row for row in profile.rows}
    total = graph_total(profile, manifest, picture.name)
    if total is None:
        raise PictureError(
            f"the profile has no call of {picture.name!r}: call it inside `with pkg.profile() as report:` "
            "before report.save()"
        )
    timed = [box for box in picture.boxes if (box.scope, box.symbol) in rows]
    sharing = Counter((box.scope, box.symbol) for box in timed)
    timings = {}
    for box in timed:
        row = rows[(box.scope, box.symbol)]
        share = row.seconds / total.seconds if total.seconds else 0.0
        timings[box.id] = Timing(row.seconds, row.calls, share, sharing[(box.scope, box.symbol)])
    return timings


def shown_time(timing: Timing) -> str:
    together = f" (its {timing.boxes} boxes together)" if timing.boxes > 1 else ""
    return f"{format_seconds(timing.seconds)} · {100 * timing.share:.1f}% · {timing.calls} call(s){together}"


def format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.2f} {unit}"
    return f"{seconds * 1e9:.0f} ns"


def heat(share: float) -> str:
    """A fill colour from pale yellow (no time) to red (all of it)."""
    share = min(max(share, 0.0), 1.0)
    low, high = (255, 247, 205), (239, 68, 68)
    red, green, blue = (round(a + (b - a) * share**0.6) for a, b in zip(low, high, strict=True))
    return f"#{red:02x}{green:02x}{blue:02x}"


def per_scope(
    profile: Profile, manifest: dict[str, Any], only: str | None = None
) -> list[tuple[str, Row | None, list[Row]]]:
    """Each scope's total row (a graph's own time; None for subgraphs and regions) and its Op
    rows, slowest first; ``only``: the graph of that name alone."""
    sections = []
    for scope in profile.scopes():
        if only is not None and scope != f"graph {only}":
            continue
        graph = scope.removeprefix("graph ") if scope.startswith("graph ") else None
        record = manifest["graphs"].get(graph) if graph is not None else None
        entries = entry_symbols(record) if record is not None else set()
        total = _total(profile, graph, entries) if graph is not None and record is not None else None
        rows = [row for row in profile.rows if row.scope == scope and row.symbol not in entries]
        sections.append((scope, total, sorted(rows, key=lambda row: (-row.seconds, row.symbol))))
    if only is not None and not sections:
        raise PictureError(f"the profile has no call of {only!r}")
    return sections


def share_of(row: Row, total: Row | None, rows: list[Row]) -> float:
    """``row``'s share of its scope: of the graph's total, else of the scope's rows together."""
    whole = total.seconds if total is not None else sum(each.seconds for each in rows)
    return row.seconds / whole if whole else 0.0
