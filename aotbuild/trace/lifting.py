"""What a kernel's module needs from its function: its source and its globals, lifted.

A kernel's generated module must alone determine its compiled code, so every global the function
uses is classified: library modules and objects become imports, constants become literals, and
functions of the user's (plain or ``@njit``) become helpers, compiled as Ops of their own.
Anything else is refused with a message saying what to do.
"""

from __future__ import annotations

import ast
import builtins
import dis
import importlib
import inspect
import sys
import sysconfig
import textwrap
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..compile.compiler import CompileFlags
from ..errors import KernelError
from .cython import cython_export_of
from .used import is_used_package, used_graph_of


@dataclass
class FunctionInfo:
    """A function's source, where it was written, and its globals sorted into kinds."""

    function: types.FunctionType
    name: str
    qualname: str
    source: str
    origin_file: str
    origin_line: int
    imports: list[str]
    constants: list[str]
    helpers: dict[str, Any]
    flags: CompileFlags
    parameters: str
    """The parameter list callers see, as in a ``def`` (``"x, k=2.0"``): the function's own,
    defaults lifted to literals, without the trailing ones whose default is a function."""
    function_defaults: tuple[str, ...] = ()
    """Names of the trailing parameters whose default is a function: compiled in as that
    function, never passed."""
    dicts: dict[str, Any] = field(default_factory=dict)
    """Global name -> the module-level dict it reads, as the ``ConstantDict`` it is lifted to."""
    declared: dict[str, Any] = field(default_factory=dict)
    """Global name -> the declaration of another package's graph it calls (``[package] uses``)."""


def python_function(value: Any) -> types.FunctionType | None:
    """The Python function behind ``value`` (a numba dispatcher's ``py_func``), if any."""
    from numba.core.dispatcher import Dispatcher

    if isinstance(value, Dispatcher):
        return value.py_func
    if isinstance(value, types.FunctionType):
        return value
    return None


def _flags_of(value: Any) -> CompileFlags:
    """numba options that change code, from a dispatcher's ``targetoptions``."""
    options = getattr(value, "targetoptions", {}) or {}
    return CompileFlags(
        error_model=options.get("error_model") or "python",
        fastmath=bool(options.get("fastmath")),
        boundscheck=bool(options.get("boundscheck")),
        parallel=bool(options.get("parallel")),
    )


def _library_paths() -> list[Path]:
    """Where installed libraries live: this interpreter's own folders, and every site-packages
    on ``sys.path`` (pip's isolated build environments install NumPy and numba into one of
    their own, which sysconfig does not name)."""
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    folders = {sysconfig.get_paths()[k] for k in keys}
    folders |= {entry for entry in sys.path if Path(entry).name in ("site-packages", "dist-packages")}
    return [Path(p).resolve() for p in folders]


def _is_library_module(module: types.ModuleType, root: Path) -> bool:
    filename = getattr(module, "__file__", None)
    if filename is None:
        return True  # built into the interpreter
    path = Path(filename).resolve()
    if path.is_relative_to(root):
        return False
    return any(path.is_relative_to(lib) for lib in _library_paths())


def _origin_file(function: types.FunctionType, root: Path) -> str:
    filename = inspect.getsourcefile(function)
    if filename is not None:
        path = Path(filename).resolve()
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    module = function.__module__.replace(".", "/")
    return f"{module}.py"


def _source(function: types.FunctionType) -> tuple[str, int, ast.FunctionDef]:
    """The ``def`` of ``function`` without decorators, the line it starts on, and its syntax."""
    try:
        lines, first_line = inspect.getsourcelines(function)
    except (OSError, TypeError):
        raise KernelError(
            f"cannot read the source of `{function.__qualname__}`; kernels and their helpers "
            "must be defined in a .py file"
        ) from None
    text = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        raise KernelError(f"cannot parse the source of `{function.__qualname__}`") from None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef) or node.name != function.__name__:
        raise KernelError(
            f"`{function.__qualname__}` is not a plain `def` function (lambdas and "
            "generated functions cannot be kernels)"
        )
    source_lines = text.splitlines()[node.lineno - 1 : node.end_lineno]
    return "\n".join(source_lines) + "\n", first_line + node.lineno - 1, node


