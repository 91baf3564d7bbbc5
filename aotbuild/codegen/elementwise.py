"""Render an elementwise node (ufunc, ``where``, ``astype``) — or a fused tree of them — into
its Op module: one loop nest over the broadcast shape with the scalar code in its body."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from ..graph import Elementwise, Node
from ..graph.array_ops import Roll
from ..graph.fused import ROLL, TAKE, Fused, FusedStep
from ..types import Array
from . import vecmath
from .module import OpModule, template_op, with_parallel_loops
from .scalar import Helper, load_expression, scalar_expression
from .slots import Slot, input_slots
from .templates import all_of, render, tuple_text


@dataclass(frozen=True)
class Rows:
    """A loop nest reading each input's row as a C-contiguous 1-d array (see
    :meth:`Broadcast.rows`)."""

    checked: list[str]
    """The inputs whose rows it retypes: ``unit_rows`` is true when each has a unit stride along
    its last axis (or one element there)."""

    statements: list[str]
    """Run for each row, before the inner loop: the rows ``r<k>``."""

    reads: list[str]
    """Each input read in the inner loop."""

    segments: dict[str, object] | None
    """With inputs rolled along the last axis, the inner loop in segments: the rolled inputs'
    ``offsets`` (where segments end), the ``views`` of the rows from the segment's start, and
    the segment of the result row, ``out``."""

    @property
    def needed(self) -> bool:
        """Whether it differs from the loop of direct reads."""
        return bool(self.statements or self.segments)


@dataclass(frozen=True)
class Broadcast:
    """How the inputs of an elementwise loop are read at the loop's indices."""

    extents: list[str]
    """The result's length along each axis (``n0, n1, ...``)."""

    axis_sources: list[list[str]]
    """The input lengths each axis of the result is broadcast from (inputs align at the right)."""

    steps: list[dict[str, object]]
    """Step variables: 0 along an axis an input broadcasts (length 1), else 1 (``name``, the
    input's ``source`` and ``axis``, and ``along``: the result's axis)."""

    inputs: list[tuple[str, int, frozenset[int]]]
    """Each input's name, dimensions (0: a scalar) and axes known to be of length 1."""

    rolls: list[dict[str, object]] = field(default_factory=list)
    """The offsets of inputs read at rolled positions (``np.roll`` by constants joined into the
    loop): ``name`` (``o<k>_<axis>``), the input's ``source`` and ``axis``, and its ``shift``.
    Along that axis the input is read at ``(i - o) mod n``, ``o = shift mod n`` (NumPy's)."""

    def offset(self, name: str, axis: int) -> str | None:
        """The offset variable of input ``name`` rolled along its ``axis``, if it is."""
        for roll in self.rolls:
            if roll["source"] == name and roll["axis"] == axis:
                return str(roll["name"])
        return None

    def _indices(self, axes: Collection[int]) -> list[list[str]]:
        """Each input's index at the current loop indices (empty for a scalar), direct along
        ``axes``, stepped along the other axes it may broadcast on, 0 where known to be 1, and
        rolled (:attr:`rolls`) where the input is."""
        ndim = len(self.extents)
        steps = {(step["source"], step["axis"]): step["name"] for step in self.steps}
        indices = []
        for name, dims, units in self.inputs:
            index = []
            for axis in range(dims):
                along = axis + ndim - dims
                step = steps.get((name, axis)) if along not in axes else None
                position = f"i{along} * {step}" if step else f"i{along}"
                offset = self.offset(name, axis)
                if offset is not None:
                    position = f"rolled({position}, {offset}, {name}.shape[{axis}])"
                index.append("0" if axis in units else position)
            indices.append(index)
        return indices

    def rows(self, contiguous: Collection[str]) -> Rows:
        """The loop nest over rows, for when no input is broadcast and each array input's last
        axis is contiguous: each input's row along the last axis, typed C-contiguous (``contiguous``
        names the inputs already typed so), read at the inner index. LLVM sees unit strides and
        vectorises the inner loop, integer or float (a uint32 3x3 stencil of views: 7x faster);
        with any-layout rows it sees strides known only at run time, and does not. An input rolled
        along the last axis makes the inner loop run in segments, within which every rolled row is
        read from a fixed start: two runs per rolled input, copied as slices are."""
        ndim = len(self.extents)
        last = ndim - 1
        direct = self._indices(range(ndim))
        segmented = any(self.offset(name, dims - 1) is not None for name, dims, _ in self.inputs if dims)
        checked: list[str] = []
        statements: list[str] = []
        reads: list[str] = []
        offsets: list[str] = []
        views: list[str] = []
        for k, ((name, dims, units), index) in enumerate(zip(self.inputs, direct, strict=True)):
            if not dims or dims - 1 in units:  # a scalar, or one value along the last axis
                reads.append(f"{name}[{', '.join(index)}]" if dims else name)
                continue
            rolled = any(self.offset(name, axis) is not None for axis in range(dims))
            row = f"{name}[{', '.join(index[:-1])}]" if dims > 1 else name
            if name not in contiguous:
                checked.append(name)
                row = f"contiguous({row})"
            elif not (rolled or segmented):
                reads.append(f"{name}[{', '.join(index)}]")
                continue
            if row != name:
                statements.append(f"r{k} = {row}")
                row = f"r{k}"
            if not segmented:
                reads.append(f"{row}[i{last}]")
                continue
            offset = self.offset(name, dims - 1)
            if offset is None:
                views.append(f"v{k} = {row}[lo:]")
            else:
                offsets.append(offset)
                views.append(f"v{k} = {row}[lo - {offset} + ({self.extents[last]} if lo < {offset} else 0):]")
            reads.append(f"v{k}[j]")
        segments: dict[str, object] | None = None
        if segmented:
            outer = ", ".join(f"i{d}" for d in range(last))
            segments = {
                "offsets": list(dict.fromkeys(offsets)),
                "views": views,
                "out": f"out[{outer + ', ' if outer else ''}lo:hi]",
            }
        return Rows(checked, statements, reads, segments)

    def reads_direct_on(self, axes: Collection[int]) -> list[str]:
        """Each input read at the current index, its name if a scalar: ``a0[i0 * s0_0, i1]``,
        indexed directly along ``axes`` (valid where :meth:`direct_on` holds); an axis known to
        be of length 1 is read at 0."""
        return [
            f"{name}[{', '.join(index)}]" if dims else name
            for (name, dims, _), index in zip(self.inputs, self._indices(axes), strict=True)
        ]

    def blocks(self, axes: list[int]) -> list[tuple[str, str, bool]] | None:
        """Each array input over the trailing ``axes`` at the current index of the others, as
        (input, code, is_block): its block as a view, ``("a0", "a0[i0 * s0_0, :, :]", True)``,
        to be read as one run of values where no input is broadcast along ``axes``; or, where
        its axes among them are all known to be of length 1, its one value there,
        ``("a1", "a1[i0 * s1_0, 0, 0]", False)``. None when an input is neither (it spans only
        some of ``axes``, or is known to be 1 along only some)."""
        ndim = len(self.extents)
        found = []
        for (name, dims, units), index in zip(self.inputs, self._indices(axes), strict=True):
            if not dims:
                continue
            spanned = [axis for axis in range(dims) if axis + ndim - dims in axes]
            if all(axis in units for axis in spanned):
                found.append((name, f"{name}[{', '.join(index)}]", False))
            elif len(spanned) == len(axes) and not any(axis in units for axis in spanned):
                block = [":" if axis in spanned else item for axis, item in enumerate(index)]
                found.append((name, f"{name}[{', '.join(block)}]", True))
            else:
                return None
        return found

    def broadcast_views(self) -> tuple[list[str], list[str]]:
        """The inputs read through views broadcast to the result's shape (``broadcast_view``, as
        ``np.broadcast_to``: a broadcast axis has stride 0), indexed directly: (statements making
        the views, reads). One loop then serves every case, with no step to multiply by. A rolled
        axis is read at its rolled position in the input's own length (offset 0 where that is 1,
        broadcast)."""
        statements, reads = [], []
        stepped = {str(step["source"]) for step in self.steps}
        ndim = len(self.extents)
        shape = tuple_text(self.extents)
        direct = self.direct_reads
        for (name, dims, _), read in zip(self.inputs, direct, strict=True):
            if name in stepped:
                statements.append(f"{name}_b = broadcast_view({name}, {shape})")
                index = [f"i{d}" for d in range(ndim)]
                for axis in range(dims):
                    offset = self.offset(name, axis)
                    if offset is not None:
                        along = axis + ndim - dims
                        index[along] = f"rolled(i{along}, {offset}, {name}.shape[{axis}])"
                reads.append(f"{name}_b[{', '.join(index)}]")
            else:
                reads.append(read)
        return statements, reads

    @property
    def step_statements(self) -> list[str]:
        """The lines setting the steps, one per input that has any: ``s0_0, _, s0_2 =
        broadcast_steps(a0)`` (``_``: an axis it needs no step along). One call per input: a
        conditional per step was a dozen operations for numba to type and lower, ~10 ms each."""
        named: dict[str, dict[object, str]] = {}
        for step in self.steps:
            named.setdefault(str(step["source"]), {})[step["axis"]] = str(step["name"])
        dims = {name: ndim for name, ndim, _ in self.inputs}
        lines = []
        for source, steps in named.items():
            if len(steps) == 1:
                ((axis, name),) = steps.items()
                lines.append(f"{name} = broadcast_steps({source})[{axis}]")
            else:
                targets = [steps.get(axis, "_") for axis in range(dims[source])]
                lines.append(f"{', '.join(targets)} = broadcast_steps({source})")
        return lines

    def step_imports(self, *conditions: str) -> list[str]:
        """The intrinsics the step lines and ``conditions`` (made by :meth:`direct_on`) call."""
        called = ["all_unit"] if any("all_unit(" in condition for condition in conditions) else []
        return sorted(called + (["broadcast_steps"] if self.steps else []))

    def direct_on(self, axes: Collection[int]) -> str:
        """The run-time condition under which no input is broadcast along ``axes``: every step
        there is 1 (``all_unit``: one call, not a chain of comparisons)."""
        names = [str(step["name"]) for step in self.steps if step["along"] in axes]
        if len(names) <= 1:
            return all_of([f"{name} == 1" for name in names])
        return f"all_unit({', '.join(names)})"

    @property
    def reads(self) -> list[str]:
        return self.reads_direct_on(())

    @property
    def direct_reads(self) -> list[str]:
        """The reads where no input is broadcast (every step 1): ``a0[i0, i1]``. Without the
        run-time multipliers LLVM sees each input's stride and vectorises the loop (a 5-point
        stencil over views of one array ran 1.7x faster)."""
        return self.reads_direct_on(range(len(self.extents)))

    @property
    def all_direct(self) -> str:
        """The run-time condition under which ``direct_reads`` hold."""
        return self.direct_on(range(len(self.extents)))


