"""Render a reduction node — or a reduction of a fused elementwise value — into its Op module.

The module reduces in the order NumPy's iterator does for a C-contiguous input, so float sums
are NumPy's to the bit:

* **rows** (the last axis is reduced): the trailing reduced axes form one run per result
  element, summed with NumPy's pairwise recursion (leaves of up to 128 values, eight interleaved
  partial sums: :func:`aotbuild.compile.intrinsics.leaf_sum`); reduced axes before them add
  their runs in order. A C-contiguous run is summed where it lies; any other run, and a fused
  value, is computed leaf by leaf into a small buffer first (a loop LLVM vectorises).
* **columns** (the last axis is kept): NumPy adds whole rows into the result in C order, so the
  module does too, vectorised along the last axis.

Other reductions (``prod``, ``min``, ``max``, ``any``, ``all``, integer sums) combine in the
same C order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..graph import Node, Reduce
from ..graph.fused import FusedReduce
from ..types import Array
from .elementwise import PARALLEL_SIZE, broadcast, fused_body, helper_sources
from .module import OpModule, template_op, with_parallel_loops
from .scalar import Helper
from .slots import Slot, input_slots
from .templates import all_of

#: The most values NumPy's pairwise sum adds as one leaf (``PW_BLOCKSIZE``).
PAIRWISE_BLOCK = 128

#: The fewest entries of a kept last axis one thread takes, where it is split among the threads
#: (each takes one contiguous share): below, the rows' pieces are too short to stream well.
#: Shares of 1 KiB of each row of a (1000, 10000) array took 2.2x the time of whole rows;
#: 40 KiB, 1.04x.
COLUMNS_PER_TASK = 1024

#: The element functions of a fused reduction, in the order its module defines them.
ELEMENT_ORDER = ("element", "element_direct", "element_row")

_NUMPY_NAMES = {"min": "minimum", "max": "maximum"}


@dataclass(frozen=True)
class Reading:
    """How the reduced value is read at an index: ``read("i0", "i1")`` is its expression."""

    inputs: list[str]
    """The fused value's array inputs (empty: the reduction of a plain input ``a``)."""

    steps: list[str]
    """The broadcast steps ``element`` takes after the inputs (see ``Broadcast.steps``)."""

    direct_condition: str
    """When no input is broadcast along the run (rows) or at all (columns), so
    ``element_direct`` may read them without steps there (empty: never)."""

    def read(self, indices: list[str], direct: bool = False) -> str:
        if not self.inputs:
            return f"a[{', '.join(indices)}]"
        if direct and self.direct_condition:
            return f"element_direct({', '.join(self.inputs + self.steps + indices)})"
        return f"element({', '.join(self.inputs + self.steps + indices)})"