def globals_and_closure(function: types.FunctionType) -> dict[str, Any]:
    """A copy of ``function``'s globals with its closure's values added (cells not yet set left
    out): the namespace its code, compiled again at module level, reads the same names from."""
    namespace = dict(function.__globals__)
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or (), strict=True):
        try:
            namespace[name] = cell.cell_contents
        except ValueError:
            continue
    return namespace


def _global_names(code: types.CodeType) -> list[str]:
    """Names a code object (and the code nested in it) loads as globals, in first-use order."""
    names: list[str] = []
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and instruction.argval not in names:
            names.append(instruction.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.extend(name for name in _global_names(const) if name not in names)
    return names


def _constant_text(value: Any) -> str | None:
    """Source text reproducing a constant exactly, or None if ``value`` is not a constant."""
    from ..codegen.literals import constant_literal

    if isinstance(value, dict):
        if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in value):
            return None
        entries = [(_constant_text(k), _constant_text(v)) for k, v in value.items()]
        if any(v is None for _, v in entries):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in entries) + "}"
    if isinstance(value, tuple):
        items = [_constant_text(item) for item in value]
        if any(item is None for item in items):
            return None
        return "(" + "".join(f"{item}, " for item in items).rstrip(" ") + ")"
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return repr(value)
    if isinstance(value, float):
        if value != value:
            return 'float("nan")'
        if value in (float("inf"), float("-inf")):
            return f'float("{value}")'
        return repr(value)
    if isinstance(value, complex):
        return f"complex({_constant_text(value.real)}, {_constant_text(value.imag)})"
    if isinstance(value, (np.generic, np.ndarray)):
        return constant_literal(np.asarray(value))
    if isinstance(value, np.dtype):
        return f"np.dtype({value.name!r})"
    return None


def _import_text(name: str, value: Any) -> str | None:
    """An import statement binding ``name`` to the library object ``value``, if one exists."""
    module_name = getattr(value, "__module__", None)
    attribute = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    candidates = []
    if module_name and attribute and "." not in attribute:
        candidates.append((module_name, attribute))
    candidates += [(library, name) for library in ("numpy", "numba", "math", "cmath", "numba.core.types")]
    for module_name, attribute in candidates:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if getattr(module, attribute, None) is value:
            alias = "" if attribute == name else f" as {name}"
            return f"from {module_name} import {attribute}{alias}"
    return None


def _numba_knows(value: Any) -> bool:
    from numba.core.registry import cpu_target

    try:
        cpu_target.typing_context.resolve_value_type(value)
    except Exception:
        return False
    return True


