"""Rewriting inside subgraphs: a call's graph goes through the pass once, under a new key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..graph import Graph
from ..graph.calls import Call


def rewritten_call(
    op: Call, done: dict[str, Graph], run: Callable[[Graph, dict[str, Graph]], Graph], name: str
) -> Call:
    """``op`` calling its subgraph after the pass ``run`` (named ``name``); each subgraph is
    rewritten once per pass (``done``). The pass is part of the call's key: hash-consing ignores
    the graph itself, so without it the rewritten call would be the old node."""
    inner = done.get(op.key)
    if inner is None:
        inner = done[op.key] = run(op.graph, done)
    return replace(op, graph=inner, rewritten=(*op.rewritten, name))
