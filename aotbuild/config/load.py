"""Read and validate ``graphs.toml`` into a :class:`~aotbuild.config.model.ProjectConfig`.

Every problem becomes one :class:`~aotbuild.errors.ConfigError` line naming the file, the table,
the key and what was expected — unknown keys included, since a misspelled ``nogil`` that is
silently ignored is worse than an error.
"""

from __future__ import annotations

import difflib
import keyword
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError, SignatureError
from ..types import Array, Scalar, Signature
from .gufunc import check_gufunc
from .model import MODES, TARGETS, GraphConfig, PackageConfig, ProjectConfig
from .signature import parse_signature
from .ufunc import check_ufunc

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

#: Attributes of every generated package; graphs may not shadow them.
RESERVED_NAMES = frozenset({"manifest", "profile", "graphs", "get_num_threads", "set_num_threads"})

_PACKAGE_KEYS = ("name", "version", "target", "out_dir", "uses")
_GRAPH_KEYS = (
    "function",
    "signature",
    "mode",
    "nogil",
    "fastmath",
    "out",
    "cast",
    "grad",
    "parallel",
    "ufunc",
    "identity",
    "gufunc",
)
#: Values of a graph's ``cast``.
CASTS = ("no", "same_kind")


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it is below it, for messages."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class _Where:
    """Formats messages as ``graphs.toml: [graphs.logp] key: problem``."""

    def __init__(self, path: Path, table: str) -> None:
        self.prefix = f"{display_path(path)}: [{table}]"

    def error(self, message: str, key: str | None = None) -> ConfigError:
        where = f"{self.prefix} {key}:" if key else self.prefix
        return ConfigError(f"{where} {message}")


def _check_keys(table: Mapping[str, Any], allowed: tuple[str, ...], where: _Where) -> None:
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise where.error(f"unknown key {key!r} (expected one of: {', '.join(allowed)}){hint}")


def _string(table: Mapping[str, Any], key: str, where: _Where, default: str | None = None) -> str:
    if key not in table:
        if default is None:
            raise where.error(f"missing required key {key!r}")
        return default
    value = table[key]
    if not isinstance(value, str):
        raise where.error(f"expected a string, got {type(value).__name__} {value!r}", key)
    if not value.strip():
        raise where.error("must not be empty", key)
    return value


def _identifier(name: str, what: str, where: _Where, key: str | None = None) -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise where.error(f"{what} {name!r} is not a valid Python identifier", key)
    return name


def _package(table: Any, path: Path) -> PackageConfig:
    where = _Where(path, "package")
    if not isinstance(table, dict):
        raise where.error("must be a table")
    _check_keys(table, _PACKAGE_KEYS, where)
    name = _identifier(_string(table, "name", where), "package name", where, "name")
    version = _string(table, "version", where, PackageConfig.version)
    targets = _targets(table, where)
    out_dir = _string(table, "out_dir", where, PackageConfig.out_dir)
    return PackageConfig(
        name=name,
        version=version,
        target=targets[0],
        out_dir=out_dir,
        extra_targets=targets[1:],
        uses=_uses(table, name, where),
    )


def _uses(table: Mapping[str, Any], package: str, where: _Where) -> tuple[str, ...]:
    """``uses = ["stats_ext"]``: importable names of other aotbuild packages, each once."""
    value = table.get("uses", [])
    if not isinstance(value, list):
        raise where.error(f"expected a list of package names, got {type(value).__name__} {value!r}", "uses")
    for name in value:
        if not isinstance(name, str):
            raise where.error(f"expected a package name, got {type(name).__name__} {name!r}", "uses")
        _identifier(name, "package name", where, "uses")
        if name == package:
            raise where.error(f"{name!r} is this package itself", "uses")
    repeated = sorted({name for name in value if value.count(name) > 1})
    if repeated:
        raise where.error(f"{', '.join(repeated)} listed twice", "uses")
    return tuple(value)


def _targets(table: Mapping[str, Any], where: _Where) -> tuple[str, ...]:
    """``target = "x86-64-v3"``, or several: ``target = ["generic", "x86-64-v3"]``."""
    value = table.get("target", PackageConfig.target)
    names = value if isinstance(value, list) else [value]
    if not names:
        raise where.error("expected a target name or a non-empty list of them", "target")
    for name in names:
        if not isinstance(name, str):
            raise where.error(f"expected a target name, got {type(name).__name__} {name!r}", "target")
        if name not in TARGETS:
            raise where.error(f"unknown target {name!r} (expected one of: {', '.join(TARGETS)})", "target")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise where.error(f"{', '.join(repeated)} listed twice", "target")
    return tuple(names)