def _module_attributes(code: types.CodeType, name: str) -> list[str] | None:
    """The attributes ``code`` (and the code nested in it) reads from the global ``name``,
    ``name.attr`` each; None when it uses ``name`` any other way."""
    found: list[str] = []
    instructions = list(dis.get_instructions(code))
    for index, instruction in enumerate(instructions):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and instruction.argval == name:
            following = instructions[index + 1] if index + 1 < len(instructions) else None
            if following is None or following.opname not in ("LOAD_ATTR", "LOAD_METHOD"):
                return None
            if following.argval not in found:
                found.append(following.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            nested = _module_attributes(const, name)
            if nested is None:
                return None
            found.extend(attribute for attribute in nested if attribute not in found)
    return found


def _lift(
    qualname: str,
    name: str,
    value: Any,
    names: list[str],
    imports: list[str],
    constants: list[str],
    helpers: dict[str, Any],
    dicts: dict[str, Any],
    declared: dict[str, Any],
) -> None:
    """Lift the global ``name`` (``module.attr`` for a project module's) bound to ``value``: a
    used package's graph, a helper, a Cython export, a constant, or an import; anything else
    is refused."""
    used = used_graph_of(value)
    if used is not None:  # called by declaration of the symbol its package exports
        from ..compile.declare import declare

        imports.append("from aotbuild.compile.declare import declare")
        constants.append(f"{name} = {used.declaration()}")
        declared[name] = declare(*used.variants(), parameters=", ".join(used.params))
        return
    helper = python_function(value)
    if helper is not None and (helper is not value or not _numba_knows(value)):
        helpers[name] = value
        return
    export = cython_export_of(qualname, name, value)
    if export is not None:  # a C function pointer: called by name, resolved at run time
        imports.append("from aotbuild.compile.external import cython_export")
        constants.append(
            f'{name} = cython_export("{export.module}", "{export.export}", "{export.signature}")'
        )
        return
    text = _constant_text(value)
    if text is not None:
        if "np." in text and "np" not in names:
            imports.append("import numpy as np")
        if isinstance(value, dict):  # numba types no dict global: a read-only one it can
            from ..compile.constants import constant_dict

            imports.append("from aotbuild.compile.constants import constant_dict")
            text = f"constant_dict({text})"
            dicts[name] = constant_dict(value)
        constants.append(f"{name} = {text}")
        return
    statement = _import_text(name, value) if "." not in name else None
    if statement is None and isinstance(value, type) and issubclass(value, BaseException) and "." not in name:
        statement = f"from {value.__module__} import {value.__qualname__} as {name}"
    if statement is None:
        raise KernelError(
            f"`{qualname}` uses the global `{name}` ({type(value).__name__}), which aotbuild "
            "cannot lift into a generated module; pass it as an argument or make it a "
            "module-level constant, import or function"
            + (
                " (a library object reached through a module of the project: import it by name)"
                if "." in name
                else ""
            )
        )
    imports.append(statement)


def function_info(function: Any, root: Path) -> FunctionInfo:
    """Read ``function`` (a Python function or numba dispatcher) and classify its globals."""
    python = python_function(function)
    if python is None:
        raise KernelError(f"{function!r} is not a Python function")
    source, line, node = _source(python)
    qualname = f"{python.__module__}.{python.__qualname__}"
    where = f"`{qualname}` ({_origin_file(python, root)}:{line})"
    python, source = _lift_imports(python, source, line, qualname, _origin_file(python, root))
    imports: list[str] = []
    constants: list[str] = []
    helpers: dict[str, Any] = {}
    dicts: dict[str, Any] = {}
    declared: dict[str, Any] = {}
    parameters, function_defaults = _parameters(python, node, where)
    _refuse_generators(source, line, qualname, _origin_file(python, root))
    closure = dict(zip(python.__code__.co_freevars, python.__closure__ or (), strict=True))
    names = list(python.__code__.co_freevars) + [
        n for n in _global_names(python.__code__) if n not in closure
    ]
    for name in names:
        if name in closure:
            try:
                value = closure[name].cell_contents
            except ValueError:
                raise KernelError(f"`{qualname}` uses `{name}` before it is assigned") from None
        elif name in python.__globals__:
            value = python.__globals__[name]
        elif hasattr(builtins, name):
            continue
        else:
            continue  # numba reports the undefined name with its location
        if isinstance(value, types.ModuleType):
            if _is_library_module(value, root) and not is_used_package(value):
                alias = "" if value.__name__ == name else f" as {name}"
                imports.append(f"import {value.__name__}{alias}")
                continue
            attributes = _module_attributes(python.__code__, name) if name not in closure else None
            if not attributes:
                raise KernelError(
                    f"`{qualname}` uses the module `{name}` ({value.__name__}) other than as "
                    f"`{name}.function(...)` or `{name}.CONSTANT`; import what it needs by name "
                    f"(`from {value.__name__} import ...`) so aotbuild can compile it"
                )
            # The module's functions and constants the code reads, on a module object of the
            # generated module: `helpers.f(x)` reads as written, and calls f by declaration.
            imports.append("from types import ModuleType as _aot_module")
            constants.append(f'{name} = _aot_module("{value.__name__}")')
            for attribute in attributes:
                if not hasattr(value, attribute):
                    continue  # numba reports the missing attribute with its location
                _lift(
                    qualname,
                    f"{name}.{attribute}",
                    getattr(value, attribute),
                    names,
                    imports,
                    constants,
                    helpers,
                    dicts,
                    declared,
                )
            continue
        _lift(qualname, name, value, names, imports, constants, helpers, dicts, declared)
    for name, value in function_defaults:  # `def f(x, fn=square)`: square is a helper too
        _lift(qualname, name, value, names, imports, constants, helpers, dicts, declared)
    return FunctionInfo(
        function=python,
        name=python.__name__,
        qualname=qualname,
        source=source,
        origin_file=_origin_file(python, root),
        origin_line=line,
        imports=sorted(set(imports)),
        constants=constants,
        helpers=helpers,
        flags=_flags_of(function),
        parameters=parameters,
        dicts=dicts,
        declared=declared,
        function_defaults=tuple(
            p.arg for p in node.args.args[len(node.args.args) - len(function_defaults) :]
        ),
    )


def _lift_imports(
    python: types.FunctionType, source: str, line: int, qualname: str, origin_file: str
) -> tuple[types.FunctionType, str]:
    """``python`` and its ``source`` with the ``import`` statements in its body lifted into its
    module: numba compiles no import inside a function. Each statement becomes ``pass`` (lines
    keep their numbers) and the names it binds are globals of the function returned, bound to
    what the import gives now; they are then lifted as any global is (a library module as an
    import). Sound when the name means the same object wherever the function uses it: refused
    at its line when the function also binds it otherwise (an assignment, a parameter...), two
    imports bind it to different objects, or the function also reads it as a different global."""
    tree = ast.parse(source)
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    if not imports:
        return python, source

    def at(source_line: int) -> str:
        return f"`{qualname}` ({origin_file}:{line + source_line - 1})"

    bound: dict[str, Any] = {}
    for statement in imports:
        for name, value in _imported(statement, python, at(statement.lineno)):
            if name in bound and bound[name] is not value:
                raise KernelError(
                    f"{at(statement.lineno)} imports `{name}` again as another object; aotbuild "
                    "compiles imports inside kernels as imports of their module: give one of them "
                    "another name"
                )
            bound[name] = value
    for node in ast.walk(tree):
        for name, node_line in _other_bindings(node):
            if name in bound:
                raise KernelError(
                    f"{at(node_line)} binds `{name}`, which it also imports; aotbuild "
                    "compiles imports inside kernels as imports of their module, where one name "
                    "means one thing: give one of them another name"
                )
    for name in _global_names(python.__code__):
        if name in bound and name in python.__globals__ and python.__globals__[name] is not bound[name]:
            raise KernelError(
                f"{at(1)} imports `{name}` inside and also reads the module's `{name}`, "
                "another object; aotbuild compiles imports inside kernels as imports of their "
                "module: give one of them another name"
            )
    lines = source.splitlines()
    for statement in sorted(imports, key=lambda s: (s.lineno, s.col_offset), reverse=True):
        first, last = statement.lineno - 1, (statement.end_lineno or statement.lineno) - 1
        head, tail = lines[first][: statement.col_offset], lines[last][statement.end_col_offset or 0 :]
        if not tail.strip() or tail.lstrip().startswith("#"):  # `pass  # lifted: import x`
            tail = f"  # lifted: {ast.unparse(statement)}{tail}"
        lines[first : last + 1] = [f"{head}pass{tail}"] + [""] * (last - first)
    rewritten = "\n".join(lines) + "\n"
    namespace = globals_and_closure(python)
    namespace.update(bound)
    code = ast.parse(rewritten)
    ast.increment_lineno(code, line - 1)
    definition = code.body[0]
    assert isinstance(definition, ast.FunctionDef)
    definition.args.defaults, definition.returns = [], None  # not evaluated: taken from python
    for argument in definition.args.args:
        argument.annotation = None
    local: dict[str, Any] = {}
    exec(compile(code, python.__code__.co_filename, "exec"), namespace, local)  # noqa: S102 (its own code)
    function = local[python.__name__]
    function.__defaults__ = python.__defaults__
    function.__kwdefaults__ = python.__kwdefaults__
    function.__qualname__ = python.__qualname__
    function.__module__ = python.__module__
    return function, rewritten


def _imported(
    statement: ast.Import | ast.ImportFrom, python: types.FunctionType, at: str
) -> list[tuple[str, Any]]:
    """The names ``statement`` binds in ``python``, and the objects it binds them to."""
    try:
        if isinstance(statement, ast.Import):
            found = []
            for alias in statement.names:
                module = importlib.import_module(alias.name)
                if alias.asname is None:  # `import a.b` binds `a`
                    top = alias.name.split(".")[0]
                    found.append((top, sys.modules[top]))
                else:
                    found.append((alias.asname, module))
            return found
        package = python.__globals__.get("__package__") or None
        name = "." * statement.level + (statement.module or "")
        module = importlib.import_module(name, package)
        found = []
        for alias in statement.names:
            if not hasattr(module, alias.name):  # a submodule not imported yet
                importlib.import_module(f"{module.__name__}.{alias.name}")
            found.append((alias.asname or alias.name, getattr(module, alias.name)))
        return found
    except (ImportError, AttributeError) as exc:
        raise KernelError(f"{at}: `{ast.unparse(statement)}` fails here: {exc}") from None


_NAMED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)
"""Nodes binding their ``name``: nested defs and classes, ``except ... as e``, match captures."""


