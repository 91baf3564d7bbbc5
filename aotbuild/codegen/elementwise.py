"""Render an elementwise node (ufunc, ``where``, ``astype``) — or a fused tree of them — into
its Op module: one loop nest over the broadcast shape with the scalar code in its body."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from ..graph import Elementwise, Node
from ..graph.fused import TAKE, Fused, FusedStep
from ..types import Array
from . import vecmath
from .module import OpModule, template_op, with_parallel_loops
from .scalar import Helper, load_expression, scalar_expression
from .slots import Slot, input_slots
from .templates import render, tuple_text


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

    def _indices(self, axes: Collection[int]) -> list[list[str]]:
        """Each input's index at the current loop indices (empty for a scalar), direct along
        ``axes``, stepped along the other axes it may broadcast on, 0 where known to be 1."""
        ndim = len(self.extents)
        steps = {(step["source"], step["axis"]): step["name"] for step in self.steps}
        indices = []
        for name, dims, units in self.inputs:
            index = []
            for axis in range(dims):
                along = axis + ndim - dims
                step = steps.get((name, axis)) if along not in axes else None
                index.append("0" if axis in units else f"i{along} * {step}" if step else f"i{along}")
            indices.append(index)
        return indices

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
        """The inputs read through views broadcast to the result's shape (``np.broadcast_to``:
        a broadcast axis has stride 0), indexed directly: (statements making the views, reads).
        One loop then serves every case, with no step to multiply by."""
        statements, reads = [], []
        stepped = {str(step["source"]) for step in self.steps}
        shape = tuple_text(self.extents)
        direct = self.direct_reads
        for (name, _, _), read in zip(self.inputs, direct, strict=True):
            if name in stepped:
                statements.append(f"{name}_b = np.broadcast_to({name}, {shape})")
                reads.append(f"{name}_b[{', '.join(f'i{d}' for d in range(len(self.extents)))}]")
            else:
                reads.append(read)
        return statements, reads

    def direct_on(self, axes: Collection[int]) -> str:
        """The run-time condition under which no input is broadcast along ``axes``."""
        return " and ".join(f"{step['name']} == 1" for step in self.steps if step["along"] in axes)

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


def broadcast(slots: list[Slot], ndim: int, gathered: Collection[int] = ()) -> Broadcast:
    """``gathered``: inputs read at indices (a fused gather's source), not broadcast: they are
    passed as they are, as a scalar would be."""
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
    return Broadcast(extents, axis_sources, steps, inputs)


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
    return slots, broadcast(slots, ndim, gathered), ndim


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
        scalar = scalar_expression(op.fn, op.in_dtypes, loads, scalar_inputs, exact)
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
    # there a 1-d input of any layout is read as C-contiguous (a copy where it is not).
    gathered = node.op.gathered if isinstance(node.op, Fused) else frozenset()
    retyped = [
        slot.name
        for k, (slot, item) in enumerate(zip(slots, node.inputs, strict=True))
        if heavy
        and isinstance(slot.type, Array)
        and slot.ndim == 1
        and slot.type.layout == "A"
        and not slot.type.readonly
        and not slot.is_constant
        and k not in gathered
        and item is not inplace
    ]

    def nests(replaced: dict[int, str], exact: bool = False) -> list[dict[str, object]]:
        """The loop nests computing the result, each with the run-time condition it needs (the
        last one none): direct indices when no input is broadcast, then the general ones."""
        found: list[dict[str, object]] = []
        variants = [(plan.all_direct, plan.direct_reads), ("", plan.reads)]
        if not plan.steps:
            variants = [("", plan.direct_reads)]
        elif views:
            variants = [(plan.all_direct, plan.direct_reads), ("", view_reads)]
        for condition, reads in variants:
            body = code([replaced.get(k, read) for k, read in enumerate(reads)], exact or ndim == 0)
            helpers.extend(body.helpers)
            library.extend(body.library)
            checks.extend(body.checks)
            recorded = [f"beyond |= not {check}" for check in body.checks]
            found.append(
                {"condition": condition, "statements": body.statements + recorded, "body": body.value}
            )
        return found

    loops = nests({})
    # Some vector math is right only within a range (sin of a huge argument): the loop records
    # whether an argument was beyond it, and then runs again with the C library's functions.
    exact_loops = nests({}, exact=True) if checks else []
    context: dict[str, object] | None = None
    if inplace is not None and not exact_loops:  # a second run must read the inputs unchanged
        positions = [k for k, item in enumerate(node.inputs) if item is inplace]
        through_out = f"out[{', '.join(indices)}]"
        context = {"slot": slots[positions[0]].name, "loops": nests(dict.fromkeys(positions, through_out))}
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
        indices=indices,
        axis_sources=plan.axis_sources,
        loops=loops,
        exact_loops=exact_loops,
        views=views,
        fused=isinstance(node.op, Fused),
        bounds=bounds or [],
        parallel=PARALLEL_SIZE if parallel and ndim > 0 else 0,
        # A 1-d loop reading inputs at gathered indices: computed in blocks on the stack, which
        # LLVM vectorises (see the template); a parallel one splits as before.
        blocked=bool(bounds) and ndim == 1 and not parallel,
        retyped=retyped,
    )
    if parallel and ndim > 0:
        module = with_parallel_loops(module)
    return module


def fused_body(
    steps: tuple[FusedStep, ...], slots: list[Slot], reads: list[str], exact: bool = False
) -> FusedBody:
    """Each array input read once into ``x<k>`` (scalars and constants used as they are), each
    step but the last computed into ``t<j>`` in its dtype under a comment naming its Op;
    ``exact``: the C library's transcendental functions rather than the vector math."""
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
        scalar = scalar_expression(step.fn, step.in_dtypes, loads, scalars, exact)
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
