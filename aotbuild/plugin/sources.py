"""What an sdist must carry to build the package again: graphs.toml, the modules its graphs name,
and the project's modules those import (found by reading their imports, without running them)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


def project_sources(graphs: Path) -> list[str]:
    """graphs.toml and the project's Python files it needs, relative to the working directory
    (the project's root, where setuptools runs), sorted."""
    root = graphs.parent
    table = tomllib.loads(graphs.read_text(encoding="utf-8")).get("graphs", {})
    named = {
        str(entry["function"]).split(":", 1)[0]
        for entry in table.values()
        if isinstance(entry, dict) and "function" in entry
    }
    found: set[Path] = set()
    pending = [module for name in sorted(named) if (module := _module_file(root, name)) is not None]
    while pending:
        path = pending.pop()
        if path in found:
            continue
        found.add(path)
        pending.extend(_imported_files(root, path))
    cwd = Path.cwd().resolve()
    files = {graphs.resolve(), *found}
    return sorted(_relative(path, cwd) for path in files)


def _relative(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def _module_file(root: Path, dotted: str) -> Path | None:
    base = root.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _imported_files(root: Path, path: Path) -> list[Path]:
    """The project's modules ``path`` imports (absolute imports from the project's root, and
    relative ones), and the ``__init__`` of packages on the way."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return []
    names: list[str] = []
    package = ".".join(path.relative_to(root.resolve()).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join([*parts, node.module] if node.module else parts)
            else:
                base = node.module or ""
            names.append(base)
            names += [f"{base}.{alias.name}" if base else alias.name for alias in node.names]
    files = []
    for name in names:
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            module = _module_file(root, ".".join(parts[:depth]))
            if module is not None:
                files.append(module)
    return files
