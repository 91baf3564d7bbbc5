"""Rewriting inside subgraphs: a call's graph goes through the pass once, under a new key."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from ..graph import Graph, Node
from ..graph.calls import Call

#: How a pass changes one node: ``rewrite(new, old, uses, rebuilt)`` gets the node rebuilt on its
#: rewritten inputs (``new``), the node it stands for (``old``), how many distinct consumers each
#: old node has (outputs count as one), and the new node of each old one so far (by ``id``).
NodeRewrite = Callable[[Node, Node, Counter[int], dict[int, Node]], Node]


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


def node_by_node(
    graph: Graph,
    done: dict[str, Graph] | None,
    run: Callable[[Graph, dict[str, Graph]], Graph],
    name: str,
    rewrite: NodeRewrite,
) -> Graph:
    """``graph`` rebuilt in dependency order by the pass ``run`` (named ``name``), each node on
    its rewritten inputs and then through ``rewrite``; subgraph calls on their subgraph rewritten
    once (:func:`rewritten_call`)."""
    done = {} if done is None else done
    nodes = graph.nodes()
    uses: Counter[int] = Counter(id(item) for node in nodes for item in set(node.inputs))
    uses.update(id(node) for node in graph.outputs)
    rebuilt: dict[int, Node] = {}
    for node in nodes:
        op = node.op
        if isinstance(op, Call):
            op = rewritten_call(op, done, run, name)
        new = Node.make(op, tuple(rebuilt[id(item)] for item in node.inputs))
        rebuilt[id(node)] = rewrite(new, node, uses, rebuilt)
    return replace(graph, outputs=tuple(rebuilt[id(node)] for node in graph.outputs))