def broadcast(
    slots: list[Slot],
    ndim: int,
    gathered: Collection[int] = (),
    rolled: dict[int, tuple[int, ...]] | None = None,
) -> Broadcast:
    """``gathered``: inputs read at indices (a fused gather's source), not broadcast: they are
    passed as they are, as a scalar would be. ``rolled``: inputs read at rolled positions, with
    their shift along each axis (a fused ``np.roll``)."""
    extents = [f"n{d}" for d in range(ndim)]
    axis_sources: list[list[str]] = [[] for _ in range(ndim)]
    for k, slot in enumerate(slots):
        if k in gathered:
            continue
        for axis in range(slot.ndim):
            if axis not in slot.units:  # a length-1 axis broadcasts to any length
                axis_sources[ndim - slot.ndim + axis].append(f"{slot.name}.shape[{axis}]")
    for sources in axis_sources:
        if not sources:
            sources.append("1")  # every input has length 1 here
    steps: list[dict[str, object]] = []
    for k, slot in enumerate(slots):
        offset = ndim - slot.ndim
        for axis in range(0 if k in gathered else slot.ndim):
            # An axis only this input spans has its length: no step needed, it is never broadcast.
            if axis not in slot.units and len(axis_sources[axis + offset]) > 1:
                step = {"name": f"s{k}_{axis}", "source": slot.name, "axis": axis, "along": axis + offset}
                steps.append(step)
    inputs = [(slot.name, 0 if k in gathered else slot.ndim, slot.units) for k, slot in enumerate(slots)]
    rolls: list[dict[str, object]] = [
        {"name": f"o{k}_{axis}", "source": slots[k].name, "axis": axis, "shift": shift}
        for k, shifts in sorted((rolled or {}).items())
        for axis, shift in enumerate(shifts)
        if shift and axis not in slots[k].units  # an axis of length 1 rolls onto itself
    ]
    return Broadcast(extents, axis_sources, steps, inputs, rolls)


