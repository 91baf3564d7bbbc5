"""Kernels: functions compiled as written (``mode = "kernel"``), and the helpers they call.

For its module to be self-contained — the text alone determining the compiled code — a kernel's
globals are lifted: library modules and objects become imports, constants become literals, and
every helper function it calls (plain or ``@njit``) becomes a separate compiled Op that the module
*declares*. To know each helper's argument types, the kernel is typed by numba with a stand-in
for each helper; the stand-in types the helper in turn (recursively) and records the call.
"""

from __future__ import annotations

import ast
import builtins
import dis
import hashlib
import importlib
import inspect
import sysconfig
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ..compile.compiler import CompileFlags
from ..errors import KernelError
from ..types import Array, Result, Scalar, Signature, TupleOf, Value


@dataclass(frozen=True)
class KernelUnit:
    """A function compiled as written, for one signature, with what its module needs."""

    name: str
    """The function's ``__name__`` (also its name in the generated module)."""

    qualname: str
    """``module.qualname``, for messages and titles."""

    source: str
    """The ``def`` as written (decorators removed, dedented)."""

    origin_file: str
    """Where it was written, relative to the project (``model.py``)."""

    origin_line: int
    """The line of its ``def`` there."""

    imports: tuple[str, ...]
    """Import statements for the library modules and objects it uses."""

    constants: tuple[str, ...]
    """``NAME = literal`` statements for the constants it uses."""

    helpers: tuple[tuple[str, tuple[KernelUnit, ...]], ...]
    """Global name -> the compiled helper variants called under that name."""

    signature: Signature
    flags: CompileFlags

    @property
    def origin(self) -> str:
        return f"{self.origin_file}:{self.origin_line}"

    @cached_property
    def key(self) -> str:
        """A content hash of everything above, helpers included (stable across processes)."""
        digest = hashlib.sha256()
        parts = [self.name, self.source, self.origin, *self.imports, *self.constants]
        parts += [str(self.signature), repr(self.flags)]
        for name, variants in self.helpers:
            parts.append(name)
            parts.extend(variant.key for variant in variants)
        for part in parts:
            digest.update(part.encode() + b"\0")
        return digest.hexdigest()


# ---------------------------------------------------------------------------------------------
# What a function's source and globals are
# ---------------------------------------------------------------------------------------------


@dataclass
class _FunctionInfo:
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


def _python_function(value: Any) -> types.FunctionType | None:
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
    if options.get("parallel"):
        raise KernelError(
            f"`{value.__name__}` uses parallel=True, which needs numba's threading layer at run "
            "time; aotbuild packages run without numba"
        )
    return CompileFlags(
        error_model=options.get("error_model") or "python",
        fastmath=bool(options.get("fastmath")),
        boundscheck=bool(options.get("boundscheck")),
    )


def _library_paths() -> list[Path]:
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    return [Path(p).resolve() for p in {sysconfig.get_paths()[k] for k in keys}]


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


def _source(function: types.FunctionType) -> tuple[str, int]:
    """The ``def`` of ``function`` without decorators, and the line it starts on."""
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
    return "\n".join(source_lines) + "\n", first_line + node.lineno - 1


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


_CONSTANT_TYPES = (bool, int, float, complex, str, type(None), np.generic, np.ndarray)


def _constant_text(value: Any) -> str | None:
    """Source text reproducing a constant exactly, or None if ``value`` is not a constant."""
    from ..codegen.literals import constant_literal

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


