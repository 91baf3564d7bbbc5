"""Reverse mode over a traced graph: the gradient of a float scalar with respect to arguments.

Each Op's vector-Jacobian product is written as traced NumPy on tracers, so the backward pass is
a graph like any other: hash-consed with the forward pass (the forward values a rule needs are the
forward nodes themselves, computed once), then fused and memory-planned with it. Only nodes on a
path from a differentiated argument to the value are visited; integer and boolean values
(indices, comparisons, ``argmax``) carry no gradient.

The cotangent of a full ``sum`` or ``mean``'s input is one scalar for every element: it stays a
scalar (a 0-d cotangent of an array node stands for itself broadcast to the node's shape) through
the elementwise rules of one array and scalars, which compute with it as a scalar, until a rule
needs the array (the radon gradient: no array of ones multiplied along its likelihood).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import TraceError
from ..graph import Argument, Constant, Elementwise, Node, Reduce, topological_order
from ..graph.array_ops import (
    DYNAMIC,
    BasicIndex,
    BroadcastTo,
    Expr,
    Gather,
    IndexInt,
    IndexSlice,
    Pack,
    Reshape,
    Scan,
    SetIndex,
    SumTo,
)
from ..graph.calls import Call
from ..graph.linalg_ops import MatMul
from ..graph.ops import SPECIAL_PREFIX
from ..graph.shapes import known_shape
from ..types import Array, Scalar
from .movement import shape_spec
from .operands import Operand, as_operand
from .tracer import Tracer

Contributions = tuple[Any, ...]
"""One cotangent (a Tracer, or None for none) per input of the node."""


def _float(node: Node) -> bool:
    value = node.type
    return isinstance(value, (Scalar, Array)) and np.dtype(value.dtype).kind in "fc"


def _t(node: Node) -> Tracer:
    return Tracer(Operand(node))


def _scalar(value: float, like: Node | Tracer) -> Tracer:
    """The constant ``value`` with the dtype of ``like`` (never ``x * 0``: that is NaN at NaN)."""
    dtype = like.dtype if isinstance(like, Tracer) else np.dtype(like.type.dtype)  # type: ignore[union-attr]
    return Tracer(as_operand(np.array(value, dtype=dtype)[()]))


def gradients(value: Node, wrt: tuple[Node, ...]) -> tuple[Node, ...]:
    """The gradient of the float scalar ``value`` with respect to each of ``wrt`` (argument nodes),
    each of its argument's shape and dtype, C-contiguous."""
    results = []
    for node, total in zip(wrt, backward(value, _scalar(1.0, value), wrt), strict=True):
        if total is None:
            total = np.zeros_like(_t(node)) if node.type.ndim else _scalar(0.0, node)  # type: ignore[union-attr]
        elif total.ndim < node.type.ndim:  # type: ignore[union-attr]  # a scalar for every element
            total = np.zeros_like(_t(node)) + total
        elif isinstance(total.node.type, Array) and (
            total.node.type.layout != "C" or isinstance(total.node.op, SumTo)
        ):  # a view, or a sum_to, which returns its input where nothing is summed: a new array
            total = total.copy()
        results.append(total.node)
    return tuple(results)


def backward(output: Node, seed: Tracer, wrt: tuple[Node, ...]) -> list[Any]:
    """The cotangent of each of ``wrt`` given ``seed``, the cotangent of ``output`` (None where
    ``output`` does not depend on it). Propagation stops at ``wrt``: a subgraph call's inputs, or
    values ``value_and_grad`` was given, may be computed from one another."""
    order = topological_order((output,))
    targets = {id(node) for node in wrt}
    reaches = set(targets)
    for node in order:
        if id(node) not in reaches and _float(node) and any(id(i) in reaches for i in node.inputs):
            reaches.add(id(node))
    cotangents: dict[int, Tracer] = {}
    if id(output) in reaches:
        cotangents[id(output)] = seed
    for node in reversed(order):
        g = cotangents.get(id(node))
        if g is None or id(node) in targets or isinstance(node.op, (Argument, Constant)):
            continue  # a target's cotangent is the answer: what it depends on is not asked
        del cotangents[id(node)]
        rule = _rule(node)
        if g.ndim < getattr(node.type, "ndim", 0) and not _keeps_scalar(node):
            every: Any = np.broadcast_to(g, _t(node).shape)  # a scalar for every element, made an array
            g = every
        contributions = rule(node, g)
        for item, contribution in zip(node.inputs, contributions, strict=True):
            if contribution is None or id(item) not in reaches:
                continue
            contribution = _as_dtype(contribution, item)
            earlier = cotangents.get(id(item))
            cotangents[id(item)] = contribution if earlier is None else _accumulate(earlier, contribution)
    return [cotangents.get(id(node)) for node in wrt]