def helper_sources(helpers: list[Helper], library: Collection[str] = ()) -> list[str]:
    """The source of every helper template and vector math function the code calls."""
    unique = {helper.function: helper for helper in helpers}
    names = sorted({*library, *(name for helper in helpers for name in helper.library)})
    functions = vecmath.sources(names)
    intrinsics = vecmath.intrinsics_import(names)
    if functions:
        functions[0] = f"{vecmath.HEADING}\n{functions[0]}"
    imports = (
        ["from aotbuild.compile.external import cython_export"]
        if any(h.template == "cython_special" for h in helpers)
        else []
    )
    return (
        imports
        + intrinsics
        + functions
        + [
            render(f"ops/scalar/{h.template}.py.j2", **h.render_context()).rstrip()
            for _, h in sorted(unique.items())
        ]
    )


def _loop_inputs(node: Node) -> tuple[list[Slot], Broadcast, int]:
    """The inputs of ``node``'s loop, how they are read, and the loop's depth (the result's ndim)."""
    ndim = node.type.ndim if isinstance(node.type, Array) else 0
    slots = input_slots(node)
    gathered = node.op.gathered if isinstance(node.op, Fused) else frozenset()
    rolled = node.op.rolled if isinstance(node.op, Fused) else {}
    return slots, broadcast(slots, ndim, gathered, rolled), ndim


