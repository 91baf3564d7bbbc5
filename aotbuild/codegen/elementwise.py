"""Render an elementwise node (ufunc, ``where``, ``astype``) — or a fused tree of them — into
its Op module: one loop nest over the broadcast shape with the scalar code in its body."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from ..graph import Elementwise, Node
from ..graph.fused import Fused, FusedStep
from ..types import Array
from .module import OpModule, template_op
from .scalar import Helper, load_expression, scalar_expression
from .slots import Slot, input_slots
from .templates import render


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

    inputs: list[tuple[str, int]]
    """Each input's name and dimensions (0: a scalar)."""

    def reads_direct_on(self, axes: Collection[int]) -> list[str]:
        """Each input read at the current index, its name if a scalar: ``a0[i0 * s0_0, i1]``,
        indexed directly along ``axes`` (valid where :meth:`direct_on` holds)."""
        ndim = len(self.extents)
        steps = {(step["source"], step["axis"]) for step in self.steps}
        reads = []
        for k, (name, dims) in enumerate(self.inputs):
            index = []
            for axis in range(dims):
                along = axis + ndim - dims
                stepped = (name, axis) in steps and along not in axes
                index.append(f"i{along} * s{k}_{axis}" if stepped else f"i{along}")
            reads.append(f"{name}[{', '.join(index)}]" if dims else name)
        return reads

    def rows(self) -> list[tuple[str, str]]:
        """Each array input's row along the last axis at the current index of the others, as
        (input, view): ``("a0", "a0[i0 * s0_0, :]")`` — to be read directly along that axis."""
        ndim = len(self.extents)
        views = []
        names = [name for name, _ in self.inputs]
        for name, index in zip(names, self.reads_direct_on([ndim - 1]), strict=True):
            if index != name:
                views.append((name, index.rsplit(",", 1)[0] + ", :]" if "," in index else f"{name}[:]"))
        return views

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


def broadcast(slots: list[Slot], ndim: int) -> Broadcast:
    extents = [f"n{d}" for d in range(ndim)]
    axis_sources: list[list[str]] = [[] for _ in range(ndim)]
    for slot in slots:
        for axis in range(slot.ndim):
            axis_sources[ndim - slot.ndim + axis].append(f"{slot.name}.shape[{axis}]")
    steps: list[dict[str, object]] = []
    for k, slot in enumerate(slots):
        offset = ndim - slot.ndim
        for axis in range(slot.ndim):
            # An axis only this input spans has its length: no step needed, it is never broadcast.
            if len(axis_sources[axis + offset]) > 1:
                step = {"name": f"s{k}_{axis}", "source": slot.name, "axis": axis, "along": axis + offset}
                steps.append(step)
    return Broadcast(extents, axis_sources, steps, [(slot.name, slot.ndim) for slot in slots])


def helper_sources(helpers: list[Helper]) -> list[str]:
    unique = {helper.function: helper for helper in helpers}
    return [
        render(f"ops/scalar/{h.template}.py.j2", **h.render_context()).rstrip()
        for _, h in sorted(unique.items())
    ]


def _loop_inputs(node: Node) -> tuple[list[Slot], Broadcast, int]:
    """The inputs of ``node``'s loop, how they are read, and the loop's depth (the result's ndim)."""
    ndim = node.type.ndim if isinstance(node.type, Array) else 0
    slots = input_slots(node)
    return slots, broadcast(slots, ndim), ndim


#: The scalar code at one index, given how each input is read: statements, the value, helpers.
LoopCode = Callable[[list[str]], tuple[list[str], str, list[Helper]]]


