"""Stage 7: link the Op objects, numba's runtime and the C entry into one extension module."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..cache.store import ObjectCache
from ..codegen.plan import BuildPlan
from ..codegen.templates import render
from ..compile.compiler import CompiledObject
from ..compile.keys import key_of, toolchain_key
from ..compile.workers import default_jobs
from ..errors import LinkError
from ..files import atomic_write, public_mode, write_if_changed
from ..package.ownership import remove
from ..trace.used import UsedGraph
from .entry import render_entry
from .linalg import getters
from .precompiled import precompile, uses_headers
from .toolchain import Toolchain, numba_source_dir

#: Undefined symbols a finished extension may have: CPython's API and the C/C++ runtime.
_ALLOWED_UNDEFINED = re.compile(r"^(_?Py|PyExc_|_Py)|@(GLIBC|GLIBCXX|CXXABI|GCC)_")


@dataclass(frozen=True)
class LinkResult:
    path: Path
    size: int
    reused: bool
    """The same objects were linked before: the shared object came from the cache."""


def _native_key(toolchain: Toolchain, name: str, text: bytes, extra: list[str], headers: bytes = b"") -> str:
    """The cache key of C/C++ source ``text`` (named ``name``) compiled by this compiler with these
    flags, including the generated ``headers`` it reads."""
    return key_of(
        {
            "kind": "native object",
            "compiler": toolchain.fingerprint,
            "toolchain": toolchain_key(),
            "name": name,
            "flags": " ".join(extra),
            "source": hashlib.sha256(text).hexdigest(),
            **({"headers": hashlib.sha256(headers).hexdigest()} if headers else {}),
        }
    )


def _compiled_object(
    toolchain: Toolchain, name: str, text: bytes, extra: list[str], headers: Path | None = None
) -> bytes:
    """The object of C/C++ source ``text``, compiled now (``headers``: the folder of the
    generated headers it includes)."""
    with tempfile.TemporaryDirectory(prefix="aotbuild-native-") as work:
        source = Path(work) / name
        source.write_bytes(text)
        prefix_maps = {numba_source_dir(): "numba", Path(work).resolve(): "."}
        if headers is not None:
            prefix_maps[headers.resolve()] = "."
        compiled = toolchain.compile(
            source, Path(work), extra=extra, prefix_maps=prefix_maps, headers=headers
        )
        return compiled.read_bytes()


def _placed(work_dir: Path, name: str, data: bytes) -> Path:
    """``data``, the object of source ``name``, in ``work_dir`` to link."""
    path = work_dir / "native" / f"{Path(name).stem}.o"
    write_if_changed(path, data)
    return path


def _runtime_sources() -> dict[str, bytes]:
    """numba's runtime (helpers and allocator), and the thread pool parallel code runs on."""
    return {
        "runtime.c": render("native/runtime.c.j2", getters=list(getters())).encode(),
        "threads.c": render("native/threads.c.j2").encode(),
        "nrt.cpp": (numba_source_dir() / "core" / "runtime" / "nrt.cpp").read_bytes(),
    }


def start_runtime(cache: ObjectCache | None, work_dir: Path) -> Future[list[Path]]:
    """Compile the runtime's objects (the same in every package) in the background, one C
    compiler at a time, while the build generates and compiles its Ops; ``link_extension`` waits
    for them. Cold, they took ~2 s of the link stage (numba's helpers in runtime.c most), on one
    core while code generation and the compile workers' start leave the other idle; cached, they
    are copies."""
    toolchain = Toolchain.create()
    compiler = ThreadPoolExecutor(1, thread_name_prefix="aotbuild-runtime")
    try:
        sources = _runtime_sources()

        def compile_all() -> list[Path]:
            quiet = ["-w"]  # numba's sources, not ours
            return _native_objects(toolchain, cache, sources, work_dir, extra=quiet, jobs=1)

        return compiler.submit(compile_all)
    finally:
        compiler.shutdown(wait=False)  # the thread ends with its task


def _write_sources(folder: Path, sources: Mapping[str, bytes]) -> None:
    """The C sources of this build, for reading; sources of earlier builds are removed."""
    for name, text in sources.items():
        write_if_changed(folder / name, text)
    for stale in folder.glob("*.c"):
        if stale.name not in sources:
            remove(stale)


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


def native_module(target: str, first: bool) -> str:
    """The extension module of a package's shared object for ``target``: ``_native`` for the
    first (or only) target, ``_native_<target>`` for the others (``_native_x86_64_v3``)."""
    return "_native" if first else "_native_" + re.sub(r"[^0-9A-Za-z]", "_", target)


