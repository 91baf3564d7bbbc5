"""Elementwise fusion: a tree of elementwise Ops becomes one :class:`~aotbuild.graph.fused.Fused` Op.

Op by Op, ``np.sin((b - a) / 2) ** 2`` makes a temporary array per step and calls an Op per
step, as NumPy does. Fused, it is one loop over the result's shape with the scalar code of every
step in its body. An elementwise node joins the Op that consumes it when

* the consumer is elementwise too, and the node's only consumer in the graph (a value two Ops
  use, or one that is returned, is computed once and stored; ``d * d`` has one consumer) —
  except one cheap step of a stored array and scalars (``-1.0 * g``), computed again in each
  loop that reads it (:func:`_recomputed`);
* it has the consumer's dimensions: a value of fewer dimensions, broadcast up, would be computed
  once per element of the result instead of once per element of its own (scalar code such as
  ``np.log(sigma)`` stays a scalar Op computed once).

A reduction of such a value (``np.sum((x - y) ** 2)``) becomes a :class:`FusedReduce`: the value
is computed element by element as it is reduced, in the order the reduction reads it, so the
sum — pairwise, as NumPy's — is the same as over the stored temporary. A value computed with
vector math (``np.exp``, ``np.sin``, ...) is stored instead, by its own vectorised loop; so it is
when its consumer calls vector math itself (one such function per loop along a chain).

A gather by constant indices (``effect[county]``, a 1-d array read at indices known when
compiling) joins the elementwise Op that consumes it the same way: its step reads the source at
the index of the loop's position, with no temporary and no loop of its own (the radon model's
gradient gathers 85 county values into 919 rows twice a call). The indices' largest entry is
checked against the source's length once, before the loop. A gather whose value is reduced stays
an Op of its own: read at indices inside the reduction's loop, it kept LLVM from vectorising that
loop, which cost more than the gather's own loop and temporary (a sum of squared scaled
differences over 10^5 values, one gathered: 228 against 213 us; the radon log-density 5.06
against 4.95 us).

Each step computes what its original Op computed, in the same order and dtypes, so fused and
unfused results are the same bit for bit; broadcasting errors are NumPy's, since the fused loop
checks the broadcast of all inputs, which fails exactly when one of the steps' would.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..graph import Constant, Elementwise, Graph, Node, Reduce
from ..graph.array_ops import Gather, Roll
from ..graph.calls import Call
from ..graph.fused import ROLL, TAKE, Fused, FusedReduce, FusedStep
from ..graph.ops import TRANSCENDENTAL
from ..graph.shapes import largest_index
from .calls import rewritten_call


def fuse_graph(graph: Graph, done: dict[str, Graph] | None = None) -> Graph:
    """``graph`` with its elementwise trees fused (subgraphs too, each once)."""
    done = {} if done is None else done
    nodes = graph.nodes()
    # Uses by distinct consumers: ``d * d`` reads ``d`` twice but computes it once either way.
    uses: Counter[int] = Counter(id(item) for node in nodes for item in set(node.inputs))
    uses.update(id(node) for node in graph.outputs)
    absorbed = {
        id(item)
        for node in nodes
        if isinstance(node.op, (Elementwise, Reduce))
        for item in node.inputs
        if _joins(item, node, uses)
    }
    absorbed |= _joining_loops(nodes, absorbed, uses, _gather_joins)
    absorbed |= _joining_loops(nodes, absorbed, uses, _roll_joins)
    absorbed |= _recomputed(nodes, uses, graph.outputs)
    rebuilt: dict[int, Node] = {}
    for node in nodes:
        if id(node) in absorbed:
            continue  # computed inside its consumer's loop
        if isinstance(node.op, Elementwise) and any(id(item) in absorbed for item in node.inputs):
            rebuilt[id(node)] = _fused(node, absorbed, rebuilt)
            continue
        if isinstance(node.op, Reduce) and id(node.inputs[0]) in absorbed:
            producer = _fused(node.inputs[0], absorbed, rebuilt)
            assert isinstance(producer.op, Fused)
            kind, axes, keepdims, dtype = node.op.kind, node.op.axes, node.op.keepdims, node.op.out_dtype
            reduce = FusedReduce(kind, axes, keepdims, dtype, producer.op.steps)
            rebuilt[id(node)] = Node.make(reduce, producer.inputs)
            continue
        op = node.op
        if isinstance(op, Call):
            op = rewritten_call(op, done, fuse_graph, "fuse-elementwise")
        rebuilt[id(node)] = Node.make(op, tuple(rebuilt[id(item)] for item in node.inputs))
    return replace(graph, outputs=tuple(rebuilt[id(node)] for node in graph.outputs))


def _joins(item: Node, consumer: Node, uses: Counter[int]) -> bool:
    ndim = getattr(item.type, "ndim", 0)
    if not (isinstance(item.op, Elementwise) and uses[id(item)] == 1 and ndim > 0):
        return False
    if isinstance(consumer.op, Reduce):
        # A reduction reads its one input element by element: it is the input's shape by
        # definition. Vector math stays out: a reduction's loops hold several copies of its
        # value's code, and LLVM took minutes over those of pow; stored, it is one vectorised loop.
        return not _transcendental(item, uses)
    if _transcendental(item, uses) and _vector_math(consumer.op) and not _scalar_power(consumer):
        # One vector-math function per loop along a chain: exp then log in one loop ran 1.65x
        # the time of two loops (438 against 129 + 136 us over 10^5 float64: LLVM vectorises
        # the long body worse), and the stored temporary costs less than that.
        return False
    return ndim == getattr(consumer.type, "ndim", 0)


#: Elementwise functions cheap enough to compute again in each loop that reads their value.
CHEAP = frozenset({"add", "subtract", "multiply", "negative", "positive"})


def _recomputed(nodes: list[Node], uses: Counter[int], outputs: tuple[Node, ...]) -> set[int]:
    """One cheap step of one array and scalars (``-1.0 * g``, ``x + 1``) whose value several
    elementwise loops or reductions read, computed again in each of them rather than stored:
    each loop then reads the array instead of the temporary, and the temporary's allocation,
    writing and reading back are saved (the radon gradient's ``-1.0 * d`` feeds a loop and a
    sum). A step of two arrays stays stored (recomputed, it would read both in each loop: the
    radon gradient by hand took 6% longer), and so does one whose array dies at the step, which
    then writes into it in place (no allocation to save). The array is one that is stored (read
    by other Ops too), so no chain is computed twice. Same step, same operands: the same bits."""
    consumers: dict[int, list[Node]] = {}
    for node in nodes:
        for item in set(node.inputs):
            consumers.setdefault(id(item), []).append(node)
    kept = {id(node) for node in outputs}
    chosen = set()
    for node in nodes:
        ndim = getattr(node.type, "ndim", 0)
        if (
            uses[id(node)] < 2
            or id(node) in kept
            or not isinstance(node.op, Elementwise)
            or node.op.fn not in CHEAP
            or ndim == 0
            or sum(1 for i in node.inputs if getattr(i.type, "ndim", 0)) != 1
        ):
            continue
        (array,) = (i for i in node.inputs if getattr(i.type, "ndim", 0))
        if uses[id(array)] < 2 or id(array) in chosen:
            # dies here: stored, the step writes into it, no allocation to save; or computed
            # again itself (a chain is never computed twice)
            continue
        readers = consumers.get(id(node), [])
        if readers and all(
            isinstance(reader.op, Reduce)
            or (isinstance(reader.op, Elementwise) and getattr(reader.type, "ndim", 0) == ndim)
            for reader in readers
        ):
            chosen.add(id(node))
    return chosen


def _joining_loops(
    nodes: list[Node], absorbed: set[int], uses: Counter[int], joins: Callable[[Node, Node], bool]
) -> set[int]:
    """The nodes read at other positions than the loop's (gathers, rolls) that join the loop of
    the elementwise Op consuming them: ``joins(node, consumer)``, one consumer, and a loop that is
    stored, not reduced (a reduction's element functions read every input at the loop's index)."""
    consumer: dict[int, Node] = {}
    for node in nodes:
        for item in node.inputs:
            consumer.setdefault(id(item), node)
    joining = set()
    for node in nodes:
        if uses[id(node)] != 1 or id(node) not in consumer:
            continue
        root = consumer[id(node)]
        if not (isinstance(root.op, Elementwise) and joins(node, root)):
            continue
        while id(root) in absorbed:  # the loop it ends up in
            root = consumer[id(root)]
        if isinstance(root.op, Elementwise):
            joining.add(id(node))
    return joining


def _gather_joins(node: Node, consumer: Node) -> bool:
    """A gather by constant indices joins a 1-d loop (see :func:`_gathered_by_constant`)."""
    return _gathered_by_constant(node) and getattr(consumer.type, "ndim", 0) == 1


def _roll_joins(node: Node, consumer: Node) -> bool:
    """An ``np.roll`` by constants joins a loop of its own dimensions: the loop reads its input
    at rolled positions (the rows of a rolled axis in two runs where no input broadcasts)."""
    return isinstance(node.op, Roll) and getattr(consumer.type, "ndim", 0) == node.type.ndim  # type: ignore[union-attr]


def _gathered_by_constant(node: Node) -> bool:
    """``source[indices]``, 1-d, the indices a 1-d constant of non-negative integers."""
    op = node.op
    if not (isinstance(op, Gather) and op.axis == 0 and op.count == 1):
        return False
    source, indices = node.inputs
    if getattr(source.type, "ndim", 0) != 1 or not isinstance(indices.op, Constant):
        return False
    values = indices.op.value.array
    return values.ndim == 1 and largest_index(values) is not None


def _scalar_power(node: Node) -> bool:
    """``x ** 2``-style: a power with a scalar exponent, whose common cases are a multiply."""
    return (
        isinstance(node.op, Elementwise)
        and node.op.fn == "power"
        and not getattr(node.inputs[1].type, "ndim", 0)
    )


def _vector_math(op: object) -> bool:
    """Whether an elementwise op's float loop runs a vector math function itself."""
    if not isinstance(op, Elementwise):
        return False
    kind = np.dtype(op.in_dtypes[0]).kind if op.in_dtypes else ""
    return (op.fn in TRANSCENDENTAL and kind in ("f", "c")) or (op.fn == "absolute" and kind == "c")