def _function_info(function: Any, root: Path) -> _FunctionInfo:
    python = _python_function(function)
    if python is None:
        raise KernelError(f"{function!r} is not a Python function")
    source, line = _source(python)
    qualname = f"{python.__module__}.{python.__qualname__}"
    imports: list[str] = []
    constants: list[str] = []
    helpers: dict[str, Any] = {}
    closure = dict(zip(python.__code__.co_freevars, python.__closure__ or ()))
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
            if not _is_library_module(value, root):
                raise KernelError(
                    f"`{qualname}` uses the module `{name}` ({value.__name__}); import the "
                    f"functions it needs by name (`from {value.__name__} import ...`) so "
                    "aotbuild can compile them as helpers"
                )
            alias = "" if value.__name__ == name else f" as {name}"
            imports.append(f"import {value.__name__}{alias}")
            continue
        helper = _python_function(value)
        if helper is not None and (helper is not value or not _numba_knows(value)):
            helpers[name] = value
            continue
        text = _constant_text(value) if isinstance(value, (*_CONSTANT_TYPES, tuple, np.dtype)) else None
        if text is not None:
            if "np." in text and "np" not in names:
                imports.append("import numpy as np")
            constants.append(f"{name} = {text}")
            continue
        statement = _import_text(name, value)
        if statement is None and isinstance(value, type) and issubclass(value, BaseException):
            statement = f"from {value.__module__} import {value.__qualname__} as {name}"
        if statement is None:
            raise KernelError(
                f"`{qualname}` uses the global `{name}` ({type(value).__name__}), which aotbuild "
                "cannot lift into a generated module; pass it as an argument or make it a "
                "module-level constant, import or function"
            )
        imports.append(statement)
    return _FunctionInfo(
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
    )


# ---------------------------------------------------------------------------------------------
# Typing with stand-ins for the helpers
# ---------------------------------------------------------------------------------------------


def _compatible(declared: Result, inferred: Result) -> bool:
    """Whether a function inferred to return ``inferred`` may be declared as ``declared``."""
    if isinstance(declared, TupleOf) and isinstance(inferred, TupleOf):
        return len(declared.items) == len(inferred.items) and all(
            _compatible(d, i) for d, i in zip(declared.items, inferred.items)
        )
    if isinstance(declared, Array) and isinstance(inferred, Array):
        layout_ok = declared.layout == "A" or inferred.layout == "C"
        return declared.dtype == inferred.dtype and declared.ndim == inferred.ndim and layout_ok
    return declared == inferred