def _accumulate(earlier: Tracer, contribution: Tracer) -> Tracer:
    """``earlier + contribution``; but where each writes its own part of one array of zeros
    (``x[0]``, ``x[1:86]``, ``x[86]``... of a parameter vector), the contribution's part is
    written into ``earlier`` instead: one array, updated in place, not an array per part and
    their sum."""
    base, parts = _parts_of_zeros(earlier.node)
    other, added = _parts_of_zeros(contribution.node)
    node = contribution.node
    if base is None or other is not base or len(added) != 1 or earlier.dtype != contribution.dtype:
        return earlier + contribution
    (start, stop) = added[0]
    if any(start < end and begin < stop for begin, end in parts):
        return earlier + contribution
    return _t(Node.make(node.op, (earlier.node, *node.inputs[1:])))


def _parts_of_zeros(node: Node) -> tuple[Node | None, list[tuple[int, int]]]:
    """For ``zeros`` updated at static non-negative parts of its one axis (``z[3] = a``,
    ``z[2:86] = b``, one after the other): the zeros and the parts' [start, stop) ranges."""
    parts = []
    while isinstance(node.op, SetIndex) and len(node.op.items) == 1 and node.type.ndim == 1:  # type: ignore[union-attr]
        (item,) = node.op.items
        if isinstance(item, IndexInt) and isinstance(item.value, int) and item.value >= 0:
            parts.append((item.value, item.value + 1))
        elif (
            isinstance(item, IndexSlice)
            and (item.start is None or (isinstance(item.start, int) and item.start >= 0))
            and isinstance(item.stop, int)
            and item.stop >= 0
            and item.step in (None, 1)
        ):
            parts.append((item.start or 0, item.stop))
        else:
            return None, []
        node = node.inputs[0]
    zeros = isinstance(node.op, Expr) and node.op.fn in ("zeros", "zeros_like")
    return (node, parts) if zeros and parts else (None, [])


def _as_dtype(contribution: Tracer, item: Node) -> Tracer:
    dtype = np.dtype(item.type.dtype)  # type: ignore[union-attr]
    return contribution if contribution.dtype == dtype else contribution.astype(dtype)


def _rule(node: Node) -> Callable[[Node, Tracer], Contributions]:
    op = node.op
    if isinstance(op, Elementwise):
        rule = ELEMENTWISE.get(op.fn) or SPECIAL.get(op.fn.removeprefix(SPECIAL_PREFIX))
        if rule is None:
            raise TraceError(f"`{op.fn}` has no gradient rule (in {_describe(node)})")
        return _elementwise(rule)
    rule = RULES.get(type(op))
    if rule is None:
        raise TraceError(f"{_describe(node)} has no gradient rule")
    return rule


def _describe(node: Node) -> str:
    items = ", ".join(str(i.type) for i in node.inputs)
    return f"the Op `{node.op.name}` ({node.op.key}) of ({items}) -> {node.type}"


# -- broadcasting ----------------------------------------------------------------------------------


def sum_to(g: Tracer, like: Node) -> Tracer:
    """``g`` summed down to the shape of ``like``, which broadcast to it."""
    ndim = like.type.ndim  # type: ignore[union-attr]
    if ndim == 0:
        return g.sum() if g.ndim else g
    spec, nodes = shape_spec(_t(like).shape, "a length")
    return _t(Node.make(SumTo(spec), (g.node, *nodes)))


def _keeps_scalar(node: Node) -> bool:
    """Whether ``node``'s rule takes a scalar cotangent standing for every element: an elementwise
    Op of one array (which has the result's shape) and scalars, whose contributions are then of
    that shape or scalars again."""
    arrays = sum(1 for i in node.inputs if getattr(i.type, "ndim", 0))
    return isinstance(node.op, Elementwise) and arrays == 1