@dataclass(frozen=True)
class FusedBody:
    """The scalar code of fused steps at one index: statements, then the value's expression."""

    statements: list[str]
    value: str
    helpers: list[Helper]
    library: list[str]
    """Vector math functions the code calls."""

    checks: list[str]
    """Conditions for the vector math to be right (see :class:`~aotbuild.codegen.scalar.ScalarCode`)."""


#: The scalar code at one index, given how each input is read and whether it must be exact
#: (the C library's transcendental functions, not the vector math).
LoopCode = Callable[[list[str], bool], FusedBody]


#: Elements from which a parallel graph's loop runs on several threads: below, a loop of simple
#: arithmetic takes less than the ~2 us of handing it to the pool and back.
PARALLEL_SIZE = 1 << 15


def render_elementwise(node: Node, inplace: Node | None = None, parallel: bool = False) -> OpModule:
    """``inplace``: an input that dies here, to write the result into when its shape allows
    (see :mod:`aotbuild.codegen.buffers`)."""
    op = node.op
    assert isinstance(op, Elementwise)
    slots, plan, ndim = _loop_inputs(node)

    def code(reads: list[str], exact: bool) -> FusedBody:
        loads = [
            load_expression(read, slot.dtype, dtype)
            for read, slot, dtype in zip(reads, slots, op.in_dtypes, strict=True)
        ]
        scalar_inputs = tuple(slot.ndim == 0 for slot in slots)
        constants = tuple(slot.array if slot.is_constant else None for slot in slots)
        scalar = scalar_expression(op.fn, op.in_dtypes, loads, scalar_inputs, exact, constants=constants)
        return FusedBody([], scalar.expression, scalar.helpers, scalar.library, scalar.checks)

    title = f"{op.fn}({', '.join(s.describe() for s in slots)}) -> {node.type}"
    return _loop_module(node, slots, plan, ndim, op.fn, title, op.out_dtype, code, inplace, parallel=parallel)