def _other_bindings(node: ast.AST) -> list[tuple[str, int]]:
    """Names ``node`` binds other than by an import, with its line: assignment and loop targets,
    ``del``, parameters, ``global``/``nonlocal``, and the nodes of ``_NAMED``."""
    names: list[str | None] = []
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        names = [node.id]
    elif isinstance(node, ast.arg):
        names = [node.arg]
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        names = list(node.names)
    elif isinstance(node, _NAMED):
        names = [node.name]
    elif isinstance(node, ast.MatchMapping):
        names = [node.rest]
    line = getattr(node, "lineno", 0)
    return [(name, line) for name in names if name]


def _refuse_generators(source: str, line: int, qualname: str, origin_file: str) -> None:
    """numba compiles no generator expression inside a function; say so at its line (``line``
    is the file's line of the ``def``, the first of ``source``), with what to write instead.
    A tuple made from one (``tuple(f(p) for p in pos)``) cannot be a list comprehension: numba
    makes no tuple from a list, and NumPy reads a list index otherwise (``a[[i, j]]`` is rows)."""
    tree = ast.parse(source)
    tuples = {
        id(node.args[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "tuple"
        and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)
    }  # fmt: skip
    generators = [node for node in ast.walk(tree) if isinstance(node, ast.GeneratorExp)]
    if not generators:
        return
    first = min(generators, key=lambda node: (node.lineno, node.col_offset))
    at = f"`{qualname}` ({origin_file}:{line + first.lineno - 1})"
    loops = " ".join(f"for {_target_text(g.target)} in {ast.unparse(g.iter)}" for g in first.generators)
    if id(first) in tuples:
        raise KernelError(
            f"{at} builds a tuple from a generator expression (`tuple(... {loops})`), which numba "
            "does not compile (it builds no tuple in a loop, nor from a list); write the tuple's "
            "items out, e.g. `(f(0, pos[0]), f(1, pos[1]))` for a 2-d array (a list would not do "
            "as an index: NumPy reads `a[[i, j]]` as rows i and j)"
        )
    raise KernelError(
        f"{at} uses a generator expression (`... {loops}`), which numba does not compile inside a "
        "function; use a list comprehension or a loop (for a tuple, write its items out: "
        "`(2 * s[0], 2 * s[1])`)"
    )


def _target_text(target: ast.expr) -> str:
    """A loop target as written: ``d, p`` (``ast.unparse`` gives ``(d, p)``)."""
    if isinstance(target, ast.Tuple):
        return ", ".join(ast.unparse(item) for item in target.elts)
    return ast.unparse(target)


def _parameters(
    python: types.FunctionType, node: ast.FunctionDef, where: str
) -> tuple[str, list[tuple[str, Any]]]:
    """The parameter list callers see (``"x, k=2.0"``), and the functions given as defaults
    (``fn=square``: ``("square", square)``), which must be the trailing parameters."""
    arguments = node.args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.posonlyargs:
        raise KernelError(
            f"{where} takes *args, **kwargs, keyword-only or positional-only parameters, which "
            "numba does not compile; give it ordinary parameters (with defaults if you like)"
        )
    names = [a.arg for a in arguments.args]
    defaults = list(python.__defaults__ or ())
    first_default = len(names) - len(defaults)
    texts: list[str] = []
    function_defaults: list[tuple[str, Any]] = []
    for index, name in enumerate(names):
        if index < first_default:
            texts.append(name)
            continue
        value = defaults[index - first_default]
        expression = arguments.defaults[index - first_default]
        if python_function(value) is not None:
            if not isinstance(expression, (ast.Name, ast.Attribute)):
                raise KernelError(
                    f"{where}: the default of `{name}` is a function made by an expression; name "
                    "a module-level function there (`{name}=square`)"
                )
            function_defaults.append((ast.unparse(expression), value))
            continue
        if function_defaults:
            raise KernelError(
                f"{where}: `{name}` follows a parameter whose default is a function; put the "
                "parameters with function defaults last"
            )
        text = None if isinstance(value, dict) else _constant_text(value)
        texts.append(name if text is None else f"{name}={text}")  # not a constant: callers pass it
    return ", ".join(texts), function_defaults
