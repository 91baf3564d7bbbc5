"""The vector math library with its helpers pasted into their callers, for numba to compile once.

numba compiles every ``register_jitable`` function through its whole pipeline on its own, ~40 ms
each however small, before LLVM inlines it: ``tanh_float64`` and the 17 helpers it reaches
(``_mla``, ``_dd_mul``...) took 0.94 s, paid again by every compile worker whose first Op uses it.
Pasting each straight-line helper into its caller, in the source, leaves one function for numba to
compile, made of the same operations on the same values in the same order: the results are the
library's, bit for bit (``tests/compile/test_flatten.py``).

What is pasted, and how:

* ``if has_fma():`` is decided first, for the target the library is compiled for (the intrinsic
  folds to the same constant): what remains of most helpers is straight-line code;
* a call of a straight-line helper (assignments, then one ``return``) with positional arguments
  becomes its body, its locals renamed ``<helper>_<n>_<name>``, and the call the expression it
  returned; an argument that is a name or a constant is used as it is where the helper never
  assigns to that parameter, any other is assigned to the renamed parameter first;
* calls are pasted innermost first, in the order Python evaluates them; every function of the
  library is pure arithmetic, so evaluating a helper's arguments before the rest of the
  expression around its call changes no value. A call inside a conditional expression's branch,
  or a ``while`` test, is left a call: that code only runs when its condition holds.

Functions with loops (``_dd_power``) keep their loops and are not pasted; calls in their bodies
are, statement by statement.
"""

from __future__ import annotations

import ast
import copy
import itertools
from collections.abc import Iterator

#: The intrinsic whose value decides the library's ``if`` statements.
HAS_FMA = "has_fma"


class Flattener:
    """The library's functions flattened for a target with (``fma``) or without FMA, added
    callees first: each is pasted into the functions added after it that call it."""

    def __init__(self, fma: bool) -> None:
        self.fma = fma
        self.flat: dict[str, ast.FunctionDef] = {}

    def add(self, source: str) -> str:
        """The source of the function ``source`` defines, flattened (its callees added before)."""
        function = ast.parse(source).body[0]
        assert isinstance(function, ast.FunctionDef), source
        function.body = _decide_fma(function.body, self.fma)
        function.body = _Paster(self.flat, _local_names(function)).statements(function.body)
        self.flat[function.name] = function
        return ast.unparse(ast.fix_missing_locations(function))


def _is_has_fma(test: ast.expr) -> bool | None:
    """``has_fma()``: True; ``not has_fma()``: False; anything else: None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _is_has_fma(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == HAS_FMA:
        return True
    return None


def _decide_fma(statements: list[ast.stmt], fma: bool) -> list[ast.stmt]:
    """``if has_fma():`` statements replaced by the branch taken; code after a ``return`` that
    the branch made unconditional dropped."""
    out: list[ast.stmt] = []
    for statement in statements:
        wanted = _is_has_fma(statement.test) if isinstance(statement, ast.If) else None
        if isinstance(statement, ast.If) and wanted is not None:
            out += _decide_fma(statement.body if wanted == fma else statement.orelse, fma)
        else:
            for field in ("body", "orelse"):
                if isinstance(getattr(statement, field, None), list):
                    setattr(statement, field, _decide_fma(getattr(statement, field), fma))
            out.append(statement)
        if out and isinstance(out[-1], ast.Return):
            break
    return out


def _straight_line(function: ast.FunctionDef) -> bool:
    """Assignments (a docstring) and a final ``return``, positional parameters only."""
    arguments = function.args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.defaults:
        return False
    *body, last = function.body
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
    returns = isinstance(last, ast.Return) and last.value is not None
    return returns and all(isinstance(statement, simple) for statement in body)


def _local_names(function: ast.FunctionDef) -> set[str]:
    return _stored_names(function) | {a.arg for a in function.args.args}


def _stored_names(function: ast.FunctionDef) -> set[str]:
    names = (node for node in ast.walk(function) if isinstance(node, ast.Name))
    return {node.id for node in names if isinstance(node.ctx, ast.Store)}


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, ast.expr]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id not in self.names:
            return node
        replacement = self.names[node.id]
        if isinstance(replacement, ast.Name):
            return ast.Name(replacement.id, node.ctx)
        return copy.deepcopy(replacement)


class _Paster(ast.NodeTransformer):
    """Pastes calls of the straight-line functions of ``flat`` into a function's statements."""

    def __init__(self, flat: dict[str, ast.FunctionDef], caller_locals: set[str]) -> None:
        self.flat = {name: f for name, f in flat.items() if _straight_line(f)}
        self.caller_locals = caller_locals
        self.counter: Iterator[int] = itertools.count()
        self.before: list[ast.stmt] = []

    def statements(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in statements:
            if isinstance(statement, (ast.For, ast.If)):
                head = "iter" if isinstance(statement, ast.For) else "test"
                setattr(statement, head, self._expression(getattr(statement, head), out))
                statement.body = self.statements(statement.body)
                statement.orelse = self.statements(statement.orelse)
                out.append(statement)
            elif isinstance(statement, ast.While):
                statement.body = self.statements(statement.body)
                statement.orelse = self.statements(statement.orelse)
                out.append(statement)
            else:
                self.before = []
                pasted = self.visit(statement)
                out += self.before + [pasted]
        return out

    def _expression(self, expression: ast.expr, out: list[ast.stmt]) -> ast.expr:
        self.before = []
        pasted = self.visit(expression)
        out += self.before
        return pasted

    def _shadowed(self, callee: ast.FunctionDef) -> bool:
        """Whether a global the callee reads is a local of the caller (it would read that)."""
        own = _local_names(callee)
        read = {n.id for n in ast.walk(callee) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        return bool((read - own) & self.caller_locals)

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        node.test = self.visit(node.test)  # always evaluated; the branches only when chosen
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        node.values[0] = self.visit(node.values[0])  # the rest only when not short-circuited
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)  # arguments first: their calls are pasted before this one
        callee = self.flat.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if callee is None or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return node
        parameters = [a.arg for a in callee.args.args]
        if len(parameters) != len(node.args) or self._shadowed(callee):
            return node
        n = next(self.counter)
        stored = _stored_names(callee)
        names: dict[str, ast.expr] = {name: ast.Name(f"{callee.name}_{n}_{name}") for name in stored}
        for parameter, argument in zip(parameters, node.args, strict=True):
            if parameter not in stored and isinstance(argument, (ast.Name, ast.Constant)):
                names[parameter] = argument
            else:
                copied = f"{callee.name}_{n}_{parameter}"
                names[parameter] = ast.Name(copied)
                self.before.append(ast.Assign([ast.Name(copied, ast.Store())], argument))
        rename = _Rename(names)
        *body, last = callee.body
        for statement in body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # the docstring
            self.before.append(rename.visit(copy.deepcopy(statement)))
        assert isinstance(last, ast.Return) and last.value is not None
        result: ast.expr = rename.visit(copy.deepcopy(last.value))
        return result