def _loop_module(
    node: Node,
    slots: list[Slot],
    plan: Broadcast,
    ndim: int,
    name: str,
    title: str,
    out_dtype: str,
    code: LoopCode,
    inplace: Node | None,
    bounds: list[dict[str, object]] | None = None,
    parallel: bool = False,
) -> OpModule:
    """The module of an elementwise loop: at each index, ``code``'s statements then
    ``out[...] = value``. With ``inplace``, a first loop nest writes into that input when it has
    the result's shape, reading it through ``out``: one array read and written at the same index,
    which LLVM vectorises (two names for one array would fail its overlap check)."""
    indices = [f"i{d}" for d in range(ndim)]
    helpers: list[Helper] = []
    library: list[str] = []
    checks: list[str] = []

    # Vector math makes a loop body long: its general loop reads broadcast views rather than
    # stepping by multipliers (LLVM's optimiser took minutes over pow's, unswitched on each step).
    # The direct loop stays: over views, whose strides LLVM cannot see, exp ran 5x slower.
    heavy = bool(code(plan.direct_reads, False).library) and ndim > 0
    views, view_reads = plan.broadcast_views() if heavy and plan.steps else ([], [])
    # LLVM versions a short loop on a unit stride by itself, but not one with vector math in it:
    # there a 1-d input of any layout is read as C-contiguous (a copy where it is not, made by a
    # loop into np.empty: numba's .copy() allocates through a function it caches per process,
    # which made an Op's object depend on what the process had compiled before, and
    # np.ascontiguousarray is a function each worker compiles again, 0.36 s the first time).
    gathered = node.op.gathered if isinstance(node.op, Fused) else frozenset()
    retyped = {
        slot.name: slot.dtype
        for k, (slot, item) in enumerate(zip(slots, node.inputs, strict=True))
        if heavy
        and isinstance(slot.type, Array)
        and slot.ndim == 1
        and slot.type.layout == "A"
        and not slot.type.readonly
        and not slot.is_constant
        and k not in gathered
        and item is not inplace
    }

    # Inputs typed C-contiguous (their rows need no check), and the loop over rows where any is not.
    contiguous = {
        slot.name
        for slot in slots
        if slot.is_constant or (isinstance(slot.type, Array) and slot.type.layout == "C")
    } | set(retyped)
    rows = plan.rows(contiguous) if ndim > 0 else None
    if rows is not None and not rows.needed:
        rows = None

    def nests(replaced: dict[int, str], exact: bool = False) -> list[dict[str, object]]:
        """The loop nests computing the result, each with the run-time condition it needs (the
        last one none): over contiguous rows, then direct indices, when no input is broadcast;
        then the general ones."""
        found: list[dict[str, object]] = []
        variants: list[tuple[str, str, list[str], Rows | None]] = [
            ("direct", "direct", plan.direct_reads, None),
            ("general", "", view_reads if views else plan.reads, None),
        ]
        if not plan.steps:
            variants = [("direct", "", plan.direct_reads, None)]
        if rows is not None:
            if not rows.checked:  # no stride to check: rows wherever direct
                variants = variants[1:] if plan.steps else []
            # when no input is broadcast, and every row it retypes has a unit stride
            condition = all_of((["direct"] if plan.steps else []) + (["unit_rows"] if rows.checked else []))
            variants.insert(0, ("rows", condition, rows.reads, rows))
        for kind, condition, reads, row_nest in variants:
            body = code([replaced.get(k, read) for k, read in enumerate(reads)], exact or ndim == 0)
            helpers.extend(body.helpers)
            library.extend(body.library)
            checks.extend(body.checks)
            recorded = [f"beyond |= not {check}" for check in body.checks]
            found.append(
                {
                    "kind": kind,
                    "condition": condition,
                    "rows": row_nest.statements if row_nest else [],
                    "segments": row_nest.segments if row_nest else None,
                    "statements": body.statements + recorded,
                    "body": body.value,
                }
            )
        return found

    loops = nests({})
    # Some vector math is right only within a range (sin of a huge argument): the loop records
    # whether an argument was beyond it, and then runs again with the C library's functions.
    exact_loops = nests({}, exact=True) if checks else []
    context: dict[str, object] | None = None
    # A second run must read the inputs unchanged; a rolled input is read where others are written.
    if inplace is not None and not exact_loops and not plan.rolls:
        positions = [k for k, item in enumerate(node.inputs) if item is inplace]
        through_out = f"out[{', '.join(indices)}]"
        reused = slots[positions[0]].name
        fits = all_of([f"{reused}.shape[{d}] == {extent}" for d, extent in enumerate(plan.extents)])
        context = {"slot": reused, "fits": fits, "loops": nests(dict.fromkeys(positions, through_out))}
    # A 1-d loop reading inputs at gathered indices: computed in blocks on the stack, which LLVM
    # vectorises (see the template); a parallel one splits as before, a segmented one (rolled) not.
    blocked = bool(bounds) and ndim == 1 and not parallel and not (rows and rows.segments)
    intrinsics = {"scratch"} if blocked else set()
    if retyped or (rows and any("contiguous(" in line for line in rows.statements)):
        intrinsics.add("contiguous")
    if views:
        intrinsics.add("broadcast_view")
    intrinsics.update(plan.step_imports(plan.all_direct))
    if rows and rows.checked:
        intrinsics.add("unit_strides")
    module = template_op(
        "ops/elementwise.py.j2",
        node,
        slots,
        name=f"{name}_inplace" if context is not None else name,
        title=f"{title}, in place" if context is not None else title,
        inplace=context,
        out_dtype=out_dtype,
        helpers=helper_sources(helpers, library),
        ndim=ndim,
        extents=plan.extents,
        steps=plan.steps,
        step_statements=plan.step_statements,
        all_direct=plan.all_direct,
        indices=indices,
        axis_sources=plan.axis_sources,
        loops=loops,
        exact_loops=exact_loops,
        views=views,
        fused=isinstance(node.op, Fused),
        bounds=bounds or [],
        parallel=PARALLEL_SIZE if parallel and ndim > 0 else 0,
        blocked=blocked,
        retyped=retyped,
        rolls=plan.rolls,
        row_checks=rows.checked if rows else [],
        intrinsics=sorted(intrinsics),
    )
    if parallel and ndim > 0:
        module = with_parallel_loops(module)
    return module