def link_extension(
    package: str,
    plan: BuildPlan,
    objects: Mapping[str, CompiledObject],
    linalg_graphs: Collection[str],
    work_dir: Path,
    output: Path,
    cache: ObjectCache | None,
    uses: Collection[UsedGraph] = (),
    runtime: Future[list[Path]] | None = None,
) -> LinkResult:
    """Write and compile the C entry, then link everything into ``output`` — or, when exactly
    these objects were linked before by this compiler, take that shared object from the cache.
    ``uses``: other packages' graphs the objects call, left undefined (resolved at import);
    ``runtime``: the runtime's objects from :func:`start_runtime` (None: compiled here)."""
    toolchain = Toolchain.create()
    object_dir = work_dir / "objects"
    paths = []
    for module in plan.compiled:
        path = object_dir / f"{module.symbol}.o"
        write_if_changed(path, objects[module.symbol].data)
        paths.append(path)
    environments = [
        name
        for m in plan.compiled
        for name in objects[m.symbol].defined
        if name == f"{m.symbol}.env" or name.startswith(f"{m.symbol}.env.")
    ]
    extension = output.name.partition(".")[0]  # the module's name: its file's, before the suffix
    rendered = render_entry(package, plan, linalg_graphs, environments, extension)
    sources = {name: text.encode() for name, text in rendered.items()}
    _write_sources(work_dir / "c", sources)  # to read; compiled from the cache
    runtime = runtime or start_runtime(cache, work_dir)
    inputs = [*_native_objects(toolchain, cache, sources, work_dir), *runtime.result(), *paths]
    key = key_of(
        {
            "kind": "shared object",
            "compiler": toolchain.fingerprint,
            "name": output.name,
            "inputs": " ".join(hashlib.sha256(path.read_bytes()).hexdigest() for path in inputs),
        }
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    linked = cache.get(key) if cache is not None else None
    if linked is not None:
        atomic_write(output, linked.data)
        return LinkResult(output, len(linked.data), reused=True)
    toolchain.link(inputs, output)
    output.chmod(public_mode())  # as when it comes from the cache: the same mode, the same wheel
    _check_undefined(output, objects, {symbol for graph in uses for symbol in graph.symbols})
    if cache is not None:
        cache.put(
            key, output.read_bytes(), {"kind": "shared object", "name": output.name, "package": package}
        )
    return LinkResult(output, output.stat().st_size, reused=False)


def _native_objects(
    toolchain: Toolchain,
    cache: ObjectCache | None,
    sources: Mapping[str, bytes],
    work_dir: Path,
    extra: Sequence[str] = (),
    jobs: int | None = None,
) -> list[Path]:
    """The objects of C/C++ ``sources`` compiled with ``extra`` flags, from the cache or compiled
    now, ``jobs`` at once (default: one per CPU; C compilers are processes: no GIL). The generated
    headers among them (``.h``) are written to ``native/include``; when
    :data:`~.precompiled.PRECOMPILED_FROM` or more sources including one are compiled, it is
    first precompiled (:mod:`.precompiled`)."""
    flags = list(extra)
    headers_dir = work_dir / "native" / "include"
    headers = {name: text for name, text in sources.items() if name.endswith(".h")}
    for name, text in headers.items():
        write_if_changed(headers_dir / name, text)
    read = b"".join(headers[name] for name in sorted(headers))
    keys = {
        name: _native_key(toolchain, name, text, flags, read if uses_headers(text, headers) else b"")
        for name, text in sources.items()
        if name not in headers
    }
    found = {name: cache.get(key) if cache is not None else None for name, key in keys.items()}
    # units reading no generated header first: they compile while the header is precompiled
    missing = sorted(
        (name for name, entry in found.items() if entry is None),
        key=lambda name: uses_headers(sources[name], headers),
    )
    with ThreadPoolExecutor(jobs or default_jobs()) as compilers:
        precompiled = precompile(toolchain, compilers, headers_dir, headers, [sources[m] for m in missing])

        def compile_one(name: str) -> bytes:
            if uses_headers(sources[name], headers):
                precompiled.result()  # or none: GCC reads the headers
                data = _compiled_object(toolchain, name, sources[name], flags, headers_dir)
            else:
                data = _compiled_object(toolchain, name, sources[name], flags)
            if cache is not None:
                cache.put(keys[name], data, {"kind": "native object", "name": name})
            return data

        compiled = dict(zip(missing, compilers.map(compile_one, missing), strict=True))
    return [
        _placed(work_dir, name, compiled[name] if entry is None else entry.data)
        for name, entry in found.items()
    ]


def _check_undefined(output: Path, objects: Mapping[str, CompiledObject], used: Collection[str]) -> None:
    names = undefined_symbols(output)
    if names is None:
        return
    unexpected = [name for name in names if not _ALLOWED_UNDEFINED.search(name) and name not in used]
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