def _context(
    op: Reduce | FusedReduce,
    ndim: int,
    reading: Reading,
    row_views: list[tuple[str, str, bool]] | None = None,
    row_args: list[str] | None = None,
) -> dict[str, object]:
    """What ``ops/reduce.py.j2`` needs to reduce a value of ``ndim`` dimensions as ``op`` says."""
    reduced = list(op.axes)
    kept = _kept(op.axes, ndim)
    indices = [f"i{axis}" for axis in range(ndim)]
    if op.keepdims:
        out_index = ["0" if axis in op.axes else f"i{axis}" for axis in range(ndim)]
        out_shape = ["1" if axis in op.axes else f"n{axis}" for axis in range(ndim)]
    else:
        out_index = [f"i{axis}" for axis in kept]
        out_shape = [f"n{axis}" for axis in kept]
    dtype = np.dtype(op.out_dtype)
    pairwise = op.kind in ("sum", "mean") and dtype.kind in "fc"
    rows = bool(reduced) and reduced[-1] == ndim - 1
    run = _run_axes(op.axes, ndim)
    first_index = ["0" if axis in op.axes else f"i{axis}" for axis in range(ndim)]
    return {
        "kind": op.kind,
        "numpy_name": _NUMPY_NAMES.get(op.kind, op.kind),
        # Float max/min through LLVM's NaN-propagating intrinsics: the reduction vectorises.
        "float_extreme": op.kind in ("min", "max") and dtype.kind == "f",
        "out_dtype": op.out_dtype,
        "ndim": ndim,
        "reduced": reduced,
        "kept": kept,
        "indices": indices,
        "first": reading.read(first_index),
        "element": reading.read(indices),
        "element_direct": reading.read(indices, direct=True),
        "direct_condition": reading.direct_condition,
        "reads_direct": bool(reading.direct_condition),  # a loop reads through element_direct
        "reduced_count": " * ".join(f"n{axis}" for axis in reduced) or "1",
        "out_index": out_index,
        "out_shape": out_shape,
        "scalar_result": not op.keepdims and not kept,
        "structure": "rows" if rows else "columns",
        "pairwise": pairwise,
        "complex_sum": pairwise and dtype.kind == "c",
        "run": run,
        "run_length": " * ".join(f"n{axis}" for axis in run) or "1",
        # The run's block at the current indices: ``a[i0, :, :]``.
        "run_block": [":" if axis in run else f"i{axis}" for axis in range(ndim)],
        "block": PAIRWISE_BLOCK,
        "wide_dtype": "complex128" if dtype.kind == "c" else "float64",
        "rows": row_views or [],
        "rows_only": False,  # every run a row known C-contiguous (see render_fused_reduce)
        "step_statements": [],  # a fused value's inputs' broadcast steps (render_fused_reduce)
        "step_imports": [],
        "retyped": {},  # 1-d inputs of any layout read as C-contiguous (render_fused_reduce)
        "expanded": {},  # 1-d inputs of length 1 made as long as the run (render_fused_reduce)
        "row_args": row_args or [],
        "element_row": f"element_row({', '.join(row_args)}, i{ndim - 1})" if row_args else "",
        "outer_reduced": [axis for axis in reduced if axis not in run],
        # What ``fill`` takes to read a run: the input(s), the fixed indices, the run's lengths.
        "fill_params": [
            *(["a"] if not reading.inputs else [*reading.inputs, *reading.steps]),
            *(["direct"] if reading.direct_condition else []),
            *(f"i{axis}" for axis in range(ndim) if axis not in run),
            *(f"n{axis}" for axis in run),
        ],
    }


def _run_axes(axes: tuple[int, ...], ndim: int) -> list[int]:
    """The run: the trailing reduced axes, summed as one sequence (NumPy coalesces them); none
    when the last axis is kept."""
    run: list[int] = []
    for axis in reversed(range(ndim)):
        if axis not in axes:
            break
        run.insert(0, axis)
    return run


def _parallel(context: dict[str, object], parallel: bool) -> dict[str, object]:
    """What the template needs to run a reduction on the threads, with the same bits as on one:
    where trailing axes are reduced and others kept, the rows (``parallel_rows``: each result
    computed as on one thread); a float sum or mean of one run (all axes, or trailing ones kept
    as length 1), the nodes of its pairwise recursion (``parallel_run``); where the last axis is
    kept (``m.sum(axis=0)``), a share of it per thread (``parallel_columns``: each result adds
    its values in NumPy's order, as on one thread); min, max, any, all, integer sums and
    products of a whole array or fused value, a share of its first axis per thread
    (``parallel_whole``: exact in any order). ``parallel``: PARALLEL_SIZE when one applies,
    else 0."""
    rows = parallel and context["structure"] == "rows"
    parallel_rows = bool(rows and context["kept"])
    parallel_run = bool(rows and context["pairwise"] and not context["kept"] and not context["outer_reduced"])
    parallel_columns = parallel and context["structure"] == "columns"
    # Exact in any grouping: min and max (NaN-propagating), any, all, integer sums and products
    # (wrapping: arithmetic modulo 2**64 is associative).
    exact = context["kind"] in ("min", "max", "any", "all") or (
        context["kind"] in ("sum", "prod") and np.dtype(str(context["out_dtype"])).kind in "iub"
    )
    parallel_whole = bool(rows and exact and not context["kept"])
    chosen = parallel_rows or parallel_run or parallel_columns or parallel_whole
    return {
        "parallel": PARALLEL_SIZE if chosen else 0,
        "parallel_rows": parallel_rows,
        "parallel_run": parallel_run,
        "parallel_columns": parallel_columns,
        "parallel_whole": parallel_whole,
        "columns_per_task": COLUMNS_PER_TASK,
    }