def _graph(name: str, table: Any, path: Path) -> GraphConfig:
    where = _Where(path, f"graphs.{name}")
    if not isinstance(table, dict):
        raise where.error("must be a table with at least 'function' and 'signature'")
    _identifier(name, "graph name", where)
    if name.startswith("_") or name in RESERVED_NAMES:
        raise where.error(
            f"graph name {name!r} would shadow an attribute of the generated package; "
            f"names may not start with '_' or be one of: {', '.join(sorted(RESERVED_NAMES))}"
        )
    _check_keys(table, _GRAPH_KEYS, where)
    function = _string(table, "function", where)
    module, sep, qualname = function.partition(":")
    if not sep or not module.strip() or not qualname.strip():
        raise where.error(f"expected 'module:function', got {function!r}", "function")
    texts, signatures = _signatures(table, where)
    signature_text, signature = texts[0], signatures[0]
    ufunc = table.get("ufunc", False)
    if not isinstance(ufunc, bool):
        raise where.error(f"expected true or false, got {ufunc!r}", "ufunc")
    identity = None
    gufunc = ""
    if "gufunc" in table:
        gufunc = check_gufunc(table, signatures, texts, lambda message, key: where.error(message, key))
    elif ufunc:
        identity = check_ufunc(table, signatures, texts, lambda message, key: where.error(message, key))
    elif "identity" in table:
        raise where.error("an identity is a ufunc's: add ufunc = true (see docs/ufuncs.md)", "identity")
    if len(signatures) > 1 and not (ufunc or gufunc):
        _check_overloads(signatures, texts, where)
    mode = _string(table, "mode", where, "auto")
    if mode not in MODES:
        raise where.error(f"expected one of {', '.join(map(repr, MODES))}, got {mode!r}", "mode")
    nogil = table.get("nogil", False)
    if not isinstance(nogil, bool):
        raise where.error(f"expected true or false, got {nogil!r}", "nogil")
    fastmath = table.get("fastmath", False)
    if not isinstance(fastmath, bool):
        raise where.error(f"expected true or false, got {fastmath!r}", "fastmath")
    if fastmath and mode == "kernel":
        raise where.error(
            "fastmath = true is for traced graphs; a kernel keeps numba's own option: "
            "decorate it with @njit(fastmath=True)",
            "fastmath",
        )
    parallel = table.get("parallel", False)
    if not isinstance(parallel, bool):
        raise where.error(f"expected true or false, got {parallel!r}", "parallel")
    out = table.get("out", False)
    if not isinstance(out, bool):
        raise where.error(f"expected true or false, got {out!r}", "out")
    for text, each in zip(texts, signatures, strict=True):
        if out and not any(isinstance(item, Array) for item in each.results):
            which = "the signature" if len(texts) == 1 else repr(text)
            raise where.error(
                f"out = true needs an array result to write into; {which} returns {each.result}", "out"
            )
    cast = _string(table, "cast", where, "no")
    if cast not in CASTS:
        raise where.error(f"expected one of {', '.join(map(repr, CASTS))}, got {cast!r}", "cast")
    grad = _grad(table, where, mode, signature)
    return GraphConfig(
        name=name,
        function=function,
        signature=signature,
        signature_text=signature_text,
        mode=mode,
        nogil=nogil,
        fastmath=fastmath,
        out=out,
        cast=cast,
        grad=grad,
        parallel=parallel,
        ufunc=ufunc,
        identity=identity,
        gufunc=gufunc,
        signatures=signatures,
        signature_texts=texts,
    )


def _check_overloads(signatures: tuple[Signature, ...], texts: tuple[str, ...], where: _Where) -> None:
    """Several signatures under one name: one function, so one number of arguments; and no two
    that take the same types (the package calls the first that matches: the second never)."""
    if len({len(signature.args) for signature in signatures}) > 1:
        raise where.error(
            "every signature under one name takes the same number of arguments (they compile one "
            f"function); got {', '.join(map(repr, texts))}",
            "signature",
        )
    seen: dict[tuple[object, ...], str] = {}
    for text, signature in zip(texts, signatures, strict=True):
        if signature.args in seen:
            raise where.error(
                f"{text!r} and {seen[signature.args]!r} take the same argument types: calls would only "
                "ever run the first; keep one",
                "signature",
            )
        seen[signature.args] = text


