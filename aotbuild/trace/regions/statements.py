"""Which statements of a kernel do array work, read from its syntax and the types numba inferred.

numba compiles ``out[r, :] = np.sum(a - a[r, :], axis=0)`` as it is written: a temporary array
per operation. Such a statement is worth tracing (fused, planned, vector math) when it does
*array work*: an operator or a NumPy call on an array, or an array built (``np.array([fx, fy])``).
A statement that reads or writes single elements (``out[i] = table[j]``), takes a view
(``row = a[i]``) or computes with scalars is left to numba, which does those as well as anything.

The types come from numba's typing of the kernel as written: each local variable's type (every
definition of a name the same kind), so ``e[i]`` is an element when ``e`` has one dimension and
``i`` is an integer. A statement is *eligible* for tracing when it is a plain assignment
(``name = ...``, ``a, b = ...``, ``x[...] = ...``, ``x op= ...``) whose locals are scalars and
arrays, and it calls none of the kernel's helpers (they are compiled on their own).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ...types import Array, Scalar, TupleOf, Value

#: Builtins that only read sizes or scalars of their arguments: no array work.
_SCALAR_BUILTINS = frozenset({"len", "range", "enumerate", "zip", "print", "isinstance"})

#: NumPy functions that only make an array (``np.empty_like(x)``): numba does as well.
_CREATION = frozenset(
    {"empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "copy", "arange"}
)

#: Array attributes that are views of the array; and those that are numbers.
_VIEW_ATTRIBUTES = frozenset({"T", "real", "imag"})
_SCALAR_ATTRIBUTES = frozenset({"size", "ndim", "itemsize", "nbytes"})


@dataclass(frozen=True)
class Kind:
    """What an expression is: an array of ``ndim`` dimensions, a scalar, or something else
    (a tuple, a module, a function...). ``work``: evaluating it does array work."""

    what: str  # "array" | "scalar" | "other"
    ndim: int = 0
    work: bool = False

    def with_work(self, work: bool) -> Kind:
        return Kind(self.what, self.ndim, self.work or work)


SCALAR = Kind("scalar")
OTHER = Kind("other")


def local_types(typemap: dict[str, Any]) -> dict[str, Value | TupleOf | None]:
    """Each local variable's type from numba's typemap (``x``, ``x.1``): an aotbuild
    :class:`Value` (or a tuple of scalars) when every definition has that one type, else None
    (a list, a tuple of arrays, or definitions of different types)."""
    from ...compile.numba_types import UnsupportedType, from_numba

    found: dict[str, set[Value | TupleOf | None]] = {}
    for variable, nbtype in typemap.items():
        if variable.startswith(("$", "arg.")):
            continue  # numba's temporaries; its arguments as passed (an omitted one: its default)
        name = variable.split(".")[0]
        try:
            converted = from_numba(nbtype)
        except UnsupportedType:
            converted = None
        numbers = isinstance(converted, TupleOf) and all(isinstance(i, Scalar) for i in converted.items)
        value = converted if isinstance(converted, (Scalar, Array)) or numbers else None
        found.setdefault(name, set()).add(value)  # type: ignore[arg-type]
    return {name: next(iter(values)) if len(values) == 1 else None for name, values in found.items()}


class StatementKinds:
    """Kinds of a kernel's expressions and statements (see the module docstring)."""

    def __init__(self, types: dict[str, Value | TupleOf | None], helpers: Iterable[str]) -> None:
        self.types = types
        self.helpers = frozenset(name.split(".")[0] for name in helpers)

    # -- expressions ---------------------------------------------------------------------
    def kind(self, node: ast.expr) -> Kind:
        method = getattr(self, f"_kind_{type(node).__name__}", None)
        if method is None:
            return Kind("other", work=any(self.kind(child).work for child in _expressions(node)))
        result: Kind = method(node)
        return result

    def _kind_Name(self, node: ast.Name) -> Kind:  # noqa: N802
        if node.id not in self.types:
            return OTHER  # a global: a module, a constant, a function
        value = self.types[node.id]
        if isinstance(value, Array):
            return Kind("array", value.ndim)
        return SCALAR if isinstance(value, Scalar) else OTHER

    def _kind_Constant(self, node: ast.Constant) -> Kind:  # noqa: N802
        return SCALAR if isinstance(node.value, (int, float, complex, bool)) else OTHER

    def _kind_Attribute(self, node: ast.Attribute) -> Kind:  # noqa: N802
        base = self.kind(node.value)
        if base.what == "array":
            if node.attr in _VIEW_ATTRIBUTES:
                return Kind("array", base.ndim, base.work)
            if node.attr in _SCALAR_ATTRIBUTES:
                return Kind("scalar", work=base.work)
        if isinstance(node.value, ast.Name) and node.value.id not in self.types:
            return SCALAR if node.attr in ("pi", "e", "inf", "nan", "newaxis") else OTHER  # np.pi
        return Kind("other", work=base.work)

    def _kind_Subscript(self, node: ast.Subscript) -> Kind:  # noqa: N802
        base = self.kind(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        kinds = [self.kind(item) if not isinstance(item, ast.Slice) else None for item in items]
        work = base.work or any(k is not None and k.work for k in kinds)
        work |= any(
            self.kind(part).work for item in items if isinstance(item, ast.Slice) for part in _parts(item)
        )
        if base.what != "array":
            if isinstance(node.value, ast.Attribute) and node.value.attr in ("shape", "strides"):
                return Kind("scalar", work=work)  # x.shape[0]
            return Kind("other", work=work)
        ndim = base.ndim
        for item, kind in zip(items, kinds, strict=True):
            if isinstance(item, ast.Constant) and item.value is None:
                ndim += 1
            elif isinstance(item, ast.Constant) and item.value is Ellipsis:
                continue
            elif kind is None:
                continue  # a slice keeps its axis
            elif kind.what == "scalar":
                ndim -= 1
            elif kind.what == "array":  # a gather or a mask: a new array
                return Kind("array", max(ndim, 1), True)
            else:
                return Kind("other", work=work)
        return Kind("array", ndim, work) if ndim > 0 else Kind("scalar", work=work)

    def _operation(self, operands: list[ast.expr]) -> Kind:
        kinds = [self.kind(operand) for operand in operands]
        work = any(k.work for k in kinds)
        arrays = [k for k in kinds if k.what == "array"]
        if arrays:
            return Kind("array", max(k.ndim for k in arrays), True)
        if any(k.what == "other" for k in kinds):
            return Kind("other", work=work)
        return Kind("scalar", work=work)

    def _kind_BinOp(self, node: ast.BinOp) -> Kind:  # noqa: N802
        return self._operation([node.left, node.right])

    def _kind_UnaryOp(self, node: ast.UnaryOp) -> Kind:  # noqa: N802
        return self._operation([node.operand])

    def _kind_Compare(self, node: ast.Compare) -> Kind:  # noqa: N802
        return self._operation([node.left, *node.comparators])

    def _kind_BoolOp(self, node: ast.BoolOp) -> Kind:  # noqa: N802
        return self._operation(list(node.values))

    def _kind_IfExp(self, node: ast.IfExp) -> Kind:  # noqa: N802
        return self._operation([node.test, node.body, node.orelse])

    def _kind_Call(self, node: ast.Call) -> Kind:  # noqa: N802
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        kinds = [self.kind(argument) for argument in arguments]
        work = any(k.work for k in kinds) or self.kind(node.func).work
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name in _SCALAR_BUILTINS and name not in self.types:
            return Kind("other" if name != "len" else "scalar", work=work)
        if _creation(node):
            return Kind("other", work=work)  # np.empty_like(x), x.copy(): numba does as well
        if any(k.what == "array" for k in kinds):
            work = True  # a NumPy function, a method or a builtin of arrays
        if isinstance(node.func, ast.Attribute) and self.kind(node.func.value).what == "array":
            work = True  # x.sum(), x.astype(...)
        # What the call returns is not known from here: the statement's target says it.
        return Kind("other", work=work)

    def _kind_List(self, node: ast.List) -> Kind:  # noqa: N802
        return Kind("other", work=any(self.kind(e).work for e in node.elts))

    _kind_Tuple = _kind_List

    # -- statements ----------------------------------------------------------------------
    def does_array_work(self, statement: ast.stmt) -> bool:
        """Whether ``statement`` computes with arrays (see the module docstring)."""
        if isinstance(statement, ast.AugAssign):
            updated = self.kind(statement.target)
            change = self.kind(statement.value)
            return updated.what == "array" or change.what == "array" or change.work or updated.work
        if not isinstance(statement, ast.Assign):
            return False
        value = self.kind(statement.value)
        if value.work:
            return True
        for target in statement.targets:
            made = isinstance(statement.value, ast.Call) and not _creation(statement.value)
            if made and isinstance(target, ast.Name) and isinstance(self.types.get(target.id), Array):
                return True  # an array made by a call (np.array([fx, fy])): not a view, not np.zeros
            if isinstance(target, ast.Subscript):
                written = self.kind(target)
                if written.work or written.what == "array":
                    return True  # a slice written (a view filled), or through a mask
        return False

    def eligible(self, statement: ast.stmt) -> bool:
        """Whether ``statement`` may be traced: an assignment of supported shape, reading and
        writing only scalar and array locals, calling no helper of the kernel."""
        targets: list[ast.expr]
        if isinstance(statement, ast.AugAssign):
            targets = [statement.target]
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            targets = list(statement.targets)
        else:
            return False
        for target in targets:
            names: list[ast.expr] = list(target.elts) if isinstance(target, ast.Tuple) else [target]
            for item in names:
                if isinstance(item, ast.Subscript) and not isinstance(item.value, ast.Name):
                    return False  # x[i][j] = ..., x.attr[i] = ...
                if not isinstance(item, (ast.Name, ast.Subscript)):
                    return False
        for node in ast.walk(statement):
            if isinstance(node, ast.Name):
                if node.id in self.types and self.types[node.id] is None:
                    return False  # a tuple, a list, or a name of several types
                if node.id in self.helpers and node.id not in self.types:
                    return False  # a helper: compiled on its own
            if isinstance(node, (ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)):
                return False
            if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
                return False
        return True


def _creation(call: ast.Call) -> bool:
    """``np.empty_like(x)``, ``np.zeros(n)``, ``x.copy()``: an allocation and nothing more."""
    function = call.func
    return isinstance(function, ast.Attribute) and function.attr in _CREATION


def _expressions(node: ast.AST) -> Iterator[ast.expr]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            yield child


def _parts(item: ast.Slice) -> Iterator[ast.expr]:
    for part in (item.lower, item.upper, item.step):
        if part is not None:
            yield part