def fused_body(
    steps: tuple[FusedStep, ...],
    slots: list[Slot],
    reads: list[str],
    exact: bool = False,
    plain: bool = False,
) -> FusedBody:
    """Each array input read once into ``x<k>`` (scalars and constants used as they are), each
    step but the last computed into ``t<j>`` in its dtype under a comment naming its Op;
    ``exact``: the C library's transcendental functions rather than the vector math; ``plain``:
    steps whose exact code only differs where the plain one gives NaN take the plain one (see
    :func:`aotbuild.codegen.scalar.scalar_expression`)."""
    count = len(slots)
    gathered = {step.args[0] for step in steps if step.fn == TAKE}  # read at indices, as they are
    pairs = enumerate(zip(reads, slots, strict=True))
    statements = [f"x{k} = {read}" for k, (read, slot) in pairs if slot.ndim and k not in gathered]
    dtypes = [slot.dtype for slot in slots] + [step.out_dtype for step in steps]
    names = [f"x{k}" if slot.ndim and k not in gathered else slot.name for k, slot in enumerate(slots)]
    names += [f"t{j}" for j in range(len(steps))]
    helpers: list[Helper] = []
    library: list[str] = []
    checks: list[str] = []
    value = ""
    for j, step in enumerate(steps):
        if step.fn == ROLL:
            # the input is read at the rolled position already (see Broadcast.rolls)
            (rolled_input,) = step.args
            rolled = [(axis, shift) for axis, shift in enumerate(step.shifts) if shift]
            shifts, axes = (", ".join(str(item[i]) for item in rolled) for i in (1, 0))
            shifts, axes = (f"({text})" if len(rolled) > 1 else text for text in (shifts, axes))
            name = names[rolled_input]
            read = f", read as {name}" if name != slots[rolled_input].name else ""
            described = _describe(rolled_input, count, slots)
            statements.append(f"# t{j}: np.roll({described}, {shifts}, axis={axes}){read}")
            names[count + j] = name
            if j == len(steps) - 1:
                value = name
            continue
        if step.fn == TAKE:
            source, index = (names[arg] for arg in step.args)
            statements.append(
                f"# {_describe(step.args[0], count, slots)}[{_describe(step.args[1], count, slots)}]"
            )
            if j == len(steps) - 1:
                value = f"{source}[{index}]"
            else:
                statements.append(f"t{j} = {source}[{index}]")
            continue
        loads = [
            load_expression(names[arg], dtypes[arg], dtype)
            for arg, dtype in zip(step.args, step.in_dtypes, strict=True)
        ]
        scalars = tuple(n == 0 for n in step.ndims)
        constants = tuple(
            slots[arg].array if arg < count and slots[arg].is_constant else None for arg in step.args
        )
        scalar = scalar_expression(step.fn, step.in_dtypes, loads, scalars, exact, plain, constants)
        expression = scalar.expression
        helpers += scalar.helpers
        library += scalar.library
        checks += scalar.checks
        described = ", ".join(_describe(arg, count, slots) for arg in step.args)
        statements.append(f"# {step.fn}({described}) -> {step.out_dtype}")
        if j == len(steps) - 1:
            value = expression
        else:
            statements.append(f"t{j} = np.{step.out_dtype}({expression})")
    return FusedBody(statements, value, helpers, library, checks)


