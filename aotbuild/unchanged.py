"""A rebuild whose inputs are those of the last build does nothing, at the cost of reading them.

Tracing alone takes a second or more (numba imported and typing each kernel, SciPy imported for
its special functions), and a rebuild that changed nothing would trace, generate, look every
object up and find the package as it was. So each build records what it was made from in
``<out_dir>/.aotbuild/<package>/inputs.json``, and the next build compares:

- graphs.toml's bytes, and the options of the build (targets, ``--no-regions``, ``--profile``,
  fusion, the output folder);
- every Python file the build imported that is not part of the toolchain (the project's modules,
  helpers elsewhere, other packages' sources), by sha256 of its bytes; the manifests of the
  packages ``[package] uses``;
- aotbuild's, numba's, llvmlite's, NumPy's, SciPy's and Python's versions (and aotbuild's own
  files, by size and time: a checkout edited in place), every ``NUMBA_*`` setting; for
  ``target = "host"``, the CPU (its model name and flags);
- the package it wrote, by its manifest's sha256 (a package edited or removed since is rebuilt).

Any difference, a missing or unreadable record: the build runs as always. The record is written
after a successful build only.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from .compile.jit_target import VARIABLES as JIT_CPU_VARIABLES

#: Distributions whose versions decide what a build makes (their files are not hashed).
TOOLCHAIN = ("aotbuild", "numba", "llvmlite", "numpy", "scipy")

RECORD = "inputs.json"


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return ""


def _cpu() -> str:
    """The host CPU as the kernel describes it (model and flags), for ``target = "host"``."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor() or platform.machine()
    wanted = [line for line in lines if line.startswith(("model name", "flags"))][:2]
    return hashlib.sha256("\n".join(wanted).encode()).hexdigest()


def _toolchain_paths() -> list[str]:
    """Folders whose files are the toolchain's (their versions stand for them)."""
    import sysconfig

    paths = {sysconfig.get_paths()[name] for name in ("stdlib", "platstdlib")}
    for name in TOOLCHAIN:
        try:
            files = metadata.distribution(name).locate_file("")
            paths.add(str(Path(str(files)) / name))
        except metadata.PackageNotFoundError:
            continue
    paths.add(str(Path(__file__).resolve().parent))  # aotbuild itself, however installed
    return sorted(paths)


def imported_sources() -> dict[str, str]:
    """The Python files of the modules imported now (while the project's are: right after
    tracing) that are not the toolchain's or the standard library's, by sha256. More than the
    build read (a test session's own modules, say) only makes the check stricter."""
    skip = tuple(_toolchain_paths())
    sources: dict[str, str] = {}
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if not isinstance(filename, str) or not filename.endswith(".py"):
            continue
        path = str(Path(filename).resolve())
        if path.startswith(skip):
            continue
        digest = _sha256(Path(path))
        if digest is not None:
            sources[path] = digest
    return dict(sorted(sources.items()))


def _aotbuild_files() -> str:
    """aotbuild's own code and templates, by name, size and modification time: an aotbuild
    edited in place (a checkout installed for development) builds again."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for folder in (root, root.parent / "templates", root / "templates"):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".py", ".j2", ".c", ".h") and path.is_file():
                stat = path.stat()
                digest.update(f"{path.relative_to(root.parent)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def describe(project: Any, options: dict[str, Any], uses: dict[str, str]) -> dict[str, Any]:
    """Everything but the imported sources: what decides the build, cheaply read."""
    targets = list(project.package.targets)
    return {
        "aotbuild_files": _aotbuild_files(),
        "graphs_toml": _sha256(project.path),
        "options": {**options, "out_dir": str(project.out_dir), "targets": targets},
        "versions": {name: _version(name) for name in TOOLCHAIN},
        "python": platform.python_version(),
        # not numba's JIT CPU: a build sets it to the target (aotbuild/compile/jit_target.py)
        "numba_settings": {
            k: v
            for k, v in sorted(os.environ.items())
            if k.startswith("NUMBA_") and k not in JIT_CPU_VARIABLES
        },
        "cpu": _cpu() if "host" in targets else "",
        "uses": uses,
    }


def used_manifests(names: Iterable[str]) -> dict[str, str]:
    """The sha256 of each used package's manifest.json, found without importing it."""
    import importlib.util

    found = {}
    for name in names:
        spec = importlib.util.find_spec(name)
        folder = Path(spec.origin).parent if spec is not None and spec.origin else None
        found[name] = (_sha256(folder / "manifest.json") if folder else None) or ""
    return found


def unchanged(work: Path, described: dict[str, Any], package_dir: Path) -> dict[str, Any] | None:
    """The last build's record if nothing it was made from has changed since, else None."""
    try:
        record = json.loads((work / RECORD).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("described") != described:
        return None
    if record.get("manifest") != _sha256(package_dir / "manifest.json"):
        return None
    sources = record.get("sources")
    if not isinstance(sources, dict):
        return None
    for path, digest in sources.items():
        if _sha256(Path(path)) != digest:
            return None
    return record


def save(
    work: Path, described: dict[str, Any], sources: dict[str, str], package_dir: Path, result: dict[str, Any]
) -> None:
    """Record what the build that just succeeded was made from (and what it made)."""
    from .files import atomic_write

    record = {
        "described": described,
        "sources": sources,
        "manifest": _sha256(package_dir / "manifest.json"),
        "result": result,
    }
    atomic_write(work / RECORD, json.dumps(record, indent=1, sort_keys=True).encode())