def _elementwise(rule: Callable[..., Contributions]) -> Callable[[Node, Tracer], Contributions]:
    def apply(node: Node, g: Tracer) -> Contributions:
        inputs = [_t(i) for i in node.inputs]
        out = _t(node)
        raw = rule(g, out, *inputs)
        arrays = sum(1 for i in node.inputs if getattr(i.type, "ndim", 0))
        every = g.ndim < out.ndim  # g stands for itself at every element (see _keeps_scalar)
        return tuple(
            None
            if c is None or not _float(i)
            else c * _size(out)  # type: ignore[operator]
            if every and c.ndim == 0 and i.type.ndim == 0  # type: ignore[union-attr]
            else c
            if _same_shape(c, i, arrays) or (every and c.ndim == 0)
            else sum_to(c, i)
            for i, c in zip(node.inputs, raw, strict=True)
        )

    return apply


def _size(x: Tracer) -> Any:
    """The number of elements of ``x``, as a float of its dtype (a sum of that many copies)."""
    count: Any = 1
    for length in x.shape:
        count = count * length
    return _as_dtype(count * _scalar(1.0, x), x.node)


def _same_shape(c: Tracer, item: Node, arrays: int) -> bool:
    """Whether a contribution of the result's shape has the shape of ``item`` already: ``item``
    is the only array among the inputs (scalars broadcast to it, nothing broadcasts it), as
    ``c`` is; a scalar ``c`` for a scalar ``item`` too; or both shapes are known to be one
    (fixed by constants, :func:`~aotbuild.graph.shapes.known_shape`)."""
    ndim = getattr(item.type, "ndim", 0)
    if (ndim == 0 and c.ndim == 0) or (arrays == 1 and ndim == c.ndim):
        return True
    known = known_shape(item)
    return bool(known) and None not in known and known == known_shape(c.node)


def _split_ties(g: Tracer, out: Tracer, x: Tracer, y: Tracer) -> Contributions:
    """maximum/minimum: the gradient goes to the chosen input, half to each on a tie (JAX)."""
    half = g * 0.5
    to_x = np.where(x == out, np.where(y == out, half, g), 0)
    to_y = np.where(y == out, np.where(x == out, half, g), 0)
    return to_x, to_y


def _power(g: Tracer, out: Tracer, x: Tracer, y: Tracer) -> Contributions:
    """``x ** y``: ``y x ** (y - 1)`` (``x`` itself for a constant 2), and ``out log(x)`` where
    ``x > 0`` (0 elsewhere)."""
    constant = y.node.op.value.array[()] if isinstance(y.node.op, Constant) and y.ndim == 0 else None
    less_one = x if constant == 2 else x ** (y - 1)
    return g * y * less_one, g * out * np.log(np.where(x > 0, x, 1))


LN2 = math.log(2.0)
LN10 = math.log(10.0)

