"""A graph's picture, read from the package's own files: its manifest and generated modules.

The generated entry of a graph (``templates/ops/graph.py.j2``) is straight-line Python: each
statement calls one Op by declaration, or computes a scalar or a shape itself, and names its
value ``vN``. Reading that code back (:mod:`.modules`, without importing or compiling it) gives
exactly what the package runs, for any package aotbuild built, with nothing extra recorded at
build time. Subgraphs and kernels' traced regions are entries of the same template and are drawn
as clusters holding their own Ops; a kernel is one box (its loops are code as written) with a
call edge to each region and helper; another package's graph is a box of its own kind.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..inspect import declared_signatures
from ..package.records import signature_records
from .modules import (
    Callee,
    Module,
    PictureError,
    op_heading,
    read_module,
    split_signature,
    tuple_items,
)
from .picture import Box, Cluster, Edge, Picture

__all__ = ["PictureError", "graph_picture", "has_contiguous_variant", "op_heading"]

#: The scalar arithmetic an entry writes itself (``codegen/plan.py``'s ``INLINE_SCALAR``).
_OPERATORS = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×", ast.Div: "÷"}
#: The timers of a ``--profile`` build around each call: not part of the data flow.
_TIMING = {"_aot_t", "_aot_record"}

#: A value of an entry: the box computing it and its type.
Value = tuple[str, str]


@dataclass
class _Drawing:
    """The boxes and edges of a picture as it is read, module by module."""

    package: Path
    manifest: dict[str, Any]
    boxes: list[Box] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    symbols: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    modules: dict[str, Module] = field(default_factory=dict)
    helpers: dict[str, str] = field(default_factory=dict)
    """What kernels call besides their regions (helper kernels, Ops, other packages' graphs),
    by symbol: one box each, however many kernels call it."""

    def box(self, prefix: str, kind: str, heading: str, inline: bool = False, **fields: Any) -> str:
        """A new box; ``inline``: an Op compiled into a region's module, not an Op of its own."""
        index = 0
        while f"{prefix}{index}" in self.ids:
            index += 1
        ident = f"{prefix}{index}"
        self.ids.add(ident)
        self.boxes.append(Box(ident, kind, heading, **fields))
        if not inline and fields.get("symbol") in self.manifest["ops"]:  # not another package's
            self.symbols.add(fields["symbol"])
        return ident

    def module(self, symbol: str) -> Module:
        if symbol not in self.modules:
            self.modules[symbol] = read_module(self.package, self.manifest, symbol)
        return self.modules[symbol]

    def kind_of(self, symbol: str) -> str:
        op = self.manifest["ops"].get(symbol)
        return op["kind"] if op else "external"

    def since(self, before: int, clusters: list[Cluster]) -> tuple[str, ...]:
        """The boxes made since there were ``before``, but for those inside ``clusters``."""
        return tuple(box.id for box in self.boxes[before:] if not _inside(box.id, clusters))


def graph_picture(package: Path, manifest: dict[str, Any], name: str, contiguous: bool = False) -> Picture:
    """The picture of graph ``name``: each declared signature's entry (a cluster per signature
    where there are several), parameters on top, results at the bottom. ``contiguous``: the
    variant the package calls when every array argument is C-contiguous (traced for such arrays,
    so its Ops are others)."""
    graphs = manifest["graphs"]
    if name not in graphs:
        raise PictureError(f"{package.name} has no graph {name!r}; it has {', '.join(graphs)}")
    graph = graphs[name]
    drawing = _Drawing(package, manifest)
    entries = _entries(graph, contiguous)
    if not entries:
        raise PictureError(
            f"{name} has no C-contiguous variant: its picture without --contiguous is all there is"
        )
    clusters: list[Cluster] = []
    top: list[str] = []
    for index, (signature, entry) in enumerate(entries):
        prefix = f"s{index}_" if len(entries) > 1 else ""
        before = len(drawing.boxes)
        reader = _EntryReader(drawing, entry, prefix, f"graph {name}")
        reader.flow(reader.parameter_boxes(), results=True)
        if len(entries) > 1:
            clusters.append(reader.cluster(before, f"signature {signature}\nentry {entry}", entry))
        else:
            top.extend(drawing.since(before, reader.clusters))
            clusters.extend(reader.clusters)
    drawing.symbols.update(entry for _, entry in entries)
    note = f"entry {entries[0][1]}" if len(entries) == 1 else "each signature's cluster names its entry"
    if contiguous:
        note = "the variant for C-contiguous arrays: " + note
    elif _entries(graph, contiguous=True):
        note += "; C-contiguous arrays run a variant traced for them (--contiguous draws it)"
    signatures = " | ".join(declared_signatures(graph))
    return Picture(
        name=name,
        title=f"{manifest['package']['name']}.{name}: {signatures}\n{note}",
        boxes=tuple(drawing.boxes),
        edges=tuple(drawing.edges),
        clusters=tuple(clusters),
        top=tuple(top),
        symbols=tuple(sorted(drawing.symbols)),
    )


def has_contiguous_variant(manifest: dict[str, Any], name: str) -> bool:
    return bool(_entries(manifest["graphs"][name], contiguous=True))


def _entries(graph: dict[str, Any], contiguous: bool) -> list[tuple[str, str]]:
    """(signature, entry symbol) of each declared signature: a ufunc's or gufunc's loop over any
    strides, an overload's general entry, or the one entry; or each one's C-contiguous variant
    (none where no signature has one)."""
    key = "contiguous_entry" if contiguous else "entry"
    each = signature_records(graph)
    found = [(one["signature"], one.get(key)) for one in each]
    if contiguous and not any(entry for _, entry in found):
        return []
    return [
        (signature, entry or general["entry"])
        for (signature, entry), general in zip(found, each, strict=True)
    ]


def _inside(box: str, clusters: list[Cluster]) -> bool:
    return any(box in cluster.boxes or _inside(box, list(cluster.clusters)) for cluster in clusters)


class _EntryReader:
    """One entry module (a graph's, a subgraph's, a region's) read into the drawing: a box per
    statement, an edge per value a statement reads."""

    def __init__(self, drawing: _Drawing, symbol: str, prefix: str, scope: str) -> None:
        self.drawing = drawing
        self.module = drawing.module(symbol)
        self.prefix = prefix
        self.scope = scope
        """The profile scope of the module's calls: ``graph NAME``, ``subgraph F``, ``region F``."""
        self.values: dict[str, Value] = {}
        self.clusters: list[Cluster] = []

    def box(self, tag: str, kind: str, heading: str, **fields: Any) -> str:
        return self.drawing.box(f"{self.prefix}{tag}_", kind, heading, scope=self.scope, **fields)

    def cluster(self, before: int, title: str, tooltip: str) -> Cluster:
        """The module as a cluster: the boxes drawn since there were ``before`` (those of its own
        clusters inside those), titled ``title``."""
        self.drawing.symbols.add(self.module.symbol)
        own = self.drawing.since(before, self.clusters)
        return Cluster(f"cluster_{self.prefix}", title, own, tuple(self.clusters), tooltip)

    def parameter_boxes(self) -> dict[str, Value]:
        """A box per parameter of the module's function (a ufunc's loop has its output too),
        typed by the module's own compiled signature."""
        args, _ = split_signature(self.drawing.manifest["ops"][self.module.symbol]["signature"])
        parameters = {}
        for position, argument in enumerate(self.module.function.args.args):
            shown = args[position] if position < len(args) else ""
            parameters[argument.arg] = (self.box("p", "parameter", argument.arg, lines=(shown,)), shown)
        return parameters

    def read(self, node: ast.expr, target: str, fold_constants: bool = False) -> None:
        """An edge from the box of each value ``node`` reads into ``target``; constants get a
        box of their own unless ``fold_constants`` (the target's heading shows them)."""
        constants = self.module.constants
        if isinstance(node, ast.Name) and node.id in self.values:
            self.drawing.edges.append(Edge(self.values[node.id][0], target))
        elif isinstance(node, ast.Name) and node.id in constants:
            if not fold_constants:
                self.drawing.edges.append(Edge(self.box("k", "constant", constants[node.id]), target))
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.read(child, target, fold_constants)

    def flow(self, parameters: dict[str, Value], results: bool) -> list[str]:
        """Read the function's statements. Returns the boxes of what it returns: result boxes
        where ``results``, else the boxes computing the values (a subgraph's, for its caller)."""
        self.values.update(parameters)
        callees = self.module.callees
        for statement in self.module.function.body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                self._copy_into_argument(statement.value)
            if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                continue
            target, value = statement.targets[0], statement.value
            if isinstance(target, ast.Subscript):  # ``v3[0] = v1``: an item of a stack array
                if isinstance(target.value, ast.Name) and target.value.id in self.values:
                    self.read(value, self.values[target.value.id][0])
                continue
            if not isinstance(target, ast.Name) or target.id in _TIMING:
                continue
            call = value if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) else None
            called = call.func.id if call is not None else ""  # type: ignore[attr-defined]
            if call is not None and called in callees:
                self.values[target.id] = self._call(callees[called], call.args)
            elif call is not None and called == "borrowed":
                continue  # ``x = borrowed(x)``: the same array, its references uncounted
            elif call is not None and called == "scratch":
                dtype = ast.unparse(call.args[-1]).removeprefix("np.")
                box = self.box("a", "stack", "array on the stack", lines=(dtype,))
                self.values[target.id] = (box, f"{dtype}[::1]")
            else:
                heading, shown = self._computed(value)
                box = self.box("c", "scalar", heading)
                self.read(value, box, fold_constants=True)
                self.values[target.id] = (box, shown)
        if results:
            self._written_parameters(parameters)
        return self._outputs(results)

    def _copy_into_argument(self, call: ast.Call) -> None:
        """``copy_0(x, v5)  # into the caller's array``: the final value of an updated argument."""
        name = call.func.id if isinstance(call.func, ast.Name) else ""
        callee = self.module.callees.get(name)
        if callee is None or name in _TIMING:
            return
        written = call.args[0].id if call.args and isinstance(call.args[0], ast.Name) else "?"
        shown = self.values.get(written, ("", ""))[1]
        tooltip = f"{callee.title}\n{callee.symbol}"
        box = self.box("w", "result", f"{written} (written)", lines=(shown,), tooltip=tooltip)
        for argument in call.args[1:]:
            self.read(argument, box)

    def _written_parameters(self, parameters: dict[str, Value]) -> None:
        """A result box for each parameter an Op updates in place where nothing reads the value
        it returns (a ufunc's loop writing NumPy's output, an update of an argument): that write
        is what the call is for."""
        function = self.module.function
        loaded = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for statement in function.body:
            if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
                continue
            call, target = statement.value, statement.targets[0]
            callee = self.module.callees.get(call.func.id) if isinstance(call.func, ast.Name) else None
            if callee is None or not isinstance(target, ast.Name) or target.id in loaded or not call.args:
                continue
            written = call.args[0]
            if (
                callee.title.endswith(", in place")
                and isinstance(written, ast.Name)
                and written.id in parameters
            ):
                box = self.box("w", "result", f"{written.id} (written)", lines=(parameters[written.id][1],))
                self.drawing.edges.append(Edge(self.values[target.id][0], box))

    def _outputs(self, results: bool) -> list[str]:
        returned = next((s.value for s in self.module.function.body if isinstance(s, ast.Return)), None)
        if returned is None or (isinstance(returned, ast.Constant) and returned.value is None):
            return []
        outputs = list(returned.elts) if isinstance(returned, ast.Tuple) else [returned]
        if not results:
            return [self.values[n.id][0] for n in outputs if isinstance(n, ast.Name) and n.id in self.values]
        boxes = []
        for position, node in enumerate(outputs):
            heading = "result" if len(outputs) == 1 else f"result {position}"
            probe = node  # the value, or the constant an output copies: ``K0.copy()``
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                probe = node.func.value
            shown = (
                self.values[probe.id][1] if isinstance(probe, ast.Name) and probe.id in self.values else ""
            )
            box = self.box("r", "result", heading, lines=(shown,) if shown else ())
            self.read(node, box)
            boxes.append(box)
        return boxes

    def _computed(self, value: ast.expr) -> tuple[str, str]:
        """The heading and type of a value the entry computes itself: a shape, a size, an item
        of a tuple, scalar arithmetic (its constant operand in the heading: ``× 0.5``)."""
        constants = self.module.constants
        operands = [n for n in ast.walk(value) if isinstance(n, ast.Name) and n.id in self.values]
        shown = self.values[operands[0].id][1] if operands else ""
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute):
            return f"shape[{ast.unparse(value.slice)}]", "int64"
        if isinstance(value, ast.Attribute) and value.attr == "size":
            return "size", "int64"
        if isinstance(value, ast.Subscript):
            item, items = ast.unparse(value.slice), tuple_items(shown)
            index = int(item) if item.isdigit() else -1
            return f"item {item}", items[index] if 0 <= index < len(items) else ""
        if isinstance(value, ast.BinOp):
            operator = _OPERATORS.get(type(value.op), type(value.op).__name__)
            left, right = (
                constants.get(n.id, "") if isinstance(n, ast.Name) else "" for n in (value.left, value.right)
            )
            return (f"{left} {operator}" if left else f"{operator} {right}".strip()), shown
        if isinstance(value, ast.UnaryOp):
            return "negative", shown
        return ast.unparse(value), shown

    def _call(self, callee: Callee, args: list[ast.expr]) -> Value:
        """The box (or subgraph cluster) of one call, its arguments read into it."""
        _, result = split_signature(callee.signature)
        kind = "op" if callee.inline else self.drawing.kind_of(callee.symbol)
        if kind == "subgraph":
            return self._subgraph(callee, args, result)
        box = _callee_box(self.drawing, f"{self.prefix}o_", callee, kind, self.scope)
        for argument in args:
            self.read(argument, box)
        if kind == "kernel":
            self.clusters.extend(_kernel_calls(self.drawing, callee.symbol, box, self.prefix))
        return box, result

    def _subgraph(self, callee: Callee, args: list[ast.expr], result: str) -> Value:
        """A subgraph call: a cluster with the subgraph's own parameters, Ops and value."""
        inner_module = self.drawing.module(callee.symbol)
        inner = _EntryReader(
            self.drawing,
            callee.symbol,
            f"{self.prefix}g{len(self.clusters)}_",
            f"subgraph {inner_module.origin}",
        )
        before = len(self.drawing.boxes)
        parameters = inner.parameter_boxes()
        for argument, (box, _) in zip(args, parameters.values(), strict=False):
            self.read(argument, box)
        outputs = inner.flow(parameters, results=False)
        self.clusters.append(inner.cluster(before, callee.title, callee.symbol))
        if len(outputs) == 1:
            return outputs[0], result
        joined = self.box("t", "scalar", "tuple", lines=(result,))
        self.drawing.edges += [Edge(box, joined) for box in outputs]
        return joined, result


