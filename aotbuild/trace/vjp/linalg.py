"""Vector-Jacobian rules of linear algebra: matrix products, Einstein sums, ``np.linalg``'s
``inv det solve cholesky`` (by their Expr's name, in :data:`LINALG`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import TraceError
from ...graph import Constant, Node
from ...graph.linalg_ops import Einsum, MatMul
from ..creation import arange
from ..tracer import Tracer
from .common import Contributions, describe, is_float, sum_to, traced


def _matmul(node: Node, g: Tracer) -> Contributions:
    a, b = (traced(i) for i in node.inputs)
    da: Any = g @ np.swapaxes(b, -1, -2)
    db: Any = np.swapaxes(a, -1, -2) @ g
    return sum_to(da, node.inputs[0]), sum_to(db, node.inputs[1])


def _einsum(node: Node, g: Tracer) -> Contributions:
    """``np.einsum``: each operand's cotangent is the Einstein sum of the result's cotangent and
    the other operands, onto the operand's subscripts; a letter only that operand has (summed
    within it) is broadcast back."""
    op = node.op
    assert isinstance(op, Einsum)
    contributions: list[Any] = []
    for k, (letters, item) in enumerate(zip(op.inputs, node.inputs, strict=True)):
        if not is_float(item) or isinstance(item.op, Constant):  # (a constant needs none)
            contributions.append(None)
            continue
        if len(set(letters)) != len(letters):
            raise TraceError(f"{describe(node)}: no gradient rule for a repeated subscript (a diagonal)")
        others = [(op.inputs[j], traced(other)) for j, other in enumerate(node.inputs) if j != k]
        present = set(op.output).union(*(set(sub) for sub, _ in others))
        kept = "".join(letter for letter in letters if letter in present)
        spec = ",".join([op.output, *(sub for sub, _ in others)]) + "->" + kept
        part: Any = np.einsum(spec, g, *(t for _, t in others))
        if kept != letters:  # summed within the operand alone: the same for each of its values
            missing = [axis for axis, letter in enumerate(letters) if letter not in present]
            part = np.broadcast_to(np.expand_dims(part, missing), traced(item).shape)
        contributions.append(part)
    return tuple(contributions)


def _solve(g: Tracer, x: Tracer, a: Tracer, b: Tracer) -> Contributions:
    """x = solve(a, b): db = solve(a.T, g), da = -db x^T."""
    db = np.linalg.solve(a.T, g)
    if x.ndim == 1:
        return -(db[:, None] * x[None, :]), db
    return -(db @ x.T), db


def _cholesky(g: Tracer, low: Tracer, a: Tracer) -> Contributions:
    """L = cholesky(A), which reads A's lower triangle only (LAPACK's): with
    ``phi(X) = tril(X)`` with its diagonal halved, ``S = L^-T phi(L^T g) L^-1``, and ``dA`` is
    ``S + S^T`` below the diagonal, ``S`` on it, 0 above (PyTensor's CholeskyGrad)."""
    rows = Tracer(arange(low.shape[0]))
    below, diagonal = rows[:, None] > rows[None, :], rows[:, None] == rows[None, :]
    inner: Any = low.T @ g
    phi = np.where(below, inner, np.where(diagonal, inner * 0.5, 0))
    inverse = np.linalg.inv(low)
    s = inverse.T @ phi @ inverse
    return (np.where(below, s + s.T, np.where(diagonal, s, 0)),)


LINALG: dict[str, Callable[..., Contributions]] = {
    "linalg_cholesky": _cholesky,
    "linalg_inv": lambda g, out, a: (-(out.T @ g @ out.T),),
    "linalg_det": lambda g, out, a: (g * out * np.linalg.inv(a).T,),
    # (sign, log|det A|): the sign is constant where it is differentiable
    "linalg_slogdet": lambda g, out, a: (g[1] * np.linalg.inv(a).T,),
    "linalg_solve": _solve,
}


RULES: dict[type, Callable[[Node, Tracer], Contributions]] = {MatMul: _matmul, Einsum: _einsum}
