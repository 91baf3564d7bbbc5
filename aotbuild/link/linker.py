"""Stage 7: link the Op objects, numba's runtime and the C entry into one extension module."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..codegen.plan import BuildPlan
from ..codegen.templates import render
from ..compile.cache import toolchain_key
from ..compile.compiler import CompiledObject
from ..errors import LinkError
from ..files import atomic_write, write_if_changed
from .entry import render_entry
from .linalg import getters
from .toolchain import Toolchain, numba_source_dir

#: Undefined symbols a finished extension may have: CPython's API and the C/C++ runtime.
_ALLOWED_UNDEFINED = re.compile(r"^(_?Py|PyExc_|_Py)|@(GLIBC|GLIBCXX|CXXABI|GCC)_")


@dataclass(frozen=True)
class LinkResult:
    path: Path
    size: int


def _compiled(toolchain: Toolchain, cache_dir: Path, name: str, text: bytes, extra: list[str]) -> Path:
    """The object of C/C++ source ``text`` (named ``name``), compiled once per compiler and
    toolchain versions: the cache's key is everything the object depends on."""
    digest = hashlib.sha256()
    for part in (toolchain.fingerprint, toolchain_key(), name, *extra):
        digest.update(part.encode() + b"\0")
    digest.update(text)
    cached = cache_dir / "native" / f"{Path(name).stem}-{digest.hexdigest()[:24]}.o"
    if not cached.exists():
        with tempfile.TemporaryDirectory(prefix="aotbuild-native-") as work:
            source = Path(work) / name
            source.write_bytes(text)
            prefix_maps = {numba_source_dir(): "numba", Path(work).resolve(): "."}
            built = toolchain.compile(source, Path(work), extra=extra, prefix_maps=prefix_maps)
            atomic_write(cached, built.read_bytes())
    return cached


def runtime_objects(toolchain: Toolchain, cache_dir: Path) -> list[Path]:
    """numba's runtime (helpers and allocator)."""
    runtime = render("native/runtime.c.j2", getters=list(getters())).encode()
    nrt = (numba_source_dir() / "core" / "runtime" / "nrt.cpp").read_bytes()
    return [
        _compiled(toolchain, cache_dir, name, text, ["-w"])
        for name, text in (("runtime.c", runtime), ("nrt.cpp", nrt))
    ]


def undefined_symbols(path: Path) -> list[str] | None:
    """Undefined dynamic symbols of a shared object (None when ``nm`` is not available)."""
    nm = shutil.which("nm")
    if nm is None:
        return None
    output = subprocess.run(
        [nm, "-D", "--undefined-only", str(path)], capture_output=True, text=True, check=False
    )
    names = []
    for line in output.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[-2] in ("U",):
            names.append(parts[-1])
    return names


def link_extension(
    package: str,
    plan: BuildPlan,
    objects: Mapping[str, CompiledObject],
    linalg_graphs: Collection[str],
    work_dir: Path,
    output: Path,
    cache_dir: Path,
) -> LinkResult:
    """Write and compile the C entry, then link everything into ``output``."""
    toolchain = Toolchain.create()
    object_dir = work_dir / "objects"
    paths = []
    for module in plan.modules:
        path = object_dir / f"{module.symbol}.o"
        data = objects[module.symbol].data
        write_if_changed(path, data)
        paths.append(path)
    entry = render_entry(package, plan, linalg_graphs).encode()
    write_if_changed(work_dir / "c" / "_native.c", entry)  # to read; compiled from the cache
    entry_object = _compiled(toolchain, cache_dir, "_native.c", entry, [])
    output.parent.mkdir(parents=True, exist_ok=True)
    toolchain.link([entry_object, *runtime_objects(toolchain, cache_dir), *paths], output)
    _check_undefined(output, objects)
    return LinkResult(output, output.stat().st_size)


def _check_undefined(output: Path, objects: Mapping[str, CompiledObject]) -> None:
    names = undefined_symbols(output)
    if names is None:
        return
    unexpected = [name for name in names if not _ALLOWED_UNDEFINED.search(name)]
    if unexpected:
        needed_by = {
            name: sorted(symbol for symbol, obj in objects.items() if name in obj.needed)
            for name in unexpected
        }
        details = "; ".join(
            f"{name} (needed by {', '.join(users) or 'the runtime'})" for name, users in needed_by.items()
        )
        raise LinkError(
            f"{output.name} has undefined symbols that a user's machine would not provide: {details}"
        )