def _with_parallel(module: OpModule, context: dict[str, object]) -> OpModule:
    if not context["parallel"]:
        return module
    return with_parallel_loops(module)


def render_reduce(node: Node, parallel: bool = False) -> OpModule:
    op = node.op
    assert isinstance(op, Reduce)
    slots = input_slots(node)
    (slot,) = slots
    assert isinstance(slot.type, Array) and not slot.is_constant
    title = f"{op.kind}({slot.type}, axis={tuple(op.axes)}, keepdims={op.keepdims}) -> {node.type}"
    context = _context(op, slot.ndim, Reading([], [], ""))
    context.update(_parallel(context, parallel))
    own_dtype = slot.dtype == op.out_dtype
    module = template_op(
        "ops/reduce.py.j2",
        node,
        slots,
        name=op.kind,
        title=title,
        elements=[],
        helpers=[],
        **context,
        # A run of the input's own dtype is summed where it lies; another is converted first.
        in_place_runs=own_dtype,
        # ... and of a C-contiguous input always lies in one piece: no driver for other layouts
        # (each driver is a function numba compiles, ~0.5 s).
        contiguous_input=own_dtype and getattr(slot.type, "layout", "A") == "C",
    )
    return _with_parallel(module, context)


def _element(
    name: str, arguments: list[str], indices: list[str], lines: list[str], fns: str, dtype: str
) -> str:
    return "\n".join(
        [
            "@register_jitable",
            f"def {name}({', '.join(arguments + indices)}):",
            f'    """The reduced value ({fns}) at ({", ".join(indices)}), in {dtype}."""',
            *(f"    {line}" for line in lines),
        ]
    )


