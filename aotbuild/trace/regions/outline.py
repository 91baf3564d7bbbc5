"""Cutting a kernel's array statements out into regions, and the kernel that calls them.

A *region* is a straight run of statements of one block (a loop's body, a branch, the function's
own body) that do array work (:mod:`.statements`). It becomes a function of its own, traced
(:mod:`.tracing`), and the kernel calls it where the run was:

.. code-block:: python

    for r in range(points.shape[0]):
        _aot_region_0(points, r, out)  # traced: out[r, :] = np.sum(points - points[r, :], axis=0)

Its parameters are the locals it reads before assigning them; it returns the names it assigns
that the kernel reads afterwards; and it writes into the arrays it assigns into (``out[r, :] =
...``, ``h[k] += ...``, ``u /= scale``): their buffers are the kernel's, written in place.

NumPy's order of effects is kept by cutting runs where a traced graph could reorder them: a
region's statements may compute values first, and then write into **one** array (several writes
into it, in order); a write into another array, or a statement after the writes, starts the next
region. A graph computes every value a region returns before its writes, and the writes read
nothing the kernel's other arrays could alias but the values computed before them.

The kernel's generated module keeps every line where it was: the call stands on the run's first
line, and the run's other lines stay as comments, so numba's messages point at the lines of the
source as written.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from ...types import Array, TupleOf
from .statements import StatementKinds

REGION_PREFIX = "_aot_region_"


@dataclass(frozen=True)
class Region:
    """A run of a kernel's statements, cut out to be traced."""

    name: str
    """The name the kernel calls it by (``_aot_region_0``)."""

    params: tuple[str, ...]
    """The locals it reads before assigning them, in the order first read."""

    outputs: tuple[str, ...]
    """The names it assigns that the kernel reads later, returned in this order."""

    writes: tuple[str, ...]
    """The parameters whose arrays it writes into (at most one, see the module docstring)."""

    statements: tuple[str, ...]
    """Each statement's code as traced (``u /= s`` of an array written ``u[...] /= s``)."""

    lines: tuple[tuple[int, int], ...]
    """Each statement's first and last line in the kernel's source (1-based)."""

    tuples: tuple[tuple[str, int], ...] = ()
    """Parameters that are tuples of numbers (``mask=(1, 0, 1)``, ``shape = a.shape``), with
    their lengths: passed item by item (a traced graph takes scalars and arrays), and made a
    tuple again first thing."""

    @property
    def parameters(self) -> tuple[str, ...]:
        """The region function's (and graph's) parameters: ``params``, a tuple's items each
        one of its own (``mask__0, mask__1, ...``)."""
        lengths = dict(self.tuples)
        return tuple(
            item
            for name in self.params
            for item in ([name] if name not in lengths else _items(name, lengths[name]))
        )

    @property
    def arguments(self) -> tuple[str, ...]:
        """What the kernel passes for :attr:`parameters` (``mask[0], mask[1], ...``)."""
        lengths = dict(self.tuples)
        return tuple(
            item
            for name in self.params
            for item in ([name] if name not in lengths else [f"{name}[{k}]" for k in range(lengths[name])])
        )

    @property
    def prologue(self) -> tuple[str, ...]:
        """The statements making the tuple parameters tuples again."""
        return tuple(
            f"{name} = ({''.join(f'{item}, ' for item in _items(name, n))})" for name, n in self.tuples
        )

    @property
    def assigned(self) -> tuple[str, ...]:
        """Every name its statements assign, in the order first assigned."""
        names: list[str] = []
        for text in self.statements:
            names += [n for n in sorted(_stores(ast.parse(text).body[0])) if n not in names]
        return tuple(names)

    def function_source(self) -> str:
        """The region as a Python function, for the tracer: it returns the outputs, and every
        name it assigns (whose types must be numba's)."""
        body = [f"    {line}" for statement in self.statements for line in statement.splitlines()]
        returns = "".join(f"{name}, " for name in self.outputs)
        assigned = ", ".join(f"{name!r}: {name}" for name in self.assigned)
        return "\n".join(
            [
                f"def {self.name}({', '.join(self.parameters)}):",
                *(f"    {line}" for line in self.prologue),
                *body,
                f"    return ({returns}), {{{assigned}}}",
                "",
            ]
        )

    def first_reader(self, name: str) -> int:
        """The index of the first statement reading ``name``."""
        for index, text in enumerate(self.statements):
            if name in _loads(ast.parse(text).body[0]):
                return index
        return 0

    def last_assigning(self, name: str) -> int:
        """The index of the last statement assigning ``name``."""
        found = 0
        for index, text in enumerate(self.statements):
            if name in _stores(ast.parse(text).body[0]):
                found = index
        return found

    def statement_at(self, line: int) -> int:
        """The index of the statement on ``line`` of :meth:`function_source` (1-based)."""
        current = 2 + len(self.prologue)
        for index, statement in enumerate(self.statements):
            current += len(statement.splitlines())
            if line < current:
                return index
        return len(self.statements) - 1


