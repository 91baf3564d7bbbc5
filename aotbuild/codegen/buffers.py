"""Memory planning: which Ops write their result into an input that dies with them.

``z[index] = value`` (``SetIndex``, ``SetGather``, ``SetMask``) is a functional update: a new
array. When ``z`` is a temporary of the graph that dies there (an array built by ``np.zeros`` and
filled by slice assignments, say), the update writes into ``z`` instead: one allocation for the
whole build, no copy per assignment.

Elementwise Ops:

A chain of Ops that fusion cannot merge (steps separated by reductions or gathers) makes an array
per step. numba frees each after its last use, so the chain's peak is already bounded, at two arrays:
the step's input and its result. When an elementwise Op's input is a temporary that dies at that
Op and has the Op's exact type, the Op writes into it instead (NumPy's temporary elision does the
same): one array less to allocate and page in per step, and the chain's peak is one array. The
Op compares the input's shape with its result's at run time (broadcasting can widen the result)
and allocates as usual when they differ.

A kernel's region (:mod:`aotbuild.trace.regions`) writes into arrays of the kernel (``out[r, :] =
...``): the updates of such an array (``graph.writes``) are done in place, into the array itself,
when every read of it or of a view of it comes before the update and the update's value and
indices are not views of it (``u[1:] = u[:-1]`` would read what it writes). Otherwise the update
makes a new array, which :func:`written_in_place` tells the entry to copy into the caller's.

Writing into a buffer is safe when nothing else can see it: it was made fresh by an Op of this
graph (not an argument, a constant or an output of the graph) and no Op whose result may share
its memory (a view, a kernel, a subgraph call) ever reads it. An elementwise loop reads an element
before it writes the same element, so the buffer may be one of the loop's inputs.

It is fast only when the Op's other inputs are scalars. The loop then reads and writes one array
at the same index (the generated module reads the input through ``out``), which LLVM vectorises.
With another array beside it, LLVM must assume the two may overlap: it keeps values that depend
on that array (a per-row ``sqrt`` of a broadcast standard deviation, say) inside the inner loop
and may not vectorise, measured up to 15x slower than writing a new array. So those Ops allocate.
"""

from __future__ import annotations

from ..graph import Argument, Dim, Elementwise, Graph, Node, Reduce, Size
from ..graph.array_ops import (
    ArgSort,
    Bincount,
    Expr,
    Gather,
    MaskSelect,
    Pack,
    Roll,
    Scan,
    SetGather,
    SetIndex,
    SetMask,
)
from ..graph.fused import Fused, FusedReduce
from ..graph.linalg_ops import Einsum, MatMul
from ..graph.updates import FusedSetIndex, FusedSetMask
from ..types import Array

#: Ops whose array result is always a new allocation, and which keep no reference to their inputs.
FRESH = (
    Elementwise,
    Fused,
    Reduce,
    FusedReduce,
    Gather,
    MaskSelect,
    Pack,
    Roll,
    Scan,
    Einsum,
    MatMul,
    ArgSort,
    Bincount,
    SetIndex,
    SetGather,
    SetMask,
    FusedSetIndex,
    FusedSetMask,
)
#: ``Expr`` functions (NumPy's, as numba implements them) whose result is a new array.
FRESH_EXPRESSIONS = frozenset(
    {
        "zeros",
        "ones",
        "empty",
        "full",
        "zeros_like",
        "arange",
        "linspace",
        "eye",
        "concatenate",
        "sort",
    }
    | {f"linalg_{name}" for name in ("solve", "inv", "cholesky")}
)
#: Ops that read an array's shape only.
SHAPE_READERS = (Dim, Size)
#: Ops that can write their result into an input (``inplace=`` in their renderers).
WRITES_IN_PLACE = (Elementwise, Fused)
#: Ops ``z[index] = value`` that can write into their base ``z`` (their first input).
UPDATES_IN_PLACE = (SetIndex, SetGather, SetMask, FusedSetIndex, FusedSetMask)


def makes_new_array(node: Node) -> bool:
    """Whether ``node``'s Op always returns a new array (never a view of its inputs)."""
    return _fresh(node) and isinstance(node.type, Array)


def _fresh(node: Node) -> bool:
    if isinstance(node.op, Expr):
        return node.op.fn in FRESH_EXPRESSIONS
    return isinstance(node.op, FRESH)