def _signatures(table: Mapping[str, Any], where: _Where) -> tuple[tuple[str, ...], tuple[Signature, ...]]:
    """``signature = "..."``, or a list of them (a ufunc's loops, in NumPy's order)."""
    value = table.get("signature")
    if value is None:
        raise where.error("missing required key 'signature'")
    texts = value if isinstance(value, list) else [value]
    if not texts:
        raise where.error("expected a signature or a non-empty list of them", "signature")
    signatures = []
    for text in texts:
        if not isinstance(text, str):
            raise where.error(f"expected a string, got {type(text).__name__} {text!r}", "signature")
        if not text.strip():
            raise where.error("must not be empty", "signature")
        try:
            signatures.append(parse_signature(text))
        except SignatureError as exc:
            raise where.error(f"{text!r}: {exc}", "signature") from None
    return tuple(texts), tuple(signatures)


def _grad(table: Mapping[str, Any], where: _Where, mode: str, signature: Signature) -> tuple[str, ...]:
    """``grad = ["theta"]``: parameter names, on a traced graph with a float scalar result."""
    names = table.get("grad", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise where.error(f"expected a list of parameter names, got {names!r}", "grad")
    if not names:
        return ()
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise where.error(f"{', '.join(repeated)} listed twice", "grad")
    if mode == "kernel":
        raise where.error(
            "gradients are of traced graphs; kernels are not differentiated (write the gradient "
            "as a graph of its own, see docs/gradients.md)",
            "grad",
        )
    result = signature.result
    if not (isinstance(result, Scalar) and result.dtype in ("float32", "float64")):
        raise where.error(
            f"needs a float scalar result to differentiate; the signature returns {result}", "grad"
        )
    return tuple(names)


def load_config(
    path: str | Path, *, out_dir: str | None = None, target: str | Sequence[str] | None = None
) -> ProjectConfig:
    """Read ``path``; ``out_dir`` and ``target`` (from the command line, or ``[tool.aotbuild]``:
    one target or several) override the file."""
    path = Path(path)
    if path.is_dir():
        path = path / "graphs.toml"
    if not path.is_file():
        raise ConfigError(f"{display_path(path)}: no such file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{display_path(path)}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{display_path(path)}: not UTF-8 text: {exc}") from None

    for key in data:
        if key not in ("package", "graphs"):
            raise ConfigError(
                f"{display_path(path)}: unknown table or key {key!r} (expected [package] and [graphs.NAME])"
            )
    if "package" not in data:
        raise ConfigError(f"{display_path(path)}: missing required table [package]")
    package = _package(data["package"], path)
    if target is not None:
        names = (target,) if isinstance(target, str) else tuple(target)
        unknown = [name for name in names if name not in TARGETS]
        if unknown or not names:
            raise ConfigError(
                f"--target: unknown target {(unknown or [''])[0]!r} (expected one of: {', '.join(TARGETS)})"
            )
        package = replace(package, target=names[0], extra_targets=names[1:])
    if out_dir is not None:
        package = replace(package, out_dir=out_dir)

    graphs_table = data.get("graphs")
    if not isinstance(graphs_table, dict) or not graphs_table:
        raise ConfigError(f"{display_path(path)}: no graphs declared; add at least one [graphs.NAME] table")
    graphs = tuple(_graph(name, table, path) for name, table in graphs_table.items())
    _check_not_shadowing(package.name, graphs, path)
    return ProjectConfig(path=path.resolve(), package=package, graphs=graphs)


#: Modules every build or generated package imports, besides the standard library's.
_IMPORTED_BY_AOTBUILD = ("numpy", "scipy", "numba", "llvmlite", "aotbuild", "setuptools", "jinja2", "tomli")


def _check_not_shadowing(name: str, graphs: Sequence[GraphConfig], path: Path) -> None:
    """A package that would hide a module its user imports: NumPy, SciPy, the standard library,
    a module of the project (next to graphs.toml, or one a graph's function lives in)."""
    where = _Where(path, "package")
    if name in sys.stdlib_module_names or name in _IMPORTED_BY_AOTBUILD:
        shadowed = (
            f"the standard library's module {name}"
            if name in sys.stdlib_module_names
            else f"{name}, which aotbuild and the packages it builds import"
        )
        raise where.error(f"{name!r} would shadow {shadowed}; choose another name", "name")
    for graph in graphs:
        if graph.function.partition(":")[0].split(".")[0] == name:
            raise where.error(
                f"{name!r} would shadow the module {name} that [graphs.{graph.name}] function comes "
                "from; choose another name",
                "name",
            )
    from ..package.ownership import not_ours

    root = path.resolve().parent
    module, package = root / f"{name}.py", root / name
    if module.is_file() or ((package / "__init__.py").is_file() and not_ours(package, name) is not None):
        shadowed = display_path(module if module.is_file() else package)
        raise where.error(
            f"{name!r} would shadow the project's module {shadowed}; choose another name", "name"
        )