class KernelAnalyser:
    """Analyses kernels and, recursively, their helpers; one per build (it memoizes)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._infos: dict[int, _FunctionInfo] = {}
        self._units: dict[tuple[int, tuple[Value, ...]], KernelUnit] = {}
        self._in_progress: set[tuple[int, tuple[Value, ...]]] = set()
        self._pending_error: KernelError | None = None

    def _info(self, function: Any) -> _FunctionInfo:
        python = _python_function(function)
        key = id(python)
        if key not in self._infos:
            self._infos[key] = _function_info(function, self.root)
        return self._infos[key]

    def kernel(self, function: Any, signature: Signature) -> KernelUnit:
        """The unit for a graph's kernel, checked against its declared result."""
        _prepare_numba()
        unit = self._unit(function, signature.args)
        if not _compatible(signature.result, unit.signature.result):
            raise KernelError(
                f"kernel `{unit.qualname}` ({unit.origin}) returns {unit.signature.result}, but "
                f"its signature declares {signature.result}"
            )
        return replace(unit, signature=signature)

    def _unit(self, function: Any, argtypes: tuple[Value, ...]) -> KernelUnit:
        """The unit for ``function`` called with ``argtypes``: the same whether it is a graph's
        kernel or a helper, so code used in both roles is compiled once."""
        info = self._info(function)
        key = (id(info.function), argtypes)
        if key in self._units:
            return self._units[key]
        if key in self._in_progress:
            raise KernelError(
                f"`{info.qualname}` calls itself (directly or through other helpers); "
                "recursive helpers are not supported"
            )
        self._in_progress.add(key)
        try:
            calls: dict[str, list[KernelUnit]] = {}
            typed = self._with_stand_ins(info, calls)
            result = self._infer(info, typed, argtypes)
        finally:
            self._in_progress.discard(key)
        helpers = tuple((name, tuple(variants)) for name, variants in calls.items())
        unit = KernelUnit(
            name=info.name,
            qualname=info.qualname,
            source=info.source,
            origin_file=info.origin_file,
            origin_line=info.origin_line,
            imports=tuple(info.imports),
            constants=tuple(info.constants),
            helpers=helpers,
            signature=Signature(argtypes, result),
            flags=info.flags,
        )
        self._units[key] = unit
        return unit

    def _infer(self, info: _FunctionInfo, typed: Callable[..., Any], argtypes: tuple[Value, ...]) -> Result:
        from numba.core.errors import NumbaError

        from ..compile.infer import infer_return_type
        from ..compile.messages import condense
        from ..compile.numba_types import UnsupportedType, from_numba, to_numba

        try:
            inferred = infer_return_type(
                typed, tuple(to_numba(t) for t in argtypes), error_model=info.flags.error_model
            )
        except NumbaError as exc:
            pending, self._pending_error = self._pending_error, None
            if pending is not None:
                raise pending from None
            raise KernelError(
                f"numba cannot compile `{info.qualname}` ({info.origin_file}:{info.origin_line}) "
                f"for {', '.join(map(str, argtypes)) or 'no arguments'}:\n{condense(str(exc))}"
            ) from None
        try:
            return from_numba(inferred)
        except UnsupportedType as exc:
            raise KernelError(
                f"`{info.qualname}` ({info.origin_file}:{info.origin_line}) returns {exc}; "
                "kernels and helpers may return scalars, arrays, tuples of them, or None"
            ) from None

    def _with_stand_ins(self, info: _FunctionInfo, calls: dict[str, list[KernelUnit]]) -> Callable[..., Any]:
        """``info.function`` with every helper replaced by a typing stand-in."""
        python = info.function
        if not info.helpers:
            return python
        stand_ins = {name: self._stand_in(name, helper, calls) for name, helper in info.helpers.items()}
        new_globals = dict(python.__globals__)
        new_globals.update({k: v for k, v in stand_ins.items() if k not in python.__code__.co_freevars})
        closure = None
        if python.__closure__:
            closure = tuple(
                types.CellType(stand_ins[name]) if name in stand_ins else cell
                for name, cell in zip(python.__code__.co_freevars, python.__closure__)
            )
        typed = types.FunctionType(python.__code__, new_globals, python.__name__, python.__defaults__, closure)
        typed.__qualname__ = python.__qualname__
        typed.__module__ = python.__module__
        return typed

    def _stand_in(self, name: str, helper: Any, calls: dict[str, list[KernelUnit]]) -> Any:
        from numba.extending import intrinsic

        from ..compile.numba_types import UnsupportedType, from_numba, to_numba

        helper_info = self._info(helper)
        arity = helper_info.function.__code__.co_argcount

        def typing(typingctx: Any, *args: Any) -> Any:
            try:
                argtypes = tuple(from_numba(arg) for arg in args)
            except UnsupportedType as exc:
                return self._fail(
                    f"`{helper_info.qualname}` is called with an argument of type {exc}; helpers "
                    "take scalars and arrays"
                )
            if any(not isinstance(t, (Scalar, Array)) for t in argtypes):
                return self._fail(f"`{helper_info.qualname}` is called with a tuple argument; helpers take scalars and arrays")
            try:
                unit = self._unit(helper, argtypes)  # type: ignore[arg-type]
            except KernelError as exc:
                return self._fail(str(exc))
            variants = calls.setdefault(name, [])
            if unit not in variants:
                variants.append(unit)
            argtypes_nb = tuple(to_numba(t) for t in unit.signature.args)
            return to_numba(unit.signature.result)(*argtypes_nb), _never_lowered

        def _never_lowered(*args: Any) -> Any:  # typing only: code is generated from modules
            raise AssertionError("typing stand-ins are never lowered")

        params = ", ".join(f"arg{i}" for i in range(arity))
        namespace: dict[str, Any] = {"typing": typing}
        exec(
            f"def {name}(typingctx{', ' if params else ''}{params}):\n"
            f"    return typing(typingctx{', ' if params else ''}{params})\n",
            namespace,
        )
        return intrinsic(namespace[name])

    def _fail(self, message: str) -> None:
        """Remember a helper problem; numba's own error is replaced by it."""
        if self._pending_error is None:
            self._pending_error = KernelError(message)
        return None


_numba_prepared = False


def _prepare_numba() -> None:
    """Load numba's typing registries (NumPy, linalg...) so globals resolve as in njit."""
    global _numba_prepared
    if not _numba_prepared:
        from numba.core.registry import cpu_target

        cpu_target.target_context.refresh()
        cpu_target.typing_context.refresh()
        _numba_prepared = True

