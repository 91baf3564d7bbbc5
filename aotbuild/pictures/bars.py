"""A saved profile as horizontal bars: per graph (then per subgraph and region), each Op's time,
slowest first, its bar as long as its share. Plain SVG written here: nothing to install."""

from __future__ import annotations

from html import escape
from typing import Any

from .dot import FONT
from .timings import Profile, Row, format_seconds, heat, per_scope, share_of

WIDTH = 980
LABEL = 470  # where the bars start
BAR = 330  # a whole bar (100%)
LINE = 20


def profile_bars(profile: Profile, manifest: dict[str, Any], only: str | None = None) -> str:
    """The SVG text of the chart (every scope, or graph ``only``)."""
    body: list[str] = []
    y = 34
    body.append(_text(12, 22, f"{profile.package}: time per Op (saved profile)", size=16, bold=True))
    for scope, total, rows in per_scope(profile, manifest, only):
        y += 14
        heading = scope
        if total is not None:
            each = total.seconds / total.calls if total.calls else 0.0
            heading += f": {total.calls} call(s), {format_seconds(total.seconds)} in all, "
            heading += f"{format_seconds(each)} per call"
        body.append(_text(12, y + 14, heading, size=13, bold=True))
        y += LINE + 4
        shares = [share_of(row, total, rows) for row in rows]
        longest = max(shares, default=0.0) or 1.0
        for row, share in zip(rows, shares, strict=True):
            body += _bar(row, share, share / longest, y)
            y += LINE
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y + 16}" '
        f'viewBox="0 0 {WIDTH} {y + 16}" font-family="{FONT}">\n'
        f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n"
    )


def _bar(row: Row, share: float, length_share: float, y: int) -> list[str]:
    """One Op's bar: ``length_share`` of the longest bar (the slowest Op's is whole)."""
    title = row.title if len(row.title) <= 68 else row.title[:67] + "…"
    length = max(1.0, BAR * min(length_share, 1.0))
    tooltip = f"{row.title}\n{row.symbol}\n{row.calls} call(s), {format_seconds(row.seconds)}"
    return [
        f'<g class="bar" id="bar-{escape(row.scope.replace(" ", "-"))}-{escape(row.symbol)}">',
        f"<title>{escape(tooltip)}</title>",
        _text(22, y + 14, title, size=11),
        f'<rect x="{LABEL}" y="{y + 3}" width="{length:.1f}" height="{LINE - 6}" fill="{heat(share)}" '
        'stroke="#b91c1c" stroke-width="0.5"/>',
        _text(
            LABEL + BAR + 10,
            y + 14,
            f"{100 * share:5.1f}%  {format_seconds(row.seconds)}  ({row.calls}×)",
            size=11,
        ),
        "</g>",
    ]


def _text(x: float, y: float, text: str, size: int, bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return f'<text x="{x}" y="{y}" font-size="{size}"{weight} fill="#0f172a">{escape(text)}</text>'