def runs(function: ast.FunctionDef, kinds: StatementKinds, excluded: frozenset[int]) -> list[list[ast.stmt]]:
    """The runs of ``function``'s statements to trace, in source order: in each block, the
    maximal runs of eligible statements doing array work, cut before a second write target
    and after a write (module docstring). ``excluded``: first lines of statements not to trace."""
    found: list[list[ast.stmt]] = []
    for block in _blocks(function):
        current: list[ast.stmt] = []
        written: str | None = None
        for statement in block:
            if (
                statement.lineno in excluded
                or not kinds.eligible(statement)
                or not kinds.does_array_work(statement)
                or _shares_line(statement, block)
            ):
                found.append(current)
                current, written = [], None
                continue
            target = _write_target(statement, kinds)
            if written is not None and target != written:
                found.append(current)
                current = []
            current.append(statement)
            written = target if target is not None else written
        found.append(current)
    return [run for run in found if run]


def outline(
    function: ast.FunctionDef, source: str, kinds: StatementKinds, excluded: frozenset[int]
) -> tuple[str, tuple[Region, ...]]:
    """``source`` (the kernel's ``def``) with each run replaced by a call of its region, and the
    regions, numbered in source order."""
    lines = source.splitlines()
    locals_ = set(kinds.types)
    regions: list[Region] = []
    for run in runs(function, kinds, excluded):
        name = f"{REGION_PREFIX}{len(regions)}"
        region = _region(name, run, function, kinds, locals_)
        regions.append(region)
        first, last = run[0].lineno, run[-1].end_lineno or run[-1].lineno
        indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
        call = f"{name}({', '.join(region.arguments)})"
        if region.outputs:
            call = f"{', '.join(region.outputs)}{',' if len(region.outputs) == 1 else ''} = {call}"
        original = [line.strip() for line in lines[first - 1 : last]]
        lines[first - 1] = f"{indent}{call}  # traced: {original[0]}"
        for index in range(first, last):
            lines[index] = (
                f"{indent}# traced: {original[index - first + 1]}" if original[index - first + 1] else ""
            )
    return "\n".join(lines) + "\n", tuple(regions)


def _region(
    name: str, run: list[ast.stmt], function: ast.FunctionDef, kinds: StatementKinds, locals_: set[str]
) -> Region:
    params: list[str] = []
    assigned: set[str] = set()
    read_before_assigned: set[str] = set()
    writes: list[str] = []
    statements: list[str] = []
    for statement in run:
        for node in _loads(statement):
            if node in locals_ and node not in assigned and node not in params:
                params.append(node)
            if node not in assigned:
                read_before_assigned.add(node)
        target = _write_target(statement, kinds)
        if target is not None and target not in assigned and target not in writes:
            writes.append(target)
            if target not in params:
                params.append(target)
        assigned |= _stores(statement)
        statements.append(_traced_text(statement, kinds))
    inside = {id(node) for statement in run for node in ast.walk(statement)}
    read_elsewhere = {
        node.id
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in inside
    }
    outputs = tuple(
        sorted(
            (n for n in assigned if (n in read_elsewhere or n in read_before_assigned) and n not in writes),
            key=lambda n: _first_store(run, n),
        )
    )
    lines = tuple((s.lineno, s.end_lineno or s.lineno) for s in run)
    tuples = tuple(
        (param, len(kind.items)) for param in params if isinstance(kind := kinds.types.get(param), TupleOf)
    )
    return Region(name, tuple(params), outputs, tuple(writes), tuple(statements), lines, tuples)


def _items(name: str, length: int) -> list[str]:
    return [f"{name}__{k}" for k in range(length)]


