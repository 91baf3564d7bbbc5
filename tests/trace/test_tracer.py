"""Tracing: NumPy 2's dtypes exactly, hash-consing, symbolic sizes, clear errors."""

import itertools
import warnings

import numpy as np
import pytest

from aotbuild.errors import TraceError
from aotbuild.graph import Argument, Constant, ConstValue, Dim, Elementwise, Node, Reduce, Size
from aotbuild.graph.array_ops import SetIndex
from aotbuild.trace.operands import Operand
from aotbuild.trace.tracer import Tracer, traced_len
from aotbuild.types import Array, Scalar

DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float32", "float64", "complex128"]


def traced(dtype: str, ndim: int = 1, position: int = 0) -> Tracer:
    kind = Array(dtype, ndim, "A") if ndim else Scalar(dtype)
    return Tracer(Operand(Node.make(Argument(position, kind))))


def numpy_dtype(function, *operands):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(function(*operands)).dtype


@pytest.mark.parametrize(
    "ufunc", [np.add, np.multiply, np.true_divide, np.floor_divide, np.power, np.maximum, np.arctan2, np.less]
)
@pytest.mark.parametrize(("left", "right"), list(itertools.combinations_with_replacement(DTYPES, 2)))
def test_binary_promotion_matches_numpy(ufunc: np.ufunc, left: str, right: str) -> None:
    try:
        expected = numpy_dtype(ufunc, np.ones(2, left), np.ones(2, right))
    except TypeError:
        with pytest.raises(TraceError):
            ufunc(traced(left), traced(right, position=1))
        return
    if expected.name not in ("float16",):
        assert ufunc(traced(left), traced(right, position=1)).dtype == expected


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [2, 2.5, 1j, True, np.float64(2.5), np.float32(2.5), np.int8(3)])
def test_scalar_operands_follow_nep50(dtype: str, scalar: object) -> None:
    array = np.ones(3, dtype)
    for function in (lambda a, b: a * b, lambda a, b: b - a, lambda a, b: a / b):
        try:
            expected = numpy_dtype(function, array, scalar)
        except (TypeError, OverflowError):
            continue
        if expected.name == "float16":
            continue
        assert function(traced(dtype), scalar).dtype == expected, (dtype, scalar)


def test_float32_times_python_float_stays_float32() -> None:
    x = traced("float32")
    assert (x * 2.5).dtype == np.float32
    assert (x * np.float64(2.5)).dtype == np.float64
    assert (x / x.shape[0]).dtype == np.float32  # sizes are weak, like Python ints


def test_python_int_out_of_range_is_an_error() -> None:
    with pytest.raises(TraceError, match="300 out of bounds for int8"):
        traced("int8") + 300


@pytest.mark.parametrize("kind", ["sum", "prod", "mean", "min", "max"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "uint16", "int64", "float32", "float64"])
def test_reduction_dtypes_match_numpy(kind: str, dtype: str) -> None:
    for axis, keepdims in [(None, False), (1, True), ((0, 2), False), (-1, False)]:
        expected = np.asarray(getattr(np, kind)(np.ones((2, 3, 4), dtype), axis=axis, keepdims=keepdims))
        got = getattr(np, kind)(traced(dtype, 3), axis=axis, keepdims=keepdims)
        assert got.dtype == expected.dtype
        assert got.ndim == expected.ndim


def test_reductions_record_their_axes() -> None:
    x = traced("float64", 3)
    node = np.max(x, axis=(2, -3), keepdims=True).node
    assert node.op == Reduce("max", (0, 2), True, "float64")
    assert x.sum(axis=()).node.op == x.node.op  # reducing over no axis keeps the values
    with pytest.raises(TraceError, match="axis 3 is out of bounds for array of dimension 3"):
        x.sum(axis=3)
    with pytest.raises(TraceError, match="duplicate value in 'axis'"):
        x.mean(axis=(1, -2))
    with pytest.raises(TraceError, match=r"np.sum\(..., where=...\)"):
        np.sum(x, where=True)