def render_fused_reduce(node: Node, parallel: bool = False) -> OpModule:
    """The reduction reads ``element(inputs..., steps..., i0, i1, ...)``: the fused value at that
    index (:func:`~aotbuild.codegen.elementwise.fused_body`), computed as it is read; where no
    input is broadcast, ``element_direct(inputs..., i0, i1, ...)`` reads them without steps."""
    op = node.op
    assert isinstance(op, FusedReduce)
    slots = input_slots(node)
    ndim = max(slot.ndim for slot in slots)
    plan = broadcast(slots, ndim)
    indices = [f"i{d}" for d in range(ndim)]
    inputs = [slot.name for slot in slots if not slot.is_constant]
    steps = [str(s["name"]) for s in plan.steps]
    value_dtype = op.steps[-1].out_dtype
    fns = "·".join(step.fn for step in op.steps)
    helpers: list[Helper] = []
    elements: dict[str, str] = {}

    def add(name: str, arguments: list[str], at: list[str], reads: list[str]) -> None:
        """An element function computing the fused value from ``reads``. Exact: the C library's
        functions, never vector math (fuse keeps it out of reductions, which cannot run their
        values again past its range)."""
        body = fused_body(op.steps, slots, reads, exact=True)
        helpers.extend(body.helpers)
        lines = [*body.statements, f"return np.{value_dtype}({body.value})"]
        elements[name] = _element(name, arguments, at, lines, fns, value_dtype)

    # The axis or axes the innermost loops run along: read directly there when nothing is
    # broadcast along them, so LLVM sees the stride and vectorises.
    inner = _run_axes(op.axes, ndim) or [ndim - 1]
    direct_condition = plan.direct_on(inner)
    rows = plan.blocks(inner) or []
    if not any(is_row for _, _, is_row in rows):
        rows = []
    # Sums and means of floats (``summed``: real ones): pairwise, their runs read by the row
    # functions (other reductions read every value through ``element``).
    pairwise = op.kind in ("sum", "mean") and np.dtype(op.out_dtype).kind in "fc"
    summed = pairwise and np.dtype(op.out_dtype).kind == "f"
    # A 1-d run on this thread, each array input its row (none known to be 1 long).
    one_row_each = bool(rows and ndim == 1 and not parallel and all(is_row for _, _, is_row in rows))
    # A 1-d float sum of inputs that may broadcast (lengths 1 and n): a parameter of length 1 is
    # made n copies of its value first (once a call), so that nothing is broadcast where the
    # run is read and the inputs are its rows (below): no steps, and no second set of functions
    # reading checked rows (the example's 11-step sum of a normal log-density: 1.01-1.13 ->
    # 0.58-0.76 s of compile, one process, 4 rounds alternated). A constant has its length.
    expanded = {
        slot.name: slot.dtype
        for slot in slots
        if not slot.is_constant and any(step["source"] == slot.name for step in plan.steps)
    }
    if (
        direct_condition
        and one_row_each
        and summed
        and not any(slot.type.readonly for slot in slots if slot.name in expanded)  # type: ignore[union-attr]
    ):
        plan = replace(plan, steps=[])
        steps, direct_condition = [], ""
    else:
        expanded = {}
    # A 1-d run whose array inputs are all C-contiguous rows: wherever nothing is broadcast the
    # row path takes the run (its stride checks cannot fail), so no other loop reads without
    # steps: that loop and ``element_direct`` are not generated (the example's 11-step sum of a
    # normal log-density: 1.19 -> 1.07 s of compile, one process, best of 3).
    direct_in_rows = bool(
        direct_condition and one_row_each and all(_c_contiguous(slot) for slot in slots if slot.ndim)
    )
    row_args: list[str] = []
    row_call: list[str] = []
    row_call_args: list[str] = []
    # A 1-d float sum whose array inputs are each its row and never broadcast (one array, say,
    # or several made n long):
    # the row path calls ``run_sum`` and ``element`` themselves on the retyped rows (for
    # C-contiguous inputs the same types: numba compiles them once). Three functions fewer to
    # compile: 1.08 -> 0.66 s for one of the radon model's fused sums. Where inputs may be
    # broadcast, ``fill`` holds two loops and the shared path took 3-7% longer on 10^6 values.
    rows_are_inputs = one_row_each and not direct_condition and np.dtype(op.out_dtype).kind == "f"
    # ... and read as C-contiguous where it has any layout (a copy where it is strided): the
    # row path then calls them with the types of the other path, so numba compiles ``element``,
    # ``fill`` and ``run_sum`` once, not again for strided rows (a 6-step fused sum of a
    # float64[:]: 2.3-3.1 -> 1.6-1.9 s of compile on a loaded machine, 4 rounds alternated).
    any_layout = {
        slot.name: slot.dtype
        for slot in slots
        if rows_are_inputs
        and summed
        and isinstance(slot.type, Array)
        and slot.type.layout == "A"
        and not slot.type.readonly
        and not slot.is_constant
    }
    # Every run a row that is C-contiguous by its input's type (declared C order, nothing
    # broadcast along the run): the row path needs no check and no other path, so ``element``,
    # ``fill`` and ``run_sum`` are not generated (a float32 mean over the last two axes of a
    # C array: 1.47 -> 0.77 s of compile, one process, 4 rounds alternated).
    row_inputs = {name for name, _, is_row in rows if is_row}
    rows_only = bool(
        rows
        and _run_axes(op.axes, ndim)
        and not rows_are_inputs
        and not direct_condition
        and not (parallel and not _kept(op.axes, ndim))  # a parallel run's nodes go through run_sum
        and pairwise
        and all(_c_contiguous(slot) for slot in slots if slot.name in row_inputs)
    )
    if rows:
        row_call, row_views_retyped = _row_call(rows, inner, direct_condition, checked=not rows_only)
    if rows_are_inputs:
        retyped = {name: view for (name, _, _), view in zip(rows, row_views_retyped, strict=True)}
        row_args = [*inputs, *steps]
        row_call_args = [retyped.get(name, name) for name in inputs] + steps
    elif rows:
        # Each input's block over the run, checked C-contiguous and read as one row, or its one
        # value there: LLVM vectorises reading them.
        last = f"i{ndim - 1}"
        local = {name: f"{name}_c" if is_row else f"{name}_s" for name, _, is_row in rows}
        row_reads = {name for name, _, is_row in rows if is_row}
        reads = [
            f"{local[slot.name]}[{last}]" if slot.name in row_reads else local.get(slot.name, slot.name)
            for slot in slots
        ]
        scalars = [slot.name for slot in slots if not slot.is_constant and not slot.ndim]
        row_args = [*local.values(), *scalars]
        add("element_row", row_args, [last], reads)
        row_call_args = [*row_views_retyped, *scalars]
    if not rows_only:
        add("element", inputs + steps, indices, plan.reads)
    if direct_condition and not direct_in_rows:
        add("element_direct", inputs + steps, indices, plan.reads_direct_on(inner))
    reading = Reading(inputs, steps, direct_condition)
    title = (
        f"{op.kind}(fused {fns}({', '.join(s.describe() for s in slots)}), "
        f"axis={tuple(op.axes)}, keepdims={op.keepdims}) -> {node.type}"
    )
    context = _context(op, ndim, reading, rows, row_args)
    context["reads_direct"] = bool(direct_condition) and not direct_in_rows
    context["rows_only"] = rows_only
    context["retyped"] = any_layout
    context["expanded"] = expanded
    context["step_statements"] = plan.step_statements
    context["step_imports"] = plan.step_imports(direct_condition)
    context.update(_parallel(context, parallel))
    module = template_op(
        "ops/reduce.py.j2",
        node,
        slots,
        name=f"{op.kind}_fused",
        title=title,
        elements=[elements[name] for name in ELEMENT_ORDER if name in elements],
        helpers=helper_sources(helpers),
        in_place_runs=False,
        contiguous_input=False,
        axis_sources=plan.axis_sources,
        steps=plan.steps,
        row_call=row_call,
        row_call_args=row_call_args,
        rows_are_inputs=rows_are_inputs,
        **context,
    )
    return _with_parallel(module, context)