def _write_target(statement: ast.stmt, kinds: StatementKinds) -> str | None:
    """The array ``statement`` writes into: ``x`` of ``x[...] = ...``, of ``x[...] op= ...``, and
    of ``x op= ...`` when ``x`` is an array (NumPy updates it in place)."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[attr-defined]
    for target in targets:
        for item in target.elts if isinstance(target, ast.Tuple) else [target]:
            if isinstance(item, ast.Subscript) and isinstance(item.value, ast.Name):
                return item.value.id
            if (
                isinstance(statement, ast.AugAssign)
                and isinstance(item, ast.Name)
                and isinstance(kinds.types.get(item.id), Array)
            ):
                return item.id
    return None


def _traced_text(statement: ast.stmt, kinds: StatementKinds) -> str:
    """The statement as the tracer runs it: ``u op= v`` of an array ``u`` writes into ``u``'s
    elements (``u[...] op= v``), as NumPy does, rather than binding a new array to ``u``."""
    if (
        isinstance(statement, ast.AugAssign)
        and isinstance(statement.target, ast.Name)
        and isinstance(kinds.types.get(statement.target.id), Array)
    ):
        target = ast.Subscript(
            value=ast.Name(statement.target.id, ast.Load()), slice=ast.Constant(Ellipsis), ctx=ast.Store()
        )
        statement = ast.AugAssign(target=target, op=statement.op, value=statement.value)
    return ast.unparse(_BooleanOperators().visit(statement))


class _BooleanOperators(ast.NodeTransformer):
    """``a and b`` / ``a or b`` as ``_aot_and(a, b)`` / ``_aot_or(a, b)``: on traced booleans,
    ``np.logical_and``/``or`` (:func:`aotbuild.trace.regions.tracing.traced_and`). Both sides
    are then computed, so only where the later ones cannot raise what Python would have skipped:
    no indexing by a number or an array (``i < n and a[i] > 0`` keeps Python's ``and``), no
    ``np.linalg``."""

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:  # noqa: N802
        node = self.generic_visit(node)  # type: ignore[assignment]
        if not all(_cannot_raise(value) for value in node.values[1:]):
            return node
        name = "_aot_and" if isinstance(node.op, ast.And) else "_aot_or"
        return ast.Call(func=ast.Name(name, ast.Load()), args=list(node.values), keywords=[])


def _cannot_raise(expression: ast.expr) -> bool:
    for node in ast.walk(expression):
        if isinstance(node, ast.Subscript):
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if not all(
                isinstance(item, ast.Slice)
                or (isinstance(item, ast.Constant) and item.value in (None, Ellipsis))
                for item in items
            ):
                return False
        if isinstance(node, ast.Attribute) and node.attr == "linalg":
            return False
    return True


def _loads(statement: ast.stmt) -> Iterator[str]:
    """Names ``statement`` reads, in the order they are written (the value before the targets)."""
    parts: list[ast.AST] = [statement.value]  # type: ignore[attr-defined]
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[attr-defined]
    if isinstance(statement, ast.AugAssign):
        parts.insert(0, statement.target)  # x op= v reads x first
    parts += targets
    for part in parts:
        names = [node for node in ast.walk(part) if isinstance(node, ast.Name)]
        for node in sorted(names, key=lambda n: (n.lineno, n.col_offset)):
            if isinstance(node.ctx, ast.Load) or isinstance(statement, ast.AugAssign):
                yield node.id


def _stores(statement: ast.stmt) -> set[str]:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[attr-defined]
    names = set()
    for target in targets:
        for item in target.elts if isinstance(target, ast.Tuple) else [target]:
            if isinstance(item, ast.Name):
                names.add(item.id)
    return names


def _first_store(run: list[ast.stmt], name: str) -> int:
    return next(index for index, statement in enumerate(run) if name in _stores(statement))


def _blocks(function: ast.FunctionDef) -> Iterator[list[ast.stmt]]:
    """Every statement list of the function: its body, and those of its loops, branches,
    ``with`` and ``try`` blocks, at every depth (not of nested functions)."""
    stack: list[list[ast.stmt]] = [function.body]
    while stack:
        block = stack.pop(0)
        yield block
        for statement in block:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    stack.append(inner)
            for handler in getattr(statement, "handlers", []):
                stack.append(handler.body)


def _shares_line(statement: ast.stmt, block: list[ast.stmt]) -> bool:
    """Whether another statement stands on one of ``statement``'s lines (``a = 1; b = x * 2``)."""
    first, last = statement.lineno, statement.end_lineno or statement.lineno
    return any(
        other is not statement and not (other.lineno > last or (other.end_lineno or other.lineno) < first)
        for other in block
    )
