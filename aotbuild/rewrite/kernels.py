"""Rewriting inside kernels: the graphs of a kernel's traced regions go through each pass too.

A kernel is one Op whose unit (:class:`~aotbuild.trace.kernels.KernelUnit`) holds the graphs its
array statements were traced into (:mod:`aotbuild.trace.regions`), and its helpers' units hold
theirs. Each pass rewrites those graphs (each unit once per pass); the unit's key, and so the
kernel node's, follows its graphs' keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..graph import Graph, Kernel, Node

Run = Callable[[Graph, dict[str, Any]], Graph]
"""A pass: a graph and the subgraphs (and kernel units) it has rewritten -> the graph rewritten."""


def rewritten_kernels(graph: Graph, run: Run, done: dict[str, Any]) -> Graph:
    """``graph`` with every kernel's regions (and its helpers') rewritten by ``run``."""
    if not any(isinstance(node.op, Kernel) for node in graph.outputs):
        return graph
    outputs = tuple(
        _kernel_node(node, run, done) if isinstance(node.op, Kernel) else node for node in graph.outputs
    )
    return replace(graph, outputs=outputs)


def _kernel_node(node: Node, run: Run, done: dict[str, Any]) -> Node:
    op = node.op
    assert isinstance(op, Kernel)
    unit = _unit(op.unit, run, done)
    if unit is op.unit:
        return node
    return Node.make(replace(op, source_key=unit.key, unit=unit), node.inputs)


def _unit(unit: Any, run: Run, done: dict[str, Any]) -> Any:
    memo = f"kernel unit {unit.key}"
    if memo in done:
        return done[memo]
    helpers = tuple((name, tuple(_unit(v, run, done) for v in variants)) for name, variants in unit.helpers)
    regions = tuple((name, tuple(run(g, done) for g in graphs)) for name, graphs in unit.regions)
    changed = any(
        a is not b
        for (_, old), (_, new) in zip(unit.helpers + unit.regions, helpers + regions, strict=True)
        for a, b in zip(old, new, strict=True)
    )
    result = replace(unit, helpers=helpers, regions=regions) if changed else unit
    done[memo] = result
    return result