def _c_contiguous(slot: Slot) -> bool:
    """A constant (a C-contiguous array in module scope) or a parameter declared C order."""
    return slot.is_constant or (isinstance(slot.type, Array) and slot.type.layout == "C")


def _row_call(
    rows: list[tuple[str, str, bool]], run: list[int], direct_condition: str, checked: bool = True
) -> tuple[list[str], list[str]]:
    """The lines before ``run_sum_rows``'s call, ending (``checked``) with the condition it is
    called under (every row C-contiguous, nothing broadcast along the run), and the call's input
    arguments: each row retyped C (a block over several axes, reshaped to one row), or the one
    value. Taken once per run, not per leaf: making the views per leaf cost 2.5x the sum."""
    length = " * ".join(f"n{axis}" for axis in run)
    lines, checks, arguments = [], ["direct"] if direct_condition else [], []
    for name, code, is_row in rows:
        if not is_row:
            arguments.append(code)
            continue
        lines.append(f"{name}_row = {code}")
        if len(run) == 1:
            checks.append(f"{name}_row.strides[0] == {name}_row.itemsize")
            arguments.append(f"contiguous({name}_row)")
        else:
            checks.append(f"{name}_row.flags.c_contiguous")
            arguments.append(f"contiguous({name}_row).reshape({length})")
    return [*lines, f"if {all_of(checks)}:"] if checked else lines, arguments


def _kept(axes: tuple[int, ...], ndim: int) -> list[int]:
    return [axis for axis in range(ndim) if axis not in axes]
