"""From traced graphs to the set of modules to compile: one per unique compiled Op, one entry
per graph, in dependency order (callees first)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property, partial

from ..graph import Argument, Constant, Dim, Elementwise, Graph, Kernel, Node, Reduce, Size
from ..graph.arg_reduce import FusedArgReduce
from ..graph.array_ops import (
    ArgSort,
    BasicIndex,
    Bincount,
    BroadcastTo,
    Expr,
    Gather,
    IndexSlice,
    MaskSelect,
    Pack,
    Reshape,
    Roll,
    Scan,
    SetGather,
    SetIndex,
    SetMask,
    SumTo,
)
from ..graph.calls import Call, ExternalCall, TupleItem
from ..graph.fused import Fused, FusedReduce
from ..graph.linalg_ops import Einsum, MatMul
from ..graph.updates import FusedSetIndex, FusedSetMask
from ..types import Array, Scalar
from .arg_reduce import render_fused_arg_reduce
from .buffers import inplace_inputs, stack_arrays, written_in_place
from .elementwise import render_elementwise, render_fused, render_roll
from .indexing import (
    render_basic_index,
    render_gather,
    render_mask,
    render_set_gather,
    render_set_index,
    render_set_mask,
)
from .kernel import render_kernel
from .linalg import render_einsum, render_matmul
from .literals import constant_literal
from .module import CODEGEN_VERSION, FASTMATH_FLAGS, TRACED_FLAGS, OpModule, op_module, with_flags
from .movement import (
    render_argsort,
    render_bincount,
    render_broadcast_to,
    render_expression,
    render_pack,
    render_reshape,
    render_scan,
    render_sum_to,
)
from .order import callees_first
from .profile import CLOCK_DECLARATIONS, Timer, timed, timer_id
from .reduce import render_fused_reduce, render_reduce
from .templates import render, tuple_text
from .updates import render_fused_set_index, render_fused_set_mask


@dataclass(frozen=True)
class GraphPlan:
    graph: Graph
    entry: OpModule
    symbols: tuple[str, ...]
    """Every Op the graph reaches from its entries, in dependency order (a kernel's regions too,
    which have no object of their own: :attr:`BuildPlan.compiled`)."""

    contiguous: OpModule | None = None
    """The entry of the graph's contiguous variant (``Graph.contiguous``), if it has one: the
    package calls it when every any-layout array argument is C-contiguous."""

    overloads: tuple[GraphPlan, ...] = ()
    """Several signatures under one name: each one's plan, in the declared order (the first is
    this plan itself, without ``overloads``); empty for a graph of one signature."""

    loops: tuple[GraphPlan, ...] = ()
    """A ufunc's loops (see :mod:`aotbuild.trace.ufunc_loops`): per signature in the declared
    order, its any-strides graph then its broadcast variants (``graph`` and the entries above
    are the first's; ``symbols`` covers them all); empty for any other graph."""

    def loops_of(self, index: int) -> list[GraphPlan]:
        """A ufunc's loops for its ``index``-th signature: the general one, the in-order one,
        then those for broadcast inputs (see :mod:`aotbuild.trace.ufunc_loops`)."""
        return [loop for loop in self.loops if loop.graph.config.signature_index == index]


@dataclass(frozen=True)
class BuildPlan:
    modules: tuple[OpModule, ...]
    """Every module to compile, each once, callees before callers."""

    graphs: tuple[GraphPlan, ...]

    timers: tuple[Timer, ...] = ()
    """Per-Op timers of a ``--profile`` build, sorted by id (the entry looks them up)."""

    @cached_property
    def compiled(self) -> tuple[OpModule, ...]:
        """The modules compiled into objects of their own, in :attr:`modules`' order: all but
        those every caller compiles in (a kernel's regions), whose code is in their callers'."""
        inside = {symbol for module in self.modules for symbol in module.compiled_in}
        called = {s for module in self.modules for s in module.calls if s not in module.compiled_in}
        return tuple(module for module in self.modules if module.symbol not in inside - called)


class _Planner:
    def __init__(self, profile: bool = False) -> None:
        self.profile = profile
        self.timers: dict[int, Timer] = {}
        self.modules: dict[str, OpModule] = {}
        self.by_node: dict[tuple[str, bool, str, bool, bool], OpModule] = {}
        self.kernels: dict[str, OpModule] = {}  # by kernel unit key
        # By Call key: a subgraph's entry depends on the subgraph, not on the call's inputs.
        self.subgraphs: dict[tuple[str, bool, bool], OpModule] = {}
        self.regions: dict[str, OpModule] = {}  # kernels' traced regions, by graph key

    def add(self, module: OpModule) -> OpModule:
        return self.modules.setdefault(module.symbol, module)

    def module_for(
        self,
        node: Node,
        fast: bool = False,
        inplace: Node | None = None,
        parallel: bool = False,
        inlined: bool = False,
    ) -> OpModule:
        """The compiled Op computing ``node`` (rendered once per node key), with fast-math for
        the Ops of ``fastmath = true`` graphs (kernels keep their own ``@njit`` options), writing
        into its input ``inplace`` when it can (see :mod:`aotbuild.codegen.buffers`), its large
        loops on several threads in ``parallel = true`` graphs (elementwise, fused, float sums).
        ``inlined``: the module of an Op a region compiles into itself (:func:`inlines`), not
        one of the build's own."""
        index = (node.key, fast, inplace.key if inplace is not None else "", parallel, inlined)
        module = self.by_node.get(index)
        if module is None:
            op = node.op
            if isinstance(op, Kernel):
                for rendered in render_kernel(op.unit, self.kernels, self.region_entry):
                    self.add(rendered)
                module = self.kernels[op.unit.key]
            elif isinstance(op, Call):
                module = self.subgraphs.get((op.key, fast, parallel))
                if module is None:
                    entry = _entry(op.graph, self, kind="subgraph", fast=fast, parallel=parallel)
                    module = self.subgraphs[(op.key, fast, parallel)] = self.add(entry)
            else:
                render = _RENDERERS[type(op)]
                if parallel and isinstance(op, (Elementwise, Fused, Reduce, FusedReduce)):
                    render = partial(render, parallel=True)
                rendered = render(node, inplace) if inplace else render(node)
                if fast:
                    rendered = with_flags(rendered, replace(rendered.flags, fastmath=True))
                module = rendered if inlined else self.add(rendered)
            self.by_node[index] = module
        return module

    def region_entry(self, graph: Graph) -> OpModule:
        """The entry of a kernel's traced region (:mod:`aotbuild.trace.regions`), rendered once."""
        module = self.regions.get(graph.key)
        if module is None:
            module = self.regions[graph.key] = self.add(_entry(graph, self, kind="region"))
        return module


_RENDERERS: dict[type, Callable[..., OpModule]] = {
    Elementwise: render_elementwise,
    Fused: render_fused,
    FusedReduce: render_fused_reduce,
    Reduce: render_reduce,
    BasicIndex: render_basic_index,
    Gather: render_gather,
    MaskSelect: render_mask,
    SetIndex: render_set_index,
    SetGather: render_set_gather,
    SetMask: render_set_mask,
    Reshape: render_reshape,
    BroadcastTo: render_broadcast_to,
    SumTo: render_sum_to,
    Pack: render_pack,
    Bincount: render_bincount,
    Expr: render_expression,
    Scan: render_scan,
    Roll: render_roll,
    ArgSort: render_argsort,
    MatMul: render_matmul,
    Einsum: render_einsum,
    FusedSetIndex: render_fused_set_index,
    FusedSetMask: render_fused_set_mask,
    FusedArgReduce: render_fused_arg_reduce,
}


def _entry(
    graph: Graph,
    planner: _Planner,
    kind: str = "graph",
    fast: bool = False,
    contiguous: bool = False,
    parallel: bool = False,
) -> OpModule:
    """The module of a graph (or subgraph, or a graph's ``contiguous`` variant): its function
    calls each Op by declaration."""
    config = graph.config
    fast = fast or config.fastmath
    parallel = parallel or config.parallel
    taken = set(graph.params)
    names: dict[str, str] = {}
    declarations: dict[str, dict[str, object]] = {}
    constants: list[dict[str, str]] = []
    statements: list[str] = []
    external: set[str] = set()  # declared symbols of other packages' graphs: no module here
    inlined_calls: set[str] = set()  # what the Ops compiled into a region's module call
    inlined_symbols: set[str] = set()
    inplace = inplace_inputs(graph)
    on_stack = stack_arrays(graph, inplace) if kind == "region" else set()

    def fresh(prefix: str) -> str:
        index = 0
        while f"{prefix}{index}" in taken:
            index += 1
        taken.add(f"{prefix}{index}")
        return f"{prefix}{index}"

    def value(node: Node) -> str:
        if node.key not in names:
            # Only constants reach here unplanned: those an entry itself needs.
            assert isinstance(node.op, Constant)
            name = fresh("K")
            constants.append({"name": name, "literal": constant_literal(node.op.value.array)})
            names[node.key] = name
        return names[node.key]

    borrowed = borrowed_params(graph) if kind == "region" else []
    for name in borrowed:
        statements.append(f"{name} = borrowed({name})  # the kernel holds it: no references counted")
    for node in graph.nodes():
        op = node.op
        if isinstance(op, Argument):
            names[node.key] = graph.params[op.position]
        elif isinstance(op, Constant):
            continue  # lifted into the Ops that use it
        elif isinstance(op, Dim):
            names[node.key] = target = fresh("v")
            statements.append(f"{target} = {value(node.inputs[0])}.shape[{op.axis}]")
        elif isinstance(op, Size):
            names[node.key] = target = fresh("v")
            statements.append(f"{target} = {value(node.inputs[0])}.size")
        elif isinstance(op, TupleItem):
            names[node.key] = target = fresh("v")
            statements.append(f"{target} = {value(node.inputs[0])}[{op.index}]")
        elif (inline := _inline_scalar(node)) is not None:
            names[node.key] = target = fresh("v")
            statements.append(f"{target} = {inline.format(*(value(i) for i in node.inputs))}")
        else:
            if isinstance(op, ExternalCall):  # in another package's shared object: passed everything
                symbol, signature = op.symbol, op.signature
                title = f"graph {op.package}.{op.graph} (in {op.package}): {signature}"
                external.add(symbol)
                args = [value(i) for i in node.inputs]
                inlined = False
            elif node.key in on_stack:  # filled in this function's own stack frame
                names[node.key] = target = fresh("v")
                dtype = node.op.dtype  # type: ignore[attr-defined]
                statements.append(f"{target} = scratch({len(node.inputs)}, 0, np.{dtype})  # on the stack")
                statements += [f"{target}[{k}] = {value(item)}" for k, item in enumerate(node.inputs)]
                continue
            else:
                inlined = kind == "region" and inlines(node)
                module = planner.module_for(node, fast, inplace.get(node.key), parallel, inlined)
                symbol, signature, title = module.symbol, module.signature, module.title
                args = [value(i) for i in node.inputs if not isinstance(i.op, Constant)]
            if symbol not in declarations:
                declarations[symbol] = {
                    "name": fresh(re.sub(r"\W", "_", op.name) + "_"),  # special.erf: special_erf_0
                    "variant": f"{symbol}: {signature}",
                    "title": title,
                    "inline": "",
                }
                if inlined:
                    declarations[symbol].update(_inlined(module))
                    inlined_calls.update(module.calls)
                    inlined_symbols.add(symbol)
            names[node.key] = target = fresh("v")
            callee = declarations[symbol]["name"]
            statement = f"{target} = {callee}({', '.join(args)})"
            if planner.profile:
                scope = f"graph {graph.name}" if kind == "graph" else f"{kind} {config.function}"
                timer = Timer(timer_id(scope, symbol), scope, symbol, title)
                planner.timers[timer.id] = timer
                statements.extend(timed(statement, timer))
            else:
                statements.append(statement)

    def output(node: Node) -> str:
        text = value(node)
        is_array_constant = isinstance(node.op, Constant) and node.op.value.ndim > 0
        return f"{text}.copy()" if is_array_constant else text

    in_place = written_in_place(graph, inplace)
    written = graph.outputs[len(graph.returned) :]
    for position, final, done in zip(graph.writes, written, in_place, strict=True):
        if done:
            continue  # its updates wrote into the caller's array itself
        array = Node.make(Argument(position, graph.config.signature.args[position]))
        whole = tuple(IndexSlice(None, None, None) for _ in range(array.type.ndim))  # type: ignore[union-attr]
        copy = Node.make(SetIndex(whole, keeps_layout=True), (array, final))
        module = planner.module_for(copy, fast, array, parallel, inlined=True)
        name = fresh("copy_")
        declarations[module.symbol] = {
            "name": name,
            "variant": f"{module.symbol}: {module.signature}",
            "title": module.title,
            **_inlined(module),
        }
        inlined_calls.update(module.calls)
        inlined_symbols.add(module.symbol)
        statements.append(f"{name}({graph.params[position]}, {value(final)})  # into the caller's array")
    outputs = [output(node) for node in graph.returned]
    result = (tuple_text(outputs) if outputs else "None") if graph.returns_tuple else outputs[0]
    role = {"graph": "Graph", "subgraph": "Subgraph", "region": "Kernel region"}[kind]
    subject = graph.name if kind == "graph" else config.function
    variant = ", for C-contiguous arrays" if contiguous else ""
    text = render(
        "ops/graph.py.j2",
        role=role + variant,
        name=graph.name,
        signature=config.signature_text,
        codegen_version=CODEGEN_VERSION,
        function=config.function,
        mode=config.mode,
        declarations=list(declarations.values()),
        constants=constants,
        params=list(graph.params),
        statements=statements,
        result=result,
        clock=CLOCK_DECLARATIONS if planner.profile and declarations else "",
        stack=bool(on_stack),
        borrowed=bool(borrowed),
    )
    return op_module(
        name=f"{_PREFIX[kind]}_{graph.name}{'_contiguous' if contiguous else ''}",
        kind=kind,
        title=f"{kind} {subject}{variant}: {config.signature_text}",
        text=text,
        function=graph.name,
        signature=config.signature,
        flags=FASTMATH_FLAGS if fast else TRACED_FLAGS,
        calls=tuple(sorted((set(declarations) - external - inlined_symbols) | inlined_calls)),
    )


def borrowed_params(graph: Graph) -> list[str]:
    """The array parameters a region reads as :func:`~aotbuild.compile.intrinsics.borrowed`
    arrays: all of them, where the region returns no array (else a view of one could outlive the
    kernel's reference; writes into them are fine: they land in the kernel's array). A region
    runs once per iteration of its kernel's loop, and each view it made of them counted a
    reference with an atomic instruction."""
    if any(isinstance(node.type, Array) for node in graph.returned):
        return []
    arguments = graph.config.signature.args
    return [name for name, kind in zip(graph.params, arguments, strict=True) if isinstance(kind, Array)]


def inlines(node: Node) -> bool:
    """Whether a region compiles ``node``'s Op into its own module (:mod:`aotbuild.compile.inline`):
    every Op but kernels and graphs of their own (subgraphs, other packages' graphs)."""
    return not isinstance(node.op, (Kernel, Call, ExternalCall))


def _inlined(module: OpModule) -> dict[str, object]:
    """What ``ops/graph.py.j2`` writes for an Op compiled into the region's module."""
    if "'''" in module.text:
        raise AssertionError(f"{module.symbol}: an inlined module's text holds three quotes")
    return {
        "inline": module.text.rstrip() + "\n",
        "function": module.function,
        "error_model": module.flags.error_model,
        "fastmath": module.flags.fastmath,
    }


#: The start of the module name of each kind of entry.
_PREFIX = {"graph": "graph", "subgraph": "sub", "region": "region"}


#: Float arithmetic on scalars that the entry computes itself rather than calling an Op for it:
#: the same IEEE operation the Op would do (one rounding, NumPy's division by zero), without a
#: call. Transcendental functions stay Ops (vector math), as do integer operations (NumPy's
#: overflow and division rules).
INLINE_SCALAR = {
    "add": "{0} + {1}",
    "subtract": "{0} - {1}",
    "multiply": "{0} * {1}",
    "divide": "{0} / {1}",
    "true_divide": "{0} / {1}",
    "negative": "-{0}",
}


def _inline_scalar(node: Node) -> str | None:
    """The expression computing a scalar float Elementwise node in the entry, if it is one."""
    op = node.op
    if (
        not isinstance(op, Elementwise)
        or op.fn not in INLINE_SCALAR
        or op.out_dtype not in ("float32", "float64")
    ):
        return None
    operands = [i.type for i in node.inputs]
    if not all(isinstance(t, Scalar) and t.dtype == op.out_dtype for t in operands):
        return None
    if any(d != op.out_dtype for d in op.in_dtypes):
        return None
    return INLINE_SCALAR[op.fn]


def dependency_order(modules: dict[str, OpModule]) -> list[OpModule]:
    """Callees before callers; ties broken by symbol, so the order is the same every build."""
    return [modules[symbol] for symbol in callees_first(modules, lambda symbol: modules[symbol].calls)]


def make_plan(graphs: list[Graph], profile: bool = False) -> BuildPlan:
    """The modules to compile for ``graphs``; ``profile`` times every Op call (see
    :mod:`aotbuild.codegen.profile`) and each graph as a whole."""
    planner = _Planner(profile)
    graph_entries = []
    for graph in graphs:
        entry = planner.add(_entry(graph, planner))
        variant = None
        if graph.contiguous is not None:
            variant = planner.add(_entry(graph.contiguous, planner, contiguous=True))
        graph_entries.append((graph, entry, variant))
        if profile:
            scope = f"graph {graph.name}"
            total = Timer(timer_id(scope, entry.symbol), scope, entry.symbol, entry.title)
            planner.timers[total.id] = total
    ordered = dependency_order(planner.modules)
    plans: list[GraphPlan] = []
    for graph, entry, variant in graph_entries:
        reached = _reachable(entry.symbol, planner.modules)
        if variant is not None:
            reached |= _reachable(variant.symbol, planner.modules)
        symbols = tuple(m.symbol for m in ordered if m.symbol in reached)
        plans.append(GraphPlan(graph, entry, symbols, variant))
    timers = tuple(sorted(planner.timers.values(), key=lambda timer: timer.id))
    return BuildPlan(tuple(ordered), _grouped(plans, ordered), timers)


def _grouped(plans: list[GraphPlan], ordered: list[OpModule]) -> tuple[GraphPlan, ...]:
    """``plans`` with the graphs of one name made one plan (consecutive, from its first): a
    ufunc's or gufunc's loops (per signature, and a ufunc's variants), an ordinary graph's
    several signatures."""
    grouped: list[GraphPlan] = []
    for plan in plans:
        config = plan.graph.config
        numpy_ufunc = config.ufunc or bool(config.gufunc)
        if config.signature_index > 0 or config.scalars or config.in_order:
            first = grouped[-1]
            reached = {*first.symbols, *plan.symbols}
            symbols = tuple(m.symbol for m in ordered if m.symbol in reached)
            if numpy_ufunc:
                grouped[-1] = replace(first, symbols=symbols, loops=(*first.loops, plan))
            else:
                grouped[-1] = replace(first, symbols=symbols, overloads=(*first.overloads, plan))
        elif numpy_ufunc:
            grouped.append(replace(plan, loops=(plan,)))
        elif len(config.signatures) > 1:
            grouped.append(replace(plan, overloads=(plan,)))
        else:
            grouped.append(plan)
    return tuple(grouped)


def _reachable(symbol: str, modules: dict[str, OpModule]) -> set[str]:
    seen: set[str] = set()
    stack = [symbol]
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(modules[current].calls)
    return seen