def render_elementwise(node: Node, inplace: Node | None = None) -> OpModule:
    """``inplace``: an input that dies here, to write the result into when its shape allows
    (see :mod:`aotbuild.codegen.buffers`)."""
    op = node.op
    assert isinstance(op, Elementwise)
    slots, plan, ndim = _loop_inputs(node)

    def code(reads: list[str]) -> tuple[list[str], str, list[Helper]]:
        loads = [
            load_expression(read, slot.dtype, dtype)
            for read, slot, dtype in zip(reads, slots, op.in_dtypes, strict=True)
        ]
        scalar_inputs = tuple(slot.ndim == 0 for slot in slots)
        body, helpers = scalar_expression(op.fn, op.in_dtypes, loads, scalar_inputs)
        return [], body, helpers

    title = f"{op.fn}({', '.join(s.describe() for s in slots)}) -> {node.type}"
    return _loop_module(node, slots, plan, ndim, op.fn, title, op.out_dtype, code, inplace)


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
) -> OpModule:
    """The module of an elementwise loop: at each index, ``code``'s statements then
    ``out[...] = value``. With ``inplace``, a first loop nest writes into that input when it has
    the result's shape, reading it through ``out``: one array read and written at the same index,
    which LLVM vectorises (two names for one array would fail its overlap check)."""
    indices = [f"i{d}" for d in range(ndim)]
    helpers: list[Helper] = []

    def nests(replaced: dict[int, str]) -> list[dict[str, object]]:
        """The loop nests computing the result, each with the run-time condition it needs (the
        last one none): direct indices when no input is broadcast, then the general ones."""
        found: list[dict[str, object]] = []
        variants = [(plan.all_direct, plan.direct_reads), ("", plan.reads)]
        if not plan.steps:
            variants = [("", plan.direct_reads)]
        for condition, reads in variants:
            statements, body, needed = code([replaced.get(k, read) for k, read in enumerate(reads)])
            helpers.extend(needed)
            found.append({"condition": condition, "statements": statements, "body": body})
        return found

    loops = nests({})
    context: dict[str, object] | None = None
    if inplace is not None:
        positions = [k for k, item in enumerate(node.inputs) if item is inplace]
        through_out = f"out[{', '.join(indices)}]"
        context = {"slot": slots[positions[0]].name, "loops": nests(dict.fromkeys(positions, through_out))}
    return template_op(
        "ops/elementwise.py.j2",
        node,
        slots,
        name=f"{name}_inplace" if inplace is not None else name,
        title=f"{title}, in place" if inplace is not None else title,
        inplace=context,
        out_dtype=out_dtype,
        helpers=helper_sources(helpers),
        ndim=ndim,
        extents=plan.extents,
        steps=plan.steps,
        indices=indices,
        axis_sources=plan.axis_sources,
        loops=loops,
    )


@dataclass(frozen=True)
class FusedBody:
    """The scalar code of fused steps at one index: statements, then the value's expression."""

    statements: list[str]
    value: str
    helpers: list[Helper]


def fused_body(steps: tuple[FusedStep, ...], slots: list[Slot], reads: list[str]) -> FusedBody:
    """Each array input read once into ``x<k>`` (scalars and constants used as they are), each
    step but the last computed into ``t<j>`` in its dtype under a comment naming its Op."""
    count = len(slots)
    pairs = enumerate(zip(reads, slots, strict=True))
    statements = [f"x{k} = {read}" for k, (read, slot) in pairs if slot.ndim]
    dtypes = [slot.dtype for slot in slots] + [step.out_dtype for step in steps]
    names = [f"x{k}" if slot.ndim else slot.name for k, slot in enumerate(slots)]
    names += [f"t{j}" for j in range(len(steps))]
    helpers: list[Helper] = []
    value = ""
    for j, step in enumerate(steps):
        loads = [
            load_expression(names[arg], dtypes[arg], dtype)
            for arg, dtype in zip(step.args, step.in_dtypes, strict=True)
        ]
        scalars = tuple(n == 0 for n in step.ndims)
        expression, needed = scalar_expression(step.fn, step.in_dtypes, loads, scalars)
        helpers += needed
        described = ", ".join(_describe(arg, count, slots) for arg in step.args)
        statements.append(f"# {step.fn}({described}) -> {step.out_dtype}")
        if j == len(steps) - 1:
            value = expression
        else:
            statements.append(f"t{j} = np.{step.out_dtype}({expression})")
    return FusedBody(statements, value, helpers)


def render_fused(node: Node, inplace: Node | None = None) -> OpModule:
    """One loop for the whole tree (:func:`fused_body` in its body), the last value stored;
    ``inplace`` as for :func:`render_elementwise`."""
    op = node.op
    assert isinstance(op, Fused)
    slots, plan, ndim = _loop_inputs(node)

    def code(reads: list[str]) -> tuple[list[str], str, list[Helper]]:
        body = fused_body(op.steps, slots, reads)
        return body.statements, body.value, body.helpers

    fns = [step.fn for step in op.steps]
    title = f"fused {'·'.join(fns)}({', '.join(s.describe() for s in slots)}) -> {node.type}"
    name = "fused_" + "_".join(dict.fromkeys(fns))[:40]
    out_dtype = op.steps[-1].out_dtype
    return _loop_module(node, slots, plan, ndim, name, title, out_dtype, code, inplace)


def _describe(arg: int, count: int, slots: list[Slot]) -> str:
    if arg < count:
        return slots[arg].describe() if slots[arg].is_constant else slots[arg].name
    return f"t{arg - count}"