def inplace_inputs(graph: Graph) -> dict[str, Node]:
    """For each Op (by node key) that writes into a dying input, that input."""
    order = graph.nodes()
    position = {node.key: index for index, node in enumerate(order)}
    last_use: dict[str, int] = {}
    private: dict[str, bool] = {}
    for node in order:
        private[node.key] = _fresh(node) and isinstance(node.type, Array)
        for item in node.inputs:
            last_use[item.key] = position[node.key]
            if not (_fresh(node) or isinstance(node.op, SHAPE_READERS)):
                private[item.key] = False
    for output in graph.outputs:
        private[output.key] = False
    destinations = _destination_updates(graph, order, position)
    returned = {output.key for output in graph.outputs}
    chosen: dict[str, Node] = {}
    for node in order:
        if isinstance(node.op, UPDATES_IN_PLACE):
            base = node.inputs[0]
            if node.key in destinations:
                chosen[node.key] = base
                continue
            if (
                isinstance(node.op, (FusedSetIndex, FusedSetMask))
                and _fresh(base)
                and base.key not in returned
                and _writable_here(node, order, position)
            ):
                chosen[node.key] = base  # its only other reader: what it reads as it writes
                continue
            if (
                private[base.key]
                and base.type == node.type
                and last_use[base.key] == position[node.key]
                and sum(item is base for item in node.inputs) == 1
            ):
                chosen[node.key] = base
            continue
        if not isinstance(node.op, WRITES_IN_PLACE) or not isinstance(node.type, Array):
            continue
        for item in node.inputs:
            others = [other for other in node.inputs if other is not item]
            if (
                private[item.key]
                and item.type == node.type
                and last_use[item.key] == position[node.key]
                and all(other.type.ndim == 0 for other in others)  # type: ignore[union-attr]
            ):
                chosen[node.key] = item
                break
    return chosen


def _views(node: Node, order: list[Node]) -> set[str]:
    """Keys of ``node`` and of every node whose result may share its memory (views of views...)."""
    shared = {node.key}
    for item in order:
        if isinstance(item.type, Array) and not _fresh(item) and any(i.key in shared for i in item.inputs):
            shared.add(item.key)
    return shared


def _destination_updates(graph: Graph, order: list[Node], position: dict[str, int]) -> set[str]:
    """The updates of the arrays a region writes into that can write into their base: each link
    of the chain from the caller's array to its final value whose base, and every view of it, is
    read before the update, and whose value and indices are not views of that base (see the
    module docstring)."""
    found: set[str] = set()
    written = graph.outputs[len(graph.outputs) - len(graph.writes) :]
    for final in written:
        chain = []
        node = final
        while isinstance(node.op, UPDATES_IN_PLACE):
            chain.append(node)
            node = node.inputs[0]
        if not chain or not isinstance(node.op, Argument):
            continue
        found |= {update.key for update in chain if _writable_here(update, order, position)}
    return found


def _writable_here(update: Node, order: list[Node], position: dict[str, int]) -> bool:
    """Whether ``update`` may write into its base: the base and every view of it are read before
    the update (but for the slice a fused update reads at the element it writes), and the
    update's value and indices are not views of the base."""
    base = update.inputs[0]
    shared = _views(base, order)
    op = update.op
    target = None
    if isinstance(op, FusedSetIndex) and op.target >= 0:
        target = update.inputs[1 + op.indices + op.target]
    readers = [
        item
        for item in order
        if item is not update and item is not target and any(i.key in shared for i in item.inputs)
    ]
    if any(position[item.key] > position[update.key] for item in readers):
        return False
    if target is not None and any(
        position[reader.key] > position[update.key] for reader in _readers(target, order)
    ):
        return False
    return not any(item.key in shared for item in update.inputs[1:] if item is not target)


def _readers(node: Node, order: list[Node]) -> list[Node]:
    return [item for item in order if any(i is node for i in item.inputs)]


def written_in_place(graph: Graph, inplace: dict[str, Node]) -> tuple[bool, ...]:
    """For each array the graph writes into (``graph.writes``), whether its last update wrote
    into it (through a chain of in-place updates), or made a new array to copy into it."""
    written = graph.outputs[len(graph.outputs) - len(graph.writes) :]
    result = []
    for position, final in zip(graph.writes, written, strict=True):
        node = final
        while node.key in inplace:
            node = inplace[node.key]
        result.append(isinstance(node.op, Argument) and node.op.position == position)
    return tuple(result)


def stack_arrays(graph: Graph, inplace: dict[str, Node]) -> set[str]:
    """The small arrays of fixed size (``np.array([fx, fy])``: a :class:`Pack` of scalars) a
    kernel's region can make in its own stack frame rather than on the heap: those whose memory
    never leaves the graph — no output is one of them, a view of one, or an update written into
    one. A region's Ops are compiled into its one function, so the frame outlives every use."""
    escaping: set[str] = set()
    stack = list(graph.outputs)
    while stack:
        node = stack.pop()
        if node.key in escaping:
            continue
        escaping.add(node.key)
        if node.key in inplace:
            stack.append(inplace[node.key])
        if not _fresh(node):
            stack.extend(item for item in node.inputs if isinstance(item.type, Array))
    return {node.key for node in graph.nodes() if isinstance(node.op, Pack) and node.key not in escaping}
