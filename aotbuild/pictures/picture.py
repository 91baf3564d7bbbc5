"""What a picture of a graph shows, before it is drawn: boxes, the values between them, clusters.

Frozen data, built by :mod:`.dataflow` from a package's files and drawn by :mod:`.dot`. Every
box that stands for a compiled Op carries its symbol, so that a picture can be coloured by a
profile (whose rows are keyed by the calling module's scope and the callee's symbol) and a test
can check that every Op of a graph is in its picture.
"""

from __future__ import annotations

from dataclasses import dataclass

#: What a box stands for; :mod:`.dot` gives each its shape and colour.
KINDS = (
    "parameter",  # an argument of the graph (or of a subgraph or region, inside its cluster)
    "result",  # what the graph returns, or an argument it writes into
    "op",  # a compiled Op called by declaration (or compiled into a kernel's region)
    "kernel",  # a kernel: the code as written, calling its traced regions
    "external",  # another package's graph, called by declaration
    "scalar",  # scalar arithmetic or a shape the entry computes itself, without an Op
    "constant",  # a constant an entry passes to a callee
    "stack",  # a small array filled on the region's stack
)


@dataclass(frozen=True)
class Box:
    id: str
    """Unique in the picture (Graphviz node name, SVG element id)."""

    kind: str
    """One of :data:`KINDS`."""

    heading: str
    """What it is, in a few words: ``fused add·tanh``, ``matmul``, ``x``, ``+``."""

    lines: tuple[str, ...] = ()
    """Further lines: input and output types, a source line."""

    symbol: str = ""
    """The compiled Op's symbol, where the box is one."""

    scope: str = ""
    """The profile scope of the module that makes the call (``graph NAME``, ``subgraph F``,
    ``region F``): a profile's row for this box is (scope, symbol)."""

    tooltip: str = ""
    """The whole story (title and symbol), shown on hover."""


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    label: str = ""
    calls: bool = False
    """A call (a kernel reaching its region), not a value flowing."""


@dataclass(frozen=True)
class Cluster:
    id: str
    label: str
    boxes: tuple[str, ...]
    """The ids of the boxes drawn inside it (nested clusters list theirs themselves)."""

    clusters: tuple[Cluster, ...] = ()
    symbol: str = ""
    """The subgraph's or region's own symbol: its module is an Op of the graph too."""


@dataclass(frozen=True)
class Picture:
    name: str
    title: str
    boxes: tuple[Box, ...]
    edges: tuple[Edge, ...]
    clusters: tuple[Cluster, ...]
    top: tuple[str, ...]
    """The boxes outside every cluster."""

    symbols: tuple[str, ...]
    """Every compiled Op the picture shows (boxes and clusters), sorted."""
