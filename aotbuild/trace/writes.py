"""Which array parameters a kernel may write into — read from its source, conservatively.

``cast = "same_kind"`` hands a kernel a converted copy of an array of another dtype; a write into
that copy would never reach the caller's array. So a graph may only cast the arrays its kernel
provably does not write. A parameter counts as written when the kernel — or a name bound to it
(``row = x[i]``, ``y = x.T``, ``for row in x``) — is assigned into (``x[i] = ...``, ``x[i] += ...``),
has a mutating method called (``x.fill(0)``, ``x.sort()``), is given to NumPy as ``out=`` or to
a writing function (``np.copyto``), is passed to a helper that writes that parameter, or is
passed to anything else aotbuild cannot see into.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

#: Array methods that write into the array.
_MUTATING_METHODS = frozenset(
    {"fill", "sort", "put", "itemset", "resize", "partition", "setflags", "setfield", "byteswap"}
)
#: NumPy functions that write into an argument.
_NUMPY_WRITERS = frozenset(
    {"copyto", "put", "place", "putmask", "fill_diagonal", "shuffle", "put_along_axis", "nditer"}
)
#: Methods and NumPy functions whose result may share memory with the array or argument.
_VIEW_METHODS = frozenset(
    {
        "reshape",
        "view",
        "transpose",
        "ravel",
        "swapaxes",
        "squeeze",
        "asarray",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "expand_dims",
        "broadcast_to",
        "diagonal",
        "moveaxis",
        "flatten",
    }
)
#: Builtins that only read their arguments.
_READING_BUILTINS = frozenset(
    {
        "len",
        "range",
        "enumerate",
        "zip",
        "min",
        "max",
        "abs",
        "sum",
        "float",
        "int",
        "bool",
        "round",
        "print",
        "isinstance",
        "complex",
        "reversed",
        "sorted",
        "any",
        "all",
    }
)


def written_parameters(unit: Any) -> dict[int, str]:
    """Position of each parameter ``unit`` (a :class:`KernelUnit`) may write into -> why."""
    function = ast.parse(unit.written_source).body[0]
    assert isinstance(function, ast.FunctionDef)
    params = [arg.arg for arg in function.args.args]
    helpers = dict(unit.helpers)
    aliases = _aliases(function, params, helpers)
    written: dict[int, str] = {}

    def mark(names: set[str], node: ast.expr, what: str) -> None:
        for param in names:
            line = unit.origin_line + node.lineno - 1
            written.setdefault(params.index(param), f"{unit.origin_file}:{line}: {what}")

    for node in ast.walk(function):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            mark(aliases.get(_base(node) or "", set()), node, f"`{ast.unparse(node)}` is assigned")
        elif isinstance(node, ast.Call):
            _check_call(node, aliases, helpers, mark)
    return written


def _check_call(node: ast.Call, aliases: dict[str, set[str]], helpers: dict[str, Any], mark: Any) -> None:
    def params_in(argument: ast.AST) -> set[str]:
        if isinstance(argument, (ast.Name, ast.Subscript, ast.Attribute)):
            return aliases.get(_base(argument) or "", set())
        return set()

    func = node.func
    shown = ast.unparse(func)
    if isinstance(func, ast.Attribute) and func.attr in _MUTATING_METHODS:
        mark(params_in(func.value), node, f"`{shown}()` writes into it")
    for keyword in node.keywords:
        if keyword.arg == "out":
            mark(params_in(keyword.value), node, f"`{shown}(..., out=...)` writes into it")
    positional = [params_in(argument) for argument in node.args]
    if not any(positional) and not any(params_in(k.value) for k in node.keywords if k.arg != "out"):
        return
    name = func.id if isinstance(func, ast.Name) else None
    if isinstance(func, ast.Attribute):
        root = _base(func)
        if root in ("np", "numpy", "math", "cmath") or root in aliases:
            if func.attr in _NUMPY_WRITERS:
                mark(set().union(*positional[:1]), node, f"`{shown}()` writes into it")
            return  # NumPy's other functions and array methods read their arguments
    if name in _READING_BUILTINS and name not in helpers and hasattr(builtins, name):
        return
    if name in helpers:
        for variant in helpers[name]:
            for position in written_parameters(variant):
                if position < len(positional):
                    why = f"helper `{name}` writes into its argument {position + 1}"
                    mark(positional[position], node, why)
        return
    for names in positional:
        mark(names, node, f"it is passed to `{shown}()`, which aotbuild cannot see into")


def _base(node: ast.AST) -> str | None:
    """The name at the root of ``x[i].T[0]`` and the like."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _aliases(function: ast.FunctionDef, params: list[str], helpers: dict[str, Any]) -> dict[str, set[str]]:
    """Each name that may refer to (part of) a parameter's memory -> those parameters."""
    aliases: dict[str, set[str]] = {param: {param} for param in params}
    changed = True
    while changed:
        changed = False
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                value, targets = node.value, node.targets
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                value, targets = node.value, [node.target]
            elif isinstance(node, ast.For):
                value, targets = node.iter, [node.target]
            else:
                continue
            sources = _sources(value, aliases, helpers)
            for target in targets:
                for name in _bound_names(target):
                    if not sources <= aliases.setdefault(name, set()):
                        aliases[name] |= sources
                        changed = True
    return aliases


def _sources(value: ast.AST, aliases: dict[str, set[str]], helpers: dict[str, Any]) -> set[str]:
    """The parameters whose memory ``value`` may share: names, their items, attributes and views
    (``x``, ``x[1:]``, ``x.T``, ``x.reshape(...)``, ``np.ravel(x)``), what a helper returns; not
    new arrays (``np.empty_like(x)``, ``x + 1``, ``x.copy()``)."""
    if isinstance(value, ast.Name):
        return set(aliases.get(value.id, set()))
    if isinstance(value, (ast.Subscript, ast.Attribute, ast.Starred, ast.NamedExpr)):
        return _sources(value.value, aliases, helpers)
    if isinstance(value, (ast.Tuple, ast.List)):
        return set().union(*(_sources(item, aliases, helpers) for item in value.elts))
    if isinstance(value, ast.IfExp):
        return _sources(value.body, aliases, helpers) | _sources(value.orelse, aliases, helpers)
    if isinstance(value, ast.Call):
        func = value.func
        arguments = set().union(*(_sources(a, aliases, helpers) for a in value.args))
        if isinstance(func, ast.Attribute) and func.attr in _VIEW_METHODS:
            return _sources(func.value, aliases, helpers) | arguments
        if isinstance(func, ast.Name) and func.id in helpers:
            return arguments
    return set()


def _bound_names(target: ast.AST) -> list[str]:
    """Names an assignment target binds (``a``, ``a, b``, ``*rest``; not ``a[i]`` or ``a.b``)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for item in target.elts for name in _bound_names(item)]
    return []