def test_identical_expressions_are_one_node() -> None:
    x = traced("float64")
    assert (np.exp(x) * 2).node is (np.exp(x) * 2).node
    assert np.exp(x).node is not np.exp(traced("float64", position=1)).node


def test_sizes_are_symbolic() -> None:
    x = traced("float64", 2)
    n, m = x.shape
    assert isinstance(n.node.op, Dim) and n.node.op.axis == 0
    assert isinstance(x.size.node.op, Size)
    assert x.ndim == 2
    assert traced_len(x).node is n.node
    assert (x * n).dtype == np.float64
    assert (n * 2 + m).dtype == np.int64


def test_constants_fold() -> None:
    x = traced("float64")
    y = x * np.exp(np.float64(2.0))
    constant = y.node.inputs[1]
    assert isinstance(constant.op, Constant)
    assert constant.op.value.array[()] == np.exp(2.0)


def test_where_and_astype() -> None:
    x = traced("float32")
    w = np.where(x > 0, x, 0.0)
    assert w.dtype == np.float32 and isinstance(w.node.op, Elementwise) and w.node.op.fn == "where"
    assert x.astype(np.int16).dtype == np.int16
    assert x.astype(np.float32).node is x.node


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        (lambda x: bool(x > 0), "`if`, `while`, `and`, `or`"),
        (lambda x: float(x.sum()), "float()"),
        (lambda x: range(traced_len(x)), "as a Python integer"),
        (lambda x: list(x), "iterating"),
        (lambda x: np.linalg.eig(x), "np.linalg.eig is not supported"),
        (lambda x: np.unique(x), "np.unique is not supported"),
        (lambda x: np.argwhere(x), "np.argwhere is not supported"),
        (lambda x: np.add(x, x, out=x), r"np.add\(..., out=...\) is not supported"),
        (lambda x: np.add.at(x, [0], 1.0), "np.add.at is not supported"),
        (lambda x: np.squeeze(x), "np.squeeze without axis= would drop"),
        (lambda x: np.divmod(x, x), "np.divmod is not supported"),
        (lambda x: x * "a", "type str"),
        (lambda x: np.pad(x, 1), "np.pad is not supported"),
        (lambda x: np.repeat(x, np.array([1, 2]), axis=0), "np.repeat with an array of counts"),
        (lambda x: x[:, x[0] > 0], "boolean mask is supported as the first index only"),
        (lambda x: bool(x.shape[0] > 2), "computed from array values or sizes"),
        (lambda x: np.zeros(int(x.sum())), "int()"),
    ],
)
def test_unsupported_operations_suggest_a_kernel(action, expected: str) -> None:
    x = traced("float64", 2)
    with pytest.raises(TraceError, match=expected) as info:
        action(x)
    if "type str" not in expected and "squeeze" not in expected:
        assert 'mode = "kernel"' in str(info.value)


def test_nonzero_and_one_argument_where_have_run_time_lengths() -> None:
    """One int64 array per axis, selected by a mask as a[mask] is (values: tests/test_programs)."""
    from aotbuild.graph.array_ops import MaskSelect

    x = traced("float64", 2)
    for result in (np.nonzero(x), np.where(x > 0), (np.flatnonzero(x),)):
        assert all(isinstance(r.node.op, MaskSelect) and r.dtype == np.int64 and r.ndim == 1 for r in result)
    assert len(np.nonzero(x)) == 2 and len(np.where(x[0] > 0)) == 1
    constant = np.nonzero(Tracer(Operand(Node.make(Constant(ConstValue.of(np.array([0, 3, 0, 1])))))))
    assert constant[0].operand.constant is not None
    with pytest.raises(TraceError, match="Calling nonzero on 0d arrays is not allowed"):
        np.nonzero(traced("float64", 0) > 0)
    with pytest.raises(TraceError, match="either both or neither of x and y should be given"):
        np.where(x > 0, x)


def test_float16_results_are_refused() -> None:
    with pytest.raises(TraceError, match="float16"):
        np.exp(traced("int8"))


