"""Building blocks that generated modules import when they are compiled: array retyping,
NumPy's pairwise-sum leaf written with LLVM vector types, and float max/min as LLVM's own.

They are part of the code generator, not of any module's text, so a change here bumps
``CODEGEN_VERSION`` (which every cache key holds).

* :func:`contiguous`, :func:`fortran` — an any-layout array (``float64[:]``) is indexed through
  its strides, read at run time: LLVM cannot see that neighbouring elements are neighbours in
  memory. Once a module
  has checked that an array is C-contiguous, it retypes it: the same array, indexed by shape.
  numba's BLAS calls copy every any-layout matrix first; retyped C or F, a transposed operand
  goes to BLAS as it lies, with a transpose flag.
* :func:`leaf_sum` — NumPy sums floats pairwise, and the leaves of its recursion (up to 128
  values) with eight interleaved partial sums. LLVM's loop vectoriser will not reorder a float
  sum, and numba leaves its SLP vectoriser off, so the eight sums stay scalar when written in
  Python. Here they are two vectors of four lanes, lane ``j`` holding NumPy's ``r[j]``: the same
  additions in the same order, so the same bits, on every target (SSE2 splits each vector in two).
* :func:`nan_maximum`, :func:`nan_minimum` — NaN-propagating float max and min that LLVM
  vectorises in a reduction.
* :func:`broadcast_view` — ``np.broadcast_to`` for a module that has checked the shapes: the
  view made directly, with no jitted implementation to compile in each worker.
* :func:`scratch` — a small C-ordered array of a size known when compiling, on the stack of the
  function that makes it: no allocation and no memory-system call (a pairwise sum's buffers,
  three allocations whose runtime poisons each block as it frees it, took 200 ns a call).
* :func:`permuted` — ``array.transpose(axes)`` for axes known when compiling: the view made
  directly, where numba's ``transpose`` method permutes at run time through a helper whose
  first compile in a process types some fifty functions (3.7 s for an Op that was only that).
* :func:`borrowed` — an array that holds no reference to its memory: views of it, and the
  values Ops return that are it, count no references. A region runs once per iteration of its
  kernel's loop; every view it made of the kernel's arrays took and dropped a reference with
  an atomic instruction, 15 a step in a loop of 2-element updates, 90% of its time on a Xeon
  (where an atomic costs ~10 ns).
* :func:`gemm`, :func:`matrix_order`, :func:`blas_operand` — a matrix product as one call of
  BLAS's gemm for every layout, each matrix read as it lies where its rows or its columns are
  contiguous: numba's ``np.dot`` is compiled once per pair of layouts, and an Op multiplying two
  any-layout matrices took ~3 s to compile four of them (0.5 s now).
* :func:`thread_count` — how many threads a ``prange`` loop would run on, for splitting work
  into one share per thread where the split changes no result.
* :func:`has_fma`, :func:`fma` — whether the CPU target being compiled for has fused
  multiply-add, and the fused multiply-add itself. The vector math computes the exact error of a
  product with one FMA where the target has it, and with Dekker's split (eight operations)
  elsewhere: the same error but where the split's low halves need 54 bits (about 4% of
  products), within 2^-103 of the product there. The generated modules do not depend on the
  target; :func:`native_fma` tells ``has_fma`` which one is being compiled for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.core import types as nbtypes
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic, register_jitable


def _retyped(layout: Literal["C", "F"]) -> Any:
    @intrinsic
    def retype(typingctx: Any, array: Any) -> Any:
        if not isinstance(array, nbtypes.Array):
            return None
        result = array.copy(layout=layout)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            # Every layout of an array type has the same data model: the struct is reused as it is.
            return impl_ret_borrowed(context, builder, result, args[0])

        return result(array), codegen

    return retype


contiguous = _retyped("C")
contiguous.__doc__ = """``array`` typed C-contiguous. Only for an array checked to be C-contiguous
(NumPy's rule for its strides): numba then ignores the strides when indexing it."""

fortran = _retyped("F")
fortran.__doc__ = """``array`` typed F-contiguous (a transposed C array is), once checked to be: numba
then hands it to BLAS as it lies, with a transpose flag, where any other layout is copied."""


@intrinsic
def permuted(typingctx: Any, array: Any, axes: Any) -> Any:
    """``array.transpose(axes)`` for ``axes`` written as a literal string, ``"0,2,1"``: the same
    view (data, memory and base kept, shape and strides permuted). numba's own ``transpose`` with
    axes permutes them through a jitted helper that checks the axes at run time, and its first
    compile in a process types some fifty functions: an Op that was only a 3-d transpose took
    1.5 s warm, 3.7 s in a fresh compile worker, against 0.1 s for ``.T``."""
    if not isinstance(array, nbtypes.Array) or not isinstance(axes, nbtypes.StringLiteral):
        return None
    order = [int(axis) for axis in axes.literal_value.split(",")]
    if sorted(order) != list(range(array.ndim)):
        return None
    result = array.copy(layout="A")

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        source = context.make_array(array)(context, builder, args[0])
        shape = cgutils.unpack_tuple(builder, source.shape, array.ndim)
        strides = cgutils.unpack_tuple(builder, source.strides, array.ndim)
        return _view(context, builder, source, result, [shape[a] for a in order], [strides[a] for a in order])

    return result(array, axes), codegen


def _view(context: Any, builder: Any, source: Any, result: Any, shape: list[Any], strides: list[Any]) -> Any:
    """A view of the array ``source`` (its data, memory and base) typed ``result``, with
    ``shape`` and ``strides``."""
    view = context.make_array(result)(context, builder)
    context.populate_array(
        view,
        data=source.data,
        shape=shape,
        strides=strides,
        itemsize=source.itemsize,
        meminfo=source.meminfo,
        parent=source.parent,
    )
    return impl_ret_borrowed(context, builder, result, view._getvalue())


@intrinsic
def broadcast_view(typingctx: Any, array: Any, shape: Any) -> Any:
    """``np.broadcast_to(array, shape)`` where the module has already checked that ``array``
    broadcasts to ``shape``: the same view (missing leading axes and axes of length 1 read with
    a stride of 0), made directly. numba's own compiles a jitted implementation for each type
    of input, the first time in a process 0.16 s, and checks the shapes again at run time."""
    if not isinstance(array, nbtypes.Array) or not isinstance(shape, nbtypes.UniTuple):
        return None
    if not isinstance(shape.dtype, nbtypes.Integer) or shape.count < array.ndim:
        return None
    result = array.copy(ndim=shape.count, layout="A")

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        source = context.make_array(array)(context, builder, args[0])
        intp = context.get_value_type(nbtypes.intp)
        zero, one = ir.Constant(intp, 0), ir.Constant(intp, 1)
        target = cgutils.unpack_tuple(builder, args[1], shape.count)
        missing = shape.count - array.ndim
        lengths = [one] * missing + cgutils.unpack_tuple(builder, source.shape, array.ndim)
        strides = [zero] * missing + cgutils.unpack_tuple(builder, source.strides, array.ndim)
        steps = [
            builder.select(builder.icmp_signed("==", length, one), zero, stride)
            for length, stride in zip(lengths, strides, strict=True)
        ]
        return _view(context, builder, source, result, target, steps)

    return result(array, shape), codegen


@intrinsic
def broadcast_steps(typingctx: Any, array: Any) -> Any:
    """For each axis of ``array``, 0 where its length is 1 (it is broadcast there: read at index 0
    all along) and 1 elsewhere, as a tuple: one call where a conditional per axis was about a
    dozen operations for numba to type and lower (~10 ms of compile each)."""
    if not isinstance(array, nbtypes.Array):
        return None
    result = nbtypes.UniTuple(nbtypes.intp, array.ndim)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        source = context.make_array(array)(context, builder, args[0])
        intp = context.get_value_type(nbtypes.intp)
        lengths = cgutils.unpack_tuple(builder, source.shape, array.ndim)
        steps = [
            builder.zext(builder.icmp_signed("!=", length, ir.Constant(intp, 1)), intp) for length in lengths
        ]
        return context.make_tuple(builder, result, steps)

    return result(array), codegen


@intrinsic
def all_unit(typingctx: Any, *steps: Any) -> Any:
    """Whether every one of ``steps`` is 1 (no input broadcast): one call, not a chain of
    comparisons and ``&``."""
    if not steps or not all(isinstance(step, nbtypes.Integer) for step in steps):
        return None
    signature = nbtypes.boolean(nbtypes.StarArgTuple.from_types(steps))

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        result = cgutils.true_bit
        for step in cgutils.unpack_tuple(builder, args[0], len(steps)):
            result = builder.and_(result, builder.icmp_signed("==", step, ir.Constant(step.type, 1)))
        return result

    return signature, codegen


@intrinsic
def unit_strides(typingctx: Any, *arrays: Any) -> Any:
    """Whether each of ``arrays`` has a unit stride along its last axis, or at most one element
    there: its rows can be read as C-contiguous. One call, not five operations per array."""
    if not arrays or not all(isinstance(array, nbtypes.Array) and array.ndim for array in arrays):
        return None
    signature = nbtypes.boolean(nbtypes.StarArgTuple.from_types(arrays))

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        result = cgutils.true_bit
        one = context.get_constant(nbtypes.intp, 1)
        for array, value in zip(arrays, cgutils.unpack_tuple(builder, args[0], len(arrays)), strict=True):
            source = context.make_array(array)(context, builder, value)
            length = cgutils.unpack_tuple(builder, source.shape, array.ndim)[-1]
            stride = cgutils.unpack_tuple(builder, source.strides, array.ndim)[-1]
            row = builder.or_(
                builder.icmp_signed("<=", length, one), builder.icmp_signed("==", stride, source.itemsize)
            )
            result = builder.and_(result, row)
        return result

    return signature, codegen


@intrinsic
def scratch(typingctx: Any, rows: Any, columns: Any, dtype: Any) -> Any:
    """``np.empty((rows, columns), dtype)`` (``columns`` 0: ``np.empty(rows, dtype)``) for literal
    sizes, in the calling function's stack frame (made once per call, at its entry), with no
    memory-system block: it must not outlive the call, so a module keeps it to itself."""
    if not all(isinstance(n, nbtypes.IntegerLiteral) for n in (rows, columns)):
        return None
    if not isinstance(dtype, (nbtypes.NumberClass, nbtypes.DType)):
        return None
    element = dtype.instance_type if isinstance(dtype, nbtypes.NumberClass) else dtype.dtype
    shape = [rows.literal_value] + ([columns.literal_value] if columns.literal_value else [])
    result = nbtypes.Array(element, len(shape), "C")

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        data_type = context.get_data_type(element)
        intp = context.get_value_type(nbtypes.intp)
        itemsize = context.get_abi_sizeof(data_type)
        count = 1
        for length in shape:
            count *= length
        data = cgutils.alloca_once(builder, data_type, size=max(count, 1))
        strides = [itemsize * shape[1], itemsize] if len(shape) == 2 else [itemsize]
        array = context.make_array(result)(context, builder)
        context.populate_array(
            array,
            data=data,
            shape=[ir.Constant(intp, length) for length in shape],
            strides=[ir.Constant(intp, stride) for stride in strides],
            itemsize=ir.Constant(intp, itemsize),
            meminfo=None,
        )
        return array._getvalue()

    return result(rows, columns, dtype), codegen


@intrinsic
def borrowed(typingctx: Any, array: Any) -> Any:
    """``array`` (the same memory, shape and strides) without its reference to that memory, so
    numba counts no references for it or any view of it. Only for an array the caller keeps
    alive for the whole call, and only where nothing made from it outlives the call (a region
    whose results hold no array)."""
    if not isinstance(array, nbtypes.Array):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        view = context.make_array(array)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()  # holds no reference: nothing to count

    return array(array), codegen


@intrinsic
def leaf_sum(typingctx: Any, values: Any, start: Any, count: Any) -> Any:
    """NumPy's pairwise-sum leaf of ``values[start:start + count]`` (a C-contiguous 1-d float
    array; ``count`` at most 128): below 8 values, their sum in order from zero; else eight
    interleaved partial sums ``r[j] += values[i + j]``, combined as
    ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the remaining values in order."""
    if not (
        isinstance(values, nbtypes.Array)
        and values.ndim == 1
        and values.layout == "C"
        and isinstance(values.dtype, nbtypes.Float)
        and isinstance(start, nbtypes.Integer)
        and isinstance(count, nbtypes.Integer)
    ):
        return None
    dtype = values.dtype

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array_value, start_value, count_value = args
        intp = context.get_value_type(nbtypes.intp)
        element = context.get_value_type(dtype)
        vector = ir.VectorType(element, 4)
        align = context.get_abi_sizeof(element)
        array = context.make_array(values)(context, builder, array_value)
        start_value = context.cast(builder, start_value, signature.args[1], nbtypes.intp)
        count_value = context.cast(builder, count_value, signature.args[2], nbtypes.intp)
        base = builder.gep(array.data, [start_value])
        zero = ir.Constant(element, 0.0)

        def load_vector(offset: Any) -> Any:
            pointer = builder.bitcast(builder.gep(base, [offset]), vector.as_pointer())
            return builder.load(pointer, align=align)

        def add_in_order(total: Any, begin: Any) -> Any:
            """``total`` plus ``values[begin:count]``, one by one."""
            result = cgutils.alloca_once_value(builder, total)
            with cgutils.for_range_slice(builder, begin, count_value, ir.Constant(intp, 1)) as (index, _):
                value = builder.load(builder.gep(base, [index]))
                builder.store(builder.fadd(builder.load(result), value), result)
            return builder.load(result)

        result = cgutils.alloca_once(builder, element)
        small = builder.icmp_signed("<", count_value, ir.Constant(intp, 8))
        with builder.if_else(small) as (in_order, interleaved):
            with in_order:
                builder.store(add_in_order(zero, ir.Constant(intp, 0)), result)
            with interleaved:
                low = cgutils.alloca_once_value(builder, load_vector(ir.Constant(intp, 0)))
                high = cgutils.alloca_once_value(builder, load_vector(ir.Constant(intp, 4)))
                end = builder.sub(count_value, builder.srem(count_value, ir.Constant(intp, 8)))
                eight = ir.Constant(intp, 8)
                with cgutils.for_range_slice(builder, eight, end, eight) as (i, _):
                    builder.store(builder.fadd(builder.load(low), load_vector(i)), low)
                    four = builder.add(i, ir.Constant(intp, 4))
                    builder.store(builder.fadd(builder.load(high), load_vector(four)), high)
                lanes = [
                    builder.extract_element(builder.load(vector_), ir.Constant(ir.IntType(32), j))
                    for vector_ in (low, high)
                    for j in range(4)
                ]
                r0, r1, r2, r3, r4, r5, r6, r7 = lanes
                left = builder.fadd(builder.fadd(r0, r1), builder.fadd(r2, r3))
                right = builder.fadd(builder.fadd(r4, r5), builder.fadd(r6, r7))
                builder.store(add_in_order(builder.fadd(left, right), end), result)
        return builder.load(result)

    return dtype(values, start, count), codegen


def _ieee_extreme(name: Literal["maximum", "minimum"]) -> Any:
    @intrinsic
    def extreme(typingctx: Any, a: Any, b: Any) -> Any:
        if not (isinstance(a, nbtypes.Float) and a == b):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            value = context.get_value_type(signature.args[0])
            suffix = "f64" if value == ir.DoubleType() else "f32"
            function_type = ir.FunctionType(value, [value, value])
            function = cgutils.get_or_insert_function(builder.module, function_type, f"llvm.{name}.{suffix}")
            return builder.call(function, args)

        return a(a, b), codegen

    return extreme


nan_maximum = _ieee_extreme("maximum")
nan_maximum.__doc__ = """The larger of two floats, NaN if either is (LLVM's ``llvm.maximum``, IEEE 754-2019
maximum). ``np.maximum`` means the same but numba writes it with compares and branches, which
keep a max reduction scalar: this one LLVM vectorises (a row max of 1000x256: 9.5x faster)."""

nan_minimum = _ieee_extreme("minimum")
nan_minimum.__doc__ = """The smaller of two floats, NaN if either is: ``nan_maximum``'s twin."""


#: :func:`matrix_order`'s answers.
ROWS, COLUMNS = 1, 2


@register_jitable
def matrix_order(a: Any) -> Any:
    """How BLAS reads the matrix ``a`` as it lies: ``(ROWS, ld)``, row by row, each row
    contiguous and ``ld`` elements after the last; ``(COLUMNS, ld)``, column by column; ``(0, 0)``
    neither (a copy goes to BLAS instead). A length-1 axis's stride is NumPy's to choose, so it
    is not read."""
    rows, columns = a.shape
    between_rows, between_columns = a.strides
    size = a.itemsize
    if (columns <= 1 or between_columns == size) and (
        rows <= 1 or (between_rows % size == 0 and between_rows >= columns * size)
    ):
        return ROWS, between_rows // size if rows > 1 else max(columns, 1)
    if (rows <= 1 or between_rows == size) and (
        columns <= 1 or (between_columns % size == 0 and between_columns >= rows * size)
    ):
        return COLUMNS, between_columns // size if columns > 1 else max(rows, 1)
    return 0, 0


@register_jitable
def blas_operand(a: Any) -> Any:
    """``a`` as BLAS reads it, with :func:`matrix_order`'s answer: itself where it can, else a
    C-contiguous copy (numba would copy every any-layout matrix; NumPy copies these too)."""
    order, ld = matrix_order(a)
    if order == 0:  # copied by a loop: np.ascontiguousarray is one more function to compile
        copy = np.empty(a.shape, a.dtype)
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                copy[i, j] = a[i, j]
        a = copy
        order, ld = ROWS, max(a.shape[1], 1)
    return a, order, ld


@intrinsic
def gemm(typingctx: Any, x: Any, x_order: Any, x_ld: Any, y: Any, y_order: Any, y_ld: Any, out: Any) -> Any:
    """``out = x @ y`` by BLAS's gemm (numba's ``numba_xxgemm``, which takes it from SciPy at
    run time), ``x`` and ``y`` read as they lie as :func:`matrix_order` says (never ``(0, 0)``),
    into the C-contiguous ``out``; ``k`` at least 1.

    One function for every layout: numba's ``np.dot`` is compiled once per pair of operand
    layouts, and a product of two any-layout matrices compiled four of them (~3 s an Op). BLAS
    reads column-major matrices: ``out``, row-major, is its column-major transpose, ``y.T @ x.T``,
    each operand transposed where it lies by columns."""
    from numba.np.linalg import ensure_blas

    matrices = (x, y, out)
    if not (
        all(isinstance(m, nbtypes.Array) and m.ndim == 2 for m in matrices)
        and x.dtype == y.dtype == out.dtype
        and isinstance(x.dtype, (nbtypes.Float, nbtypes.Complex))
        and out.layout == "C"
        and all(isinstance(i, nbtypes.Integer) for i in (x_order, x_ld, y_order, y_ld))
    ):
        return None
    ensure_blas()  # SciPy's BLAS: an ImportError when it is missing, which the compiler reports

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        from numba.np.linalg import check_blas_return, get_blas_kind, make_constant_slot

        x_value, x_order_value, x_ld_value, y_value, y_order_value, y_ld_value, out_value = args
        char = ir.IntType(8)
        void_p = char.as_pointer()
        intp = context.get_value_type(nbtypes.intp)
        x_array, y_array, out_array = (
            context.make_array(ty)(context, builder, value)
            for ty, value in zip(signature.args[::3], (x_value, y_value, out_value), strict=True)
        )
        m, k = cgutils.unpack_tuple(builder, x_array.shape)
        n = cgutils.unpack_tuple(builder, y_array.shape)[1]

        def integer(value: Any, ty: Any) -> Any:
            return context.cast(builder, value, ty, nbtypes.intp)

        def transposed(order: Any, ty: Any) -> Any:  # 'n' as it lies by rows, 't' by columns
            rows = builder.icmp_signed("==", integer(order, ty), ir.Constant(intp, ROWS))
            return builder.select(rows, ir.Constant(char, ord("n")), ir.Constant(char, ord("t")))

        dtype = signature.args[0].dtype
        function_type = ir.FunctionType(
            ir.IntType(32),
            [char, char, char, intp, intp, intp, void_p, void_p, intp, void_p, intp, void_p, void_p, intp],
        )
        function = cgutils.get_or_insert_function(builder.module, function_type, "numba_xxgemm")
        alpha = builder.bitcast(make_constant_slot(context, builder, dtype, 1.0), void_p)
        beta = builder.bitcast(make_constant_slot(context, builder, dtype, 0.0), void_p)
        one = ir.Constant(intp, 1)
        leading_out = builder.select(builder.icmp_signed(">", n, one), n, one)
        status = builder.call(
            function,
            (
                ir.Constant(char, ord(get_blas_kind(dtype))),
                transposed(y_order_value, signature.args[4]),
                transposed(x_order_value, signature.args[1]),
                n,
                m,
                k,
                alpha,
                builder.bitcast(y_array.data, void_p),
                integer(y_ld_value, signature.args[5]),
                builder.bitcast(x_array.data, void_p),
                integer(x_ld_value, signature.args[2]),
                beta,
                builder.bitcast(out_array.data, void_p),
                leading_out,
            ),
        )
        check_blas_return(context, builder, status)
        return context.get_dummy_value()

    return nbtypes.none(x, x_order, x_ld, y, y_order, y_ld, out), codegen


@intrinsic
def thread_count(typingctx: Any) -> Any:
    """The number of threads a ``prange`` loop started here would run on: what numba's parfor
    code asks the package's runtime (its ``get_num_threads``, 1 inside a task). For work split
    into one contiguous share per thread, where the split cannot change any result."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        intp = context.get_value_type(nbtypes.intp)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(intp, []), "get_num_threads"
        )
        return builder.call(function, [])

    return nbtypes.intp(), codegen


_TARGET_HAS_FMA = [False]


@contextmanager
def native_fma(available: bool) -> Iterator[None]:
    """Code compiled within has ``has_fma()`` equal to ``available`` (False outside: numba's own
    JIT, as the tests use it, takes the path every CPU can run)."""
    before = _TARGET_HAS_FMA[0]
    _TARGET_HAS_FMA[0] = available
    try:
        yield
    finally:
        _TARGET_HAS_FMA[0] = before


def fma_target() -> bool:
    """Whether the code being compiled now is for a target with FMA (see :func:`native_fma`):
    what ``has_fma()`` folds to, so what a compiled function may be reused for."""
    return _TARGET_HAS_FMA[0]


@intrinsic
def has_fma(typingctx: Any) -> Any:
    """Whether the CPU target being compiled for has fused multiply-add (see :func:`native_fma`):
    a constant LLVM folds, so ``if has_fma():`` leaves one branch in the machine code."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return context.get_constant(nbtypes.boolean, _TARGET_HAS_FMA[0])

    return nbtypes.boolean(), codegen


@intrinsic
def fma(typingctx: Any, x: Any, y: Any, z: Any) -> Any:
    """``x * y + z`` rounded once (LLVM's ``llvm.fma``): one instruction on a target with FMA, a
    call of the C library's ``fma`` elsewhere, so only for code behind ``if has_fma():``."""
    if not (isinstance(x, nbtypes.Float) and x == y == z):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        value = context.get_value_type(signature.args[0])
        suffix = "f64" if value == ir.DoubleType() else "f32"
        function_type = ir.FunctionType(value, [value, value, value])
        function = cgutils.get_or_insert_function(builder.module, function_type, f"llvm.fma.{suffix}")
        return builder.call(function, args)

    return x(x, y, z), codegen