ELEMENTWISE: dict[str, Callable[..., Contributions]] = {
    "add": lambda g, out, x, y: (g, g),
    "subtract": lambda g, out, x, y: (g, -g),
    "multiply": lambda g, out, x, y: (g * y, g * x),
    "divide": lambda g, out, x, y: (g / y, -g * out / y),
    "true_divide": lambda g, out, x, y: (g / y, -g * out / y),
    "negative": lambda g, out, x: (-g,),
    "positive": lambda g, out, x: (g,),
    "square": lambda g, out, x: (2 * x * g,),
    "reciprocal": lambda g, out, x: (-g * out * out,),
    "sqrt": lambda g, out, x: (g / (2 * out),),
    "cbrt": lambda g, out, x: (g / (3 * out * out),),
    "exp": lambda g, out, x: (g * out,),
    "exp2": lambda g, out, x: (g * out * LN2,),
    "expm1": lambda g, out, x: (g * (out + 1),),
    "log": lambda g, out, x: (g / x,),
    "log2": lambda g, out, x: (g / (x * LN2),),
    "log10": lambda g, out, x: (g / (x * LN10),),
    "log1p": lambda g, out, x: (g / (1 + x),),
    "sin": lambda g, out, x: (g * np.cos(x),),
    "cos": lambda g, out, x: (-g * np.sin(x),),
    "tan": lambda g, out, x: (g * (1 + out * out),),
    "arcsin": lambda g, out, x: (g / np.sqrt(1 - x * x),),
    "arccos": lambda g, out, x: (-g / np.sqrt(1 - x * x),),
    "arctan": lambda g, out, x: (g / (1 + x * x),),
    "sinh": lambda g, out, x: (g * np.cosh(x),),
    "cosh": lambda g, out, x: (g * np.sinh(x),),
    "tanh": lambda g, out, x: (g * (1 - out * out),),
    "arcsinh": lambda g, out, x: (g / np.sqrt(x * x + 1),),
    "arccosh": lambda g, out, x: (g / np.sqrt(x * x - 1),),
    "arctanh": lambda g, out, x: (g / (1 - x * x),),
    "absolute": lambda g, out, x: (g * np.sign(x),),
    "hypot": lambda g, out, x, y: (g * x / out, g * y / out),
    "arctan2": lambda g, out, y, x: (g * x / (x * x + y * y), -g * y / (x * x + y * y)),
    "logaddexp": lambda g, out, x, y: (g * np.exp(x - out), g * np.exp(y - out)),
    "power": _power,
    "float_power": _power,
    "maximum": _split_ties,
    "minimum": _split_ties,
    "fmax": _split_ties,
    "fmin": _split_ties,
    "where": lambda g, out, c, x, y: (None, np.where(c, g, 0), np.where(c, 0, g)),
    "cast": lambda g, out, x: (g,),
    "fabs": lambda g, out, x: (g * np.sign(x),),
    "logaddexp2": lambda g, out, x, y: (g * np.exp2(x - out), g * np.exp2(y - out)),
    "deg2rad": lambda g, out, x: (g * (math.pi / 180),),
    "radians": lambda g, out, x: (g * (math.pi / 180),),
    "rad2deg": lambda g, out, x: (g * (180 / math.pi),),
    "degrees": lambda g, out, x: (g * (180 / math.pi),),
    "fmod": lambda g, out, x, y: (g, -g * np.trunc(x / y)),
    "remainder": lambda g, out, x, y: (g, -g * np.floor(x / y)),
    "copysign": lambda g, out, x, y: (g * np.sign(x) * np.where(np.signbit(y), -1, 1), None),
    # piecewise constant: no gradient
    **{fn: (lambda g, out, x: (None,)) for fn in ("sign", "floor", "ceil", "rint", "trunc")},
}


def _special() -> Any:
    import scipy.special

    return scipy.special


SQRT_PI = math.sqrt(math.pi)
SQRT_2PI = math.sqrt(2.0 * math.pi)

#: scipy.special's ufuncs (``psi`` has none: its derivative, ``polygamma(1, x)``, is not traced).
SPECIAL: dict[str, Callable[..., Contributions]] = {
    "erf": lambda g, out, x: (g * (2 / SQRT_PI) * np.exp(-x * x),),
    "erfc": lambda g, out, x: (g * (-2 / SQRT_PI) * np.exp(-x * x),),
    "erfcx": lambda g, out, x: (g * (2 * x * out - 2 / SQRT_PI),),
    "erfinv": lambda g, out, x: (g * (SQRT_PI / 2) * np.exp(out * out),),
    "ndtr": lambda g, out, x: (g * np.exp(-0.5 * x * x) / SQRT_2PI,),
    "ndtri": lambda g, out, x: (g * SQRT_2PI * np.exp(0.5 * out * out),),
    "log_ndtr": lambda g, out, x: (g * np.exp(-0.5 * x * x - out) / SQRT_2PI,),
    "gammaln": lambda g, out, x: (g * _special().psi(x),),
    "gamma": lambda g, out, x: (g * out * _special().psi(x),),
    "betaln": lambda g, out, a, b: (
        g * (_special().psi(a) - _special().psi(a + b)),
        g * (_special().psi(b) - _special().psi(a + b)),
    ),
    "expit": lambda g, out, x: (g * out * (1 - out),),
    "logit": lambda g, out, x: (g / (x * (1 - x)),),
    "log_expit": lambda g, out, x: (g * _special().expit(-x),),
    "xlogy": lambda g, out, x, y: (g * np.log(y), np.where(x == 0, 0, g * x / y)),
    "xlog1py": lambda g, out, x, y: (g * np.log1p(y), np.where(x == 0, 0, g * x / (1 + y))),
    "entr": lambda g, out, x: (-g * (np.log(x) + 1),),
    "rel_entr": lambda g, out, x, y: (g * (np.log(x / y) + 1), -g * x / y),
    "i0e": lambda g, out, x: (g * (_special().i1e(x) - np.sign(x) * out),),
    "i1e": lambda g, out, x: (
        g * np.where(x == 0, 0.5, _special().i0e(x) - out * (np.sign(x) + 1 / np.where(x == 0, 1, x))),
    ),
}