def _copy_of(x: Tracer) -> Tracer:
    return x.copy()


def test_sizes_compare_like_python_integers() -> None:
    """Two Python-int-like sizes compare in int64 (NumPy would pick an object loop)."""
    x = traced("float64", 2)
    assert (x.shape[0] > 2).dtype == np.bool_
    assert (x.shape[0] == x.shape[1]).dtype == np.bool_
    assert (x.shape[0] * 2.5).dtype == np.float64


def test_a_view_read_after_its_base_was_written_is_an_error() -> None:
    """NumPy's view would show the write; a traced view is a value taken before it."""
    v = _copy_of(traced("float64", 2))
    row = v[0]
    v[0] = 1.0
    with pytest.raises(TraceError, match="written to after the view was taken"):
        _ = row + 1


def test_writing_into_a_view_is_an_error() -> None:
    v = _copy_of(traced("float64", 2))
    column = v[:, 0]
    with pytest.raises(TraceError, match="writing into a view of another traced array"):
        column[0] = 2.0


def test_a_view_taken_after_the_write_sees_it() -> None:
    v = _copy_of(traced("float64", 2))
    v[0] = 1.0
    row = v[0]
    assert (row + 1).dtype == np.float64


@pytest.mark.parametrize("key", [slice(None), Ellipsis, (slice(None), Ellipsis), slice(1, None)])
def test_whole_slices_are_views_too(key: object) -> None:
    """``z[:]`` and ``z[...]`` are views in NumPy, though their value is ``z`` itself."""
    z = _copy_of(traced("float64"))
    view = z[key]
    z[0] = 1.0
    with pytest.raises(TraceError, match="written to after the view was taken"):
        _ = view + 1


def test_a_scalar_read_is_a_copy() -> None:
    """An integer for every axis gives a scalar in NumPy, not a view: later writes don't show."""
    z = _copy_of(traced("float64"))
    first = z[0]
    z[0] = 1.0
    assert (first + 1).dtype == np.float64


@pytest.mark.parametrize("kind", ["any", "all", "sum", "max"])
def test_reducing_over_no_axis_keeps_the_array(kind: str) -> None:
    values = np.array([[0.0, 2.0], [np.nan, -1.0]])
    expected = getattr(np, kind)(values, axis=())
    got = getattr(np, kind)(Tracer(Operand(Node.make(Constant(ConstValue.of(values))))), axis=())
    assert got.operand.constant is not None
    assert np.array_equal(got.operand.constant.array, expected, equal_nan=True)
    assert got.dtype == expected.dtype
    assert getattr(np, kind)(traced("float64", 2), axis=()).ndim == 2


def test_norm_checks_its_axes() -> None:
    m = traced("float64", 2)
    with pytest.raises(TraceError, match="axis 5 is out of bounds for array of dimension 2"):
        np.linalg.norm(m, axis=5)
    with pytest.raises(TraceError, match="axis -3 is out of bounds for array of dimension 2"):
        np.linalg.norm(m, axis=(0, -3))
    assert np.linalg.norm(m, axis=-1).ndim == 1
    assert np.linalg.norm(m, ord=1, axis=(1, 0)).ndim == 0


def test_sort_in_place_rebinds_the_array() -> None:
    """``x.sort()`` gives the tracer the sorted value: no copy back through an index update."""
    z = _copy_of(traced("float64", 2))
    row = z[0]
    z.sort(axis=0)
    assert not isinstance(z.node.op, SetIndex)
    assert z.node is np.sort(_copy_of(traced("float64", 2)), axis=0).node
    with pytest.raises(TraceError, match="written to after the view was taken"):
        _ = row + 1
    with pytest.raises(TraceError, match="writing into a view of another traced array"):
        z[0].sort()
    with pytest.raises(TraceError, match="takes an integer axis"):
        z.sort(axis=None)


def test_tile_of_a_scalar_is_an_array() -> None:
    assert np.tile(traced("float64", 0), 3).ndim == 1
    assert np.tile(traced("float64", 0), (2, 3)).ndim == 2
