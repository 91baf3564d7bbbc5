"""Linear algebra on traced arrays: ``@``, ``np.dot``, ``np.outer``, ``np.einsum``, ``np.linalg``.

Floating products use BLAS and ``np.linalg`` uses LAPACK, both through numba's implementations,
which take them from SciPy at run time; integer products are loops. Like NumPy, ``np.linalg``
computes float32 and integer inputs in float64 and returns float32 results for float32 inputs.
"""

from __future__ import annotations

import numpy as np

from ..errors import TraceError
from ..graph import Node
from ..graph.array_ops import NewAxis
from ..graph.linalg_ops import Einsum, MatMul
from ..types import Array, Scalar
from .indexing import WHOLE, view
from .movement import at_least, complex_part, expression, keep_axes, ravel, squeeze, transpose
from .operands import Operand, as_operand, check_dtype, normalize_axes
from .reductions import apply_reduction
from .ufuncs import apply_cast, apply_ufunc, unsupported


def matmul(a: Operand, b: Operand) -> Operand:
    if a.ndim == 0 or b.ndim == 0:
        raise TraceError("matmul: Input operand does not have enough dimensions")
    dtype = np.result_type(a.dtype, b.dtype)
    check_dtype(dtype, "the result of matmul")
    left = a if a.ndim >= 2 else view(a, [NewAxis(), WHOLE])
    right = b if b.ndim >= 2 else view(b, [WHOLE, NewAxis()])
    ndim = max(left.ndim, right.ndim)
    left, right = apply_cast(at_least(left, ndim), dtype), apply_cast(at_least(right, ndim), dtype)
    product = Operand(Node.make(MatMul(dtype.name), (left.node, right.node)))
    # A vector operand was a matrix of one row or column: drop that axis again.
    drop = {ndim - 2} if a.ndim == 1 else set()
    drop |= {ndim - 1} if b.ndim == 1 else set()
    return squeeze(product, tuple(drop)) if drop else product


def dot(a: Operand, b: Operand) -> Operand:
    if a.ndim == 0 or b.ndim == 0:
        return apply_ufunc(np.multiply, (a, b), {})
    if b.ndim > 2 or (a.ndim > 2 and b.ndim > 1):
        raise unsupported("np.dot of arrays with more than two dimensions (np.matmul broadcasts instead)")
    return matmul(a, b)


def outer(a: Operand, b: Operand) -> Operand:
    column = view(ravel(a), [WHOLE, NewAxis()])
    row = view(ravel(b), [NewAxis(), WHOLE])
    return apply_ufunc(np.multiply, (column, row), {})


def _parse_subscripts(subscripts: str, count: int) -> tuple[tuple[str, ...], str]:
    text = subscripts.replace(" ", "")
    if "." in text:
        raise unsupported("np.einsum with an ellipsis")
    inputs_text, arrow, output = text.partition("->")
    inputs = tuple(inputs_text.split(","))
    if len(inputs) != count:
        raise TraceError(f"einsum: {len(inputs)} subscripts for {count} operand(s)")
    if not all(part.isalpha() for part in inputs if part) or (output and not output.isalpha()):
        raise TraceError(f"einsum: invalid subscripts {subscripts!r}")
    if not arrow:
        counts = {letter: inputs_text.count(letter) for letter in set(inputs_text) if letter.isalpha()}
        output = "".join(sorted(letter for letter, n in counts.items() if n == 1))
    if any(letter not in inputs_text for letter in output) or len(set(output)) != len(output):
        raise TraceError(f"einsum: invalid output subscripts {output!r}")
    return inputs, output


def einsum(subscripts: object, *operands: object, **kwargs: object) -> Operand:
    for key, value in kwargs.items():
        if key == "optimize" or (key == "dtype" and value is None):
            continue
        raise unsupported(f"np.einsum(..., {key}=...)")
    if not isinstance(subscripts, str):
        raise unsupported("np.einsum with interleaved subscripts")
    arrays = [as_operand(op) for op in operands]
    inputs, output = _parse_subscripts(subscripts, len(arrays))
    for array, letters in zip(arrays, inputs, strict=True):
        if array.ndim != len(letters):
            raise TraceError(f"einsum: operand with {array.ndim} dimension(s) has subscripts {letters!r}")
    dtype = np.result_type(*(a.dtype for a in arrays))
    if dtype.kind == "b":
        raise unsupported("np.einsum of booleans")
    check_dtype(dtype, "the result of einsum")
    arrays = [apply_cast(a, dtype) for a in arrays]
    product = _as_matmul(arrays, inputs, output)
    if product is not None:
        return product
    return Operand(Node.make(Einsum(inputs, output, dtype.name), tuple(a.node for a in arrays)))


def _as_matmul(arrays: list[Operand], inputs: tuple[str, ...], output: str) -> Operand | None:
    """'ij,jk->ik' and its transposes as a matrix product (BLAS for floats)."""
    if len(arrays) != 2 or any(len(part) != 2 or len(set(part)) != 2 for part in inputs) or len(output) != 2:
        return None
    first, second = inputs
    shared = set(first) & set(second)
    if len(shared) != 1:
        return None
    (s,) = shared
    free_a = first.replace(s, "")
    free_b = second.replace(s, "")
    if set(output) != {free_a, free_b} or free_a == free_b:
        return None
    left = arrays[0] if inputs[0] == free_a + s else transpose(arrays[0])
    right = arrays[1] if inputs[1] == s + free_b else transpose(arrays[1])
    result = matmul(left, right)
    return result if output == free_a + free_b else transpose(result)


# -- np.linalg --------------------------------------------------------------------------------