# -- reductions, indexing, movement, products ------------------------------------------------------


def _kept(g: Tracer, node: Node) -> Tracer:
    """A reduction's cotangent with its reduced axes back (length 1)."""
    op = node.op
    assert isinstance(op, Reduce)
    kept: Any = g if op.keepdims or not op.axes or g.ndim == 0 else np.expand_dims(g, op.axes)  # type: ignore[call-overload]
    return kept


def _reduce(node: Node, g: Tracer) -> Contributions:
    op = node.op
    assert isinstance(op, Reduce)
    (source,) = node.inputs
    x = _t(source)
    whole = g.ndim == 0 and not op.keepdims  # every axis reduced: g stands for every element
    kept = _kept(g, node)
    if op.kind == "sum":
        return (g if whole else np.broadcast_to(kept, x.shape),)
    if op.kind == "mean":
        count = 1
        for axis in op.axes:
            count = count * x.shape[axis]
        return (g / count if whole else np.broadcast_to(kept / count, x.shape),)
    out = _kept(_t(node), node)
    if op.kind == "prod":
        return (np.broadcast_to(kept * out, x.shape) / x,)
    if op.kind in ("max", "min"):
        chosen = x == out
        share = chosen / np.sum(chosen, axis=op.axes, keepdims=True)
        return (kept * share,)
    return (None,)


def _basic_index(node: Node, g: Tracer) -> Contributions:
    op = node.op
    assert isinstance(op, BasicIndex)
    source = node.inputs[0]
    zeros: Any = np.zeros_like(_t(source))
    update = Node.make(SetIndex(op.items), (zeros.node, g.node, *node.inputs[1:]))
    return (_t(update), *(None for _ in node.inputs[1:]))


def _set_index(node: Node, g: Tracer) -> Contributions:
    op = node.op
    assert isinstance(op, SetIndex)
    target, value, *dynamic = node.inputs
    cleared = Node.make(SetIndex(op.items), (g.node, _scalar(0.0, g).node, *dynamic))
    picked = _t(Node.make(BasicIndex(op.items), (g.node, *dynamic)))
    return (_t(cleared), sum_to(picked, value) if _float(value) else None, *(None for _ in dynamic))


def _gather(node: Node, g: Tracer) -> Contributions:
    op = node.op
    assert isinstance(op, Gather)
    source, *indices = node.inputs
    if source.type.ndim != 1 or op.count != 1 or indices[0].type.ndim > 1:  # type: ignore[union-attr]
        raise TraceError(
            f"{_describe(node)}: gradients of integer-array indexing are implemented for a 1-d "
            "array indexed by one integer or 1-d integer array"
        )
    x = _t(source)
    index = _t(indices[0])
    length = x.shape[0]
    if index.ndim == 0:
        zeros: Any = np.zeros_like(x)
        update = Node.make(SetIndex((IndexInt(DYNAMIC),)), (zeros.node, g.node, indices[0]))
        return (_t(update), None)
    constant = indices[0].op.value.array if isinstance(indices[0].op, Constant) else None
    wrapped = (
        index
        if constant is not None and (constant >= 0).all()
        else np.where(index < 0, index + length, index)
    )
    added = np.bincount(wrapped, weights=g, minlength=length)
    return (added, None)


def _reshape(node: Node, g: Tracer) -> Contributions:
    source = _t(node.inputs[0])
    return (g.reshape(source.shape) if source.ndim else g.reshape(()), *(None for _ in node.inputs[1:]))


def _broadcast_to(node: Node, g: Tracer) -> Contributions:
    return (sum_to(g, node.inputs[0]), *(None for _ in node.inputs[1:]))


def _pack(node: Node, g: Tracer) -> Contributions:
    return tuple(g[i] for i in range(len(node.inputs)))


def _matmul(node: Node, g: Tracer) -> Contributions:
    a, b = (_t(i) for i in node.inputs)
    da: Any = g @ np.swapaxes(b, -1, -2)
    db: Any = np.swapaxes(a, -1, -2) @ g
    return sum_to(da, node.inputs[0]), sum_to(db, node.inputs[1])


