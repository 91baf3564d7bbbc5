"""A picture as Graphviz DOT text: boxes by kind, values as edges labelled with their types,
subgraphs and regions as clusters; with a profile, each timed Op coloured by its share.

DOT is plain text that needs nothing installed to write; :mod:`.graphviz` lays it out. The text
is deterministic: the same picture gives the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape

from .picture import Box, Cluster, Picture
from .timings import Timing, heat, shown_time

FONT = "Helvetica,Arial,sans-serif"

#: Graphviz attributes of each kind of box.
STYLES = {
    "parameter": 'shape=box style="rounded,filled" fillcolor="#dbeafe" color="#3b82f6"',
    "result": 'shape=box style="rounded,filled" fillcolor="#dcfce7" color="#16a34a"',
    "op": 'shape=box style="filled" fillcolor="#f8fafc" color="#475569"',
    "kernel": 'shape=box style="filled,bold" fillcolor="#fef3c7" color="#b45309"',
    "external": 'shape=box style="dashed,filled" fillcolor="#f3e8ff" color="#7e22ce"',
    "scalar": 'shape=ellipse style="filled" fillcolor="#f1f5f9" color="#94a3b8" fontsize=10',
    "constant": 'shape=plaintext fontsize=10 fontcolor="#475569"',
    "stack": 'shape=box3d style="filled" fillcolor="#e0f2fe" color="#0369a1"',
}


def picture_dot(picture: Picture, timings: Mapping[str, Timing] | None = None) -> str:
    """The DOT text of ``picture``; ``timings`` (by box id) colours and annotates timed Ops."""
    timings = timings or {}
    title = _quoted(picture.title)
    lines = [
        f"digraph {_quoted(picture.name)} {{",
        f"  graph [label={title} labelloc=t fontname={_quoted(FONT)} fontsize=14 rankdir=TB "
        'nodesep=0.3 ranksep=0.35 bgcolor="white"];',
        f'  node [fontname={_quoted(FONT)} fontsize=11 margin="0.12,0.05"];',
        f'  edge [fontname={_quoted(FONT)} fontsize=9 fontcolor="#64748b" color="#64748b" arrowsize=0.7];',
    ]
    boxes = {box.id: box for box in picture.boxes}
    lines += [_node(boxes[ident], timings.get(ident), "  ") for ident in picture.top]
    for rank, kind in (("min", "parameter"), ("max", "result")):  # parameters on top, results below
        ends = [_quoted(ident) for ident in picture.top if boxes[ident].kind == kind]
        if ends:
            lines.append(f"  {{rank={rank}; {'; '.join(ends)};}}")
    for cluster in picture.clusters:
        lines += _cluster(cluster, boxes, timings, "  ")
    for edge in picture.edges:
        attributes = [f"label={_quoted(edge.label)}"] if edge.label else []
        if edge.calls:
            attributes += ["style=dashed", 'color="#b45309"', 'fontcolor="#b45309"']
        shown = f" [{' '.join(attributes)}]" if attributes else ""
        lines.append(f"  {_quoted(edge.source)} -> {_quoted(edge.target)}{shown};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _cluster(
    cluster: Cluster, boxes: dict[str, Box], timings: Mapping[str, Timing], indent: str
) -> list[str]:
    lines = [
        f"{indent}subgraph {_quoted(cluster.id)} {{",
        f'{indent}  label={_quoted(cluster.label)} id={_quoted(cluster.id)} style="rounded,dashed" '
        f'color="#94a3b8" fontsize=11 fontcolor="#334155";',
    ]
    if cluster.symbol:
        lines.append(f"{indent}  tooltip={_quoted(cluster.symbol)};")
    lines += [_node(boxes[ident], timings.get(ident), indent + "  ") for ident in cluster.boxes]
    for inner in cluster.clusters:
        lines += _cluster(inner, boxes, timings, indent + "  ")
    lines.append(f"{indent}}}")
    return lines


def _node(box: Box, timing: Timing | None, indent: str) -> str:
    rows = [f"<b>{escape(box.heading)}</b>"]
    rows += [f'<font point-size="9">{escape(line)}</font>' for line in box.lines if line]
    style = STYLES[box.kind]
    if timing is not None:
        rows.append(f'<font point-size="10"><b>{escape(shown_time(timing))}</b></font>')
        style = re.sub(r'fillcolor="[^"]*"', f'fillcolor="{heat(timing.share)}"', style)
    tooltip = box.tooltip or box.heading
    classes = f"{box.kind} timed" if timing is not None else box.kind
    return (
        f"{indent}{_quoted(box.id)} [id={_quoted(box.id)} class={_quoted(classes)} {style} "
        f"tooltip={_quoted(tooltip)} label=<{'<br/>'.join(rows)}>];"
    )


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