def _lapack_dtype(a: Operand) -> tuple[np.dtype, np.dtype]:
    """(the dtype LAPACK computes in, the result's dtype), as numpy.linalg chooses them."""
    if a.dtype.kind == "c":
        return np.dtype(np.complex128), a.dtype
    if a.dtype == np.float32:
        return np.dtype(np.float64), a.dtype
    return np.dtype(np.float64), np.dtype(np.float64)


def _square(a: Operand, function: str) -> None:
    if a.ndim != 2:
        raise unsupported(f"np.linalg.{function} of a stack of matrices ({a.ndim}-d)")


def linalg_function(function: str, a: object, b: object = None) -> Operand:
    """``np.linalg.solve/inv/det/slogdet/cholesky`` on one matrix (and a right-hand side for
    solve). ``slogdet`` gives its sign and log-magnitude as one array of two (one LU for both;
    :func:`aotbuild.trace.functions.slogdet` takes them apart).

    Results are declared layout ``A``: numba's LAPACK wrappers return Fortran-ordered arrays.
    """
    matrix = as_operand(a)
    _square(matrix, function)
    work, result = _lapack_dtype(matrix)
    inputs = [apply_cast(matrix, work)]
    if function == "solve":
        rhs = as_operand(b)
        if rhs.ndim not in (1, 2):
            raise unsupported("np.linalg.solve with a stacked right-hand side")
        work = np.result_type(work, _lapack_dtype(rhs)[0])
        result = np.result_type(result, _lapack_dtype(rhs)[1])
        inputs = [apply_cast(matrix, work), apply_cast(rhs, work)]
        shape: Array | Scalar = Array(work.name, rhs.ndim, "A")
        code = "np.linalg.solve({0}, {1})"
    elif function == "det":
        shape, code = Scalar(work.name), "np.linalg.det({0})"
    elif function == "slogdet":
        shape, code = Array(work.name, 1, "C"), "np.array(np.linalg.slogdet({0}))"
    else:
        shape, code = Array(work.name, 2, "A"), f"np.linalg.{function}({{0}})"
    value = expression(f"linalg_{function}", code, shape, *inputs)
    return apply_cast(value, result)


def norm(x: object, ord: object = None, axis: object = None, keepdims: bool = False) -> Operand:  # noqa: A002
    """NumPy's ``norm``, for vectors and for matrices' Frobenius, 1, inf and 2 norms."""
    a = as_operand(x)
    if a.dtype.kind in "biu":
        a = apply_cast(a, np.dtype(np.float64))

    def absolute(v: Operand) -> Operand:
        return apply_ufunc(np.absolute, (v,), {})

    def squared_magnitude(v: Operand) -> Operand:
        if v.dtype.kind == "c":
            re, im = complex_part("real", v), complex_part("imag", v)
            return apply_ufunc(np.add, (_square_of(re), _square_of(im)), {})
        return _square_of(v)

    def sqrt(v: Operand) -> Operand:
        return apply_ufunc(np.sqrt, (v,), {})

    if axis is None and ord is None:
        flat = ravel(a)
        return keep_axes(sqrt(apply_reduction("sum", squared_magnitude(flat))), a.ndim, keepdims)
    axes = tuple(range(a.ndim)) if axis is None else normalize_axes(axis, a.ndim)
    if len(axes) == 1:
        (ax,) = axes
        if ord is None or ord == 2:
            total = apply_reduction("sum", squared_magnitude(a), ax, None, None, keepdims)
            return sqrt(total)
        if ord == np.inf:
            return apply_reduction("max", absolute(a), ax, None, None, keepdims)
        if ord == -np.inf:
            return apply_reduction("min", absolute(a), ax, None, None, keepdims)
        if ord == 1:
            return apply_reduction("sum", absolute(a), ax, None, None, keepdims)
        if ord == 0:
            nonzero = apply_cast(apply_ufunc(np.not_equal, (a, 0), {}), complex_part("real", a).dtype)
            return apply_reduction("sum", nonzero, ax, None, None, keepdims)
        if isinstance(ord, (int, float)) and not isinstance(ord, bool):
            powered = apply_ufunc(np.power, (absolute(a), ord), {})
            total = apply_reduction("sum", powered, ax, None, None, keepdims)
            return apply_ufunc(np.power, (total, 1.0 / ord), {})
        raise TraceError(f"Invalid norm order {ord!r} for vectors")
    if len(axes) == 2:
        if ord in (None, "fro"):
            return sqrt(apply_reduction("sum", squared_magnitude(a), axes, None, None, keepdims))
        if ord in (1, -1, np.inf, -np.inf):
            # 1: the largest column sum of |a|; inf: the largest row sum (min for -1, -inf).
            row, col = axes
            summed, over = (row, col) if ord in (1, -1) else (col, row)
            sums = apply_reduction("sum", absolute(a), summed, None, None, True)
            extreme = apply_reduction("max" if ord in (1, np.inf) else "min", sums, over, None, None, True)
            return extreme if keepdims else squeeze(extreme, axes)
        if ord == 2 and a.ndim == 2 and a.dtype.kind == "f":
            work, result = _lapack_dtype(a)
            value = expression(
                "linalg_norm", "np.linalg.norm({0}, 2)", Scalar(work.name), apply_cast(a, work)
            )
            return keep_axes(apply_cast(value, result), a.ndim, keepdims)
        raise unsupported(f"np.linalg.norm with ord={ord!r} for a {a.ndim}-d {a.dtype} array")
    raise TraceError("Improper number of dimensions to norm.")


def _square_of(v: Operand) -> Operand:
    return apply_ufunc(np.multiply, (v, v), {})