def _scan(node: Node, g: Tracer) -> Contributions:
    op = node.op
    assert isinstance(op, Scan)
    if op.kind != "sum":
        raise TraceError(f"{_describe(node)}: cumprod has no gradient rule (cumsum has)")
    return (np.flip(np.cumsum(np.flip(g, op.axis), axis=op.axis), op.axis),)


def _expression(node: Node, g: Tracer) -> Contributions:
    """numba's NumPy functions: ``transpose`` (transposed back), ``concatenate`` (the cotangent
    cut back into its pieces), a 1-d ``sort`` (the cotangent put back in the input's order),
    ``np.linalg``'s ``inv``, ``det`` and ``solve``."""
    op = node.op
    assert isinstance(op, Expr)
    if op.fn == "transpose":  # np.transpose({0}, (1, 0)): back by the inverse permutation
        permutation = [int(a) for a in op.code.split("(", 2)[2].rstrip(")").split(",") if a.strip()]
        return (np.transpose(g, np.argsort(permutation)),)
    if op.fn == "zeros_like":
        return (None,)
    if op.fn == "sort" and node.type.ndim == 1:  # type: ignore[union-attr]
        # each value goes back where it came from: stable, as np.sort orders ties
        back: Any = np.zeros_like(_t(node))
        back[np.argsort(_t(node.inputs[0]), kind="stable")] = g
        return (back,)
    if op.fn in LINALG:
        return LINALG[op.fn](g, _t(node), *(_t(i) for i in node.inputs))
    if op.fn != "concatenate":
        raise TraceError(f"{_describe(node)} has no gradient rule")
    axis = int(op.code.rsplit("axis=", 1)[1].rstrip(")"))
    pieces = []
    start: Any = 0
    for item in node.inputs:
        stop = start + _t(item).shape[axis]
        pieces.append(g[(slice(None),) * axis + (slice(start, stop),)])
        start = stop
    return tuple(pieces)


def _solve(g: Tracer, x: Tracer, a: Tracer, b: Tracer) -> Contributions:
    """x = solve(a, b): db = solve(a.T, g), da = -db x^T."""
    db = np.linalg.solve(a.T, g)
    if x.ndim == 1:
        return -(db[:, None] * x[None, :]), db
    return -(db @ x.T), db


#: np.linalg's functions, by their Expr's name: the usual matrix-calculus rules.
LINALG: dict[str, Callable[..., Contributions]] = {
    "linalg_inv": lambda g, out, a: (-(out.T @ g @ out.T),),
    "linalg_det": lambda g, out, a: (g * out * np.linalg.inv(a).T,),
    "linalg_solve": _solve,
}


def _sum_to(node: Node, g: Tracer) -> Contributions:
    return (np.broadcast_to(g, _t(node.inputs[0]).shape), *(None for _ in node.inputs[1:]))


def _call(node: Node, g: Tracer) -> Contributions:
    """A subgraph call (``@aotbuild.subgraph``): differentiated through its graph, inlined."""
    op = node.op
    assert isinstance(op, Call)
    graph = op.graph
    if graph.returns_tuple or len(graph.outputs) != 1:
        raise TraceError(f"{_describe(node)}: gradients through a subgraph returning a tuple")
    inlined: dict[int, Node] = {}
    for inner in graph.nodes():
        if isinstance(inner.op, Argument):
            inlined[id(inner)] = node.inputs[inner.op.position]
        else:
            inlined[id(inner)] = Node.make(inner.op, tuple(inlined[id(i)] for i in inner.inputs))
    totals = backward(inlined[id(graph.outputs[0])], g, node.inputs)
    # an input passed twice got both uses' cotangent once: give it to the first place only
    first = {id(item): i for i, item in reversed(list(enumerate(node.inputs)))}
    return tuple(
        t if first[id(item)] == i else None
        for i, (item, t) in enumerate(zip(node.inputs, totals, strict=True))
    )


RULES: dict[type, Callable[[Node, Tracer], Contributions]] = {
    Call: _call,
    Reduce: _reduce,
    BasicIndex: _basic_index,
    SetIndex: _set_index,
    Gather: _gather,
    Reshape: _reshape,
    BroadcastTo: _broadcast_to,
    SumTo: _sum_to,
    Pack: _pack,
    MatMul: _matmul,
    Scan: _scan,
    Expr: _expression,
}