def render_fused(node: Node, inplace: Node | None = None, parallel: bool = False) -> OpModule:
    """One loop for the whole tree (:func:`fused_body` in its body), the last value stored;
    ``inplace`` and ``parallel`` as for :func:`render_elementwise`."""
    op = node.op
    assert isinstance(op, Fused)
    slots, plan, ndim = _loop_inputs(node)

    def code(reads: list[str], exact: bool) -> FusedBody:
        return fused_body(op.steps, slots, reads, exact)

    fns = [step.fn for step in op.steps]
    title = f"fused {'·'.join(fns)}({', '.join(s.describe() for s in slots)}) -> {node.type}"
    name = "fused_" + "_".join(dict.fromkeys(fns))[:40]
    out_dtype = op.steps[-1].out_dtype
    return _loop_module(
        node, slots, plan, ndim, name, title, out_dtype, code, inplace, _bounds(op, slots), parallel
    )


def render_roll(node: Node) -> OpModule:
    """``np.roll`` by constants on its own (its value stored, or not read by an elementwise loop
    of its dimensions): the loop of a fused roll with nothing else in it, which copies each row
    in two runs as NumPy's two slice copies do."""
    op = node.op
    assert isinstance(op, Roll) and isinstance(node.type, Array)
    step = FusedStep(ROLL, (node.type.dtype,), node.type.dtype, (0,), (node.type.ndim,), op.shifts)
    return render_fused(Node.make(Fused((step,)), node.inputs))


def _bounds(op: Fused, slots: list[Slot]) -> list[dict[str, object]]:
    """Each gathered input's length against the largest of its constant indices (checked once,
    before the loop; the fusion pass joins only gathers by non-negative constant indices)."""
    bounds = []
    for step in op.steps:
        if step.fn == TAKE:
            source, index = (slots[arg] for arg in step.args)
            top = index.largest_index
            assert top is not None, "gathers join a loop by non-negative constant indices only"
            if top >= 0:
                bounds.append({"size": f"{source.name}.shape[0]", "top": top, "axis": 0})
    return bounds


def _describe(arg: int, count: int, slots: list[Slot]) -> str:
    if arg < count:
        return slots[arg].describe() if slots[arg].is_constant else slots[arg].name
    return f"t{arg - count}"