def _transcendental(item: Node, uses: Counter[int]) -> bool:
    """Whether ``item``, or an elementwise node fused into it, computes a float transcendental."""
    if not isinstance(item.op, Elementwise):
        return False
    if _vector_math(item.op):
        return True
    return any(_joins(inner, item, uses) and _transcendental(inner, uses) for inner in item.inputs)


def _fused(root: Node, absorbed: set[int], rebuilt: dict[int, Node]) -> Node:
    """The Fused node computing ``root`` and every node absorbed into it (``root`` may itself be
    absorbed, into a reduction)."""
    inputs: list[Node] = []
    input_index: dict[tuple[object, int], int] = {}
    steps: list[tuple[Node, tuple[tuple[str, int], ...]]] = []
    step_index: dict[int, int] = {}

    def visit(node: Node, read: object = None) -> tuple[str, int]:
        """("input", i) or ("step", j) for ``node``, adding what it needs, inputs first seen first.
        ``read``: how an input is read — None at the loop's position; ``"gathered"``, the source
        of a gather, at indices; a roll's shifts, at rolled positions — each an input of its own,
        even where the same array is read at the loop's position too."""
        if node is root or id(node) in absorbed:
            if id(node) not in step_index:
                args: tuple[tuple[str, int], ...]
                if isinstance(node.op, Gather):
                    args = (visit(node.inputs[0], "gathered"), visit(node.inputs[1]))
                elif isinstance(node.op, Roll):
                    args = (visit(node.inputs[0], node.op.shifts),)
                else:
                    args = tuple(visit(item) for item in node.inputs)
                step_index[id(node)] = len(steps)
                steps.append((node, args))
            return ("step", step_index[id(node)])
        if (read, id(node)) not in input_index:
            input_index[(read, id(node))] = len(inputs)
            inputs.append(rebuilt[id(node)])
        return ("input", input_index[(read, id(node))])

    visit(root)
    count = len(inputs)
    fused_steps = []
    for node, args in steps:
        op = node.op
        assert isinstance(op, (Elementwise, Gather, Roll))
        dtypes = tuple(item.type.dtype for item in node.inputs)  # type: ignore[union-attr]
        fused_steps.append(
            FusedStep(
                fn=op.fn if isinstance(op, Elementwise) else TAKE if isinstance(op, Gather) else ROLL,
                in_dtypes=op.in_dtypes if isinstance(op, Elementwise) else dtypes,
                out_dtype=op.out_dtype if isinstance(op, Elementwise) else dtypes[0],
                args=tuple(index if kind == "input" else count + index for kind, index in args),
                ndims=tuple(getattr(item.type, "ndim", 0) for item in node.inputs),
                shifts=op.shifts if isinstance(op, Roll) else (),
            )
        )
    return Node.make(Fused(tuple(fused_steps)), tuple(inputs))