def _callee_box(drawing: _Drawing, prefix: str, callee: Callee, kind: str, scope: str = "") -> str:
    """The box of a called Op, kernel or other package's graph: its kind and fused steps, its
    input and output types, its title and symbol on hover."""
    arg_types, result = split_signature(callee.signature)
    if kind == "external":
        heading = callee.title.split(":")[0]
    elif kind == "kernel":
        heading = "kernel " + callee.title.removeprefix("kernel ").split(":")[0]
    else:
        heading = op_heading(callee.title) or callee.symbol
    lines = ["in  " + ", ".join(arg_types)] if arg_types else []
    if result:
        lines.append("out " + result + (", in place" if callee.title.endswith(", in place") else ""))
    tooltip = f"{callee.title}\n{callee.symbol}"
    if callee.inline:
        tooltip += "\n(compiled into the region's module)"
    shape = kind if kind in ("kernel", "external") else "op"
    return drawing.box(
        prefix,
        shape,
        heading,
        inline=callee.inline,
        lines=tuple(lines),
        symbol=callee.symbol,
        tooltip=tooltip,
        scope=scope,
    )


def _kernel_calls(drawing: _Drawing, symbol: str, kernel_box: str, prefix: str) -> list[Cluster]:
    """What a kernel calls: each traced region a cluster of its Ops, its call edge labelled with
    the statements it stands for; helper kernels, Ops and other packages' graphs a box each."""
    module = drawing.module(symbol)
    clusters: list[Cluster] = []
    for name, callee in module.callees.items():
        kind = drawing.kind_of(callee.symbol)
        inner_prefix = f"{prefix}{kernel_box}_r{len(clusters)}_"
        if kind not in ("region", "subgraph"):
            box = drawing.helpers.get(callee.symbol, "")
            if not box:
                box = drawing.helpers[callee.symbol] = _callee_box(drawing, f"{inner_prefix}o_", callee, kind)
                if kind == "kernel":
                    clusters.extend(_kernel_calls(drawing, callee.symbol, box, inner_prefix))
            drawing.edges.append(Edge(kernel_box, box, "calls", calls=True))
            continue
        reader = _EntryReader(
            drawing, callee.symbol, inner_prefix, f"{kind} {drawing.module(callee.symbol).origin}"
        )
        before = len(drawing.boxes)
        parameters = reader.parameter_boxes()
        reader.flow(parameters, results=True)
        if parameters:
            first = next(iter(parameters.values()))[0]
            drawing.edges.append(Edge(kernel_box, first, module.traced.get(name) or "calls", calls=True))
        tooltip = callee.symbol
        if drawing.manifest["ops"].get(callee.symbol, {}).get("compiled_into"):
            tooltip += "\n(compiled into the kernel's object)"
        clusters.append(reader.cluster(before, callee.title, tooltip))
    return clusters
