"""The whole pipeline: ``graphs.toml`` -> traced graphs -> Op modules -> objects -> package.

See DESIGN.md for the stages. Generated modules, objects and the C entry stay in
``<out_dir>/.aotbuild/<package>/`` for debugging. Compiled objects, C objects and linked shared
objects are cached by content (see :mod:`aotbuild.cache`), so a rebuild compiles only the Ops
whose keys changed and relinks only when the set of objects changed.

Two builds of one package serialise on a lock in that folder; builds of different packages,
sharing a cache, run side by side.
"""

from __future__ import annotations

import sysconfig
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import unchanged as inputs
from .cache.location import cache_dir, size_cap
from .cache.remote import RemoteStore, configured_url, read_only, save_stats
from .cache.store import ObjectCache
from .codegen import vecmath
from .codegen.plan import BuildPlan, make_plan
from .codegen.templates import keep_compiled_templates
from .config import ProjectConfig, display_path, load_config
from .errors import AotBuildWarning, CompileError, ConfigError
from .files import exclusive_lock, write_if_changed
from .graph import Graph
from .interrupts import raise_if_interrupted
from .package.ownership import check_replaceable, owned_folder, remove
from .progress import Progress
from .rewrite import rewrite
from .trace.driver import project_imports, trace_project
from .trace.used import called_graphs, load_used

if TYPE_CHECKING:  # numba is imported by the compile stage only, when it runs
    from .compile.compiler import CompiledObject
    from .compile.target import Target


@dataclass(frozen=True)
class OpTiming:
    symbol: str
    title: str
    seconds: float


@dataclass(frozen=True)
class BuildResult:
    project: ProjectConfig
    package_dir: Path
    native: Path
    native_size: int
    modules: int
    linked: bool
    """Whether the shared object was linked (False: the same objects were linked before)."""

    changed: bool
    """Whether the package was written (False: it already held exactly this build)."""

    timings: tuple[OpTiming, ...]
    """Each compiled Op and how long it took, slowest first."""

    seconds: float
    sources: dict[str, str] = field(default_factory=dict)
    """The Python files the build imported (see :mod:`aotbuild.unchanged`), by sha256."""

    @property
    def compiled(self) -> int:
        """Objects compiled by this build (the others came from the cache)."""
        return len(self.timings)


@dataclass(frozen=True)
class _Options:
    """What :func:`build` was asked to do beyond the project's own settings."""

    profile: bool = False
    fuse: bool = True
    regions: bool = True
    force: bool = False


def _report_regions(graph: Graph, progress: Progress) -> None:
    """A kernel's array statements traced inside it, and those left to numba (with why)."""
    from .graph import Kernel

    op = graph.outputs[0].op if graph.outputs else None
    if not isinstance(op, Kernel):
        return
    traced, notes = op.unit.traced_regions()
    if traced:
        progress.note(f"{graph.name}: array statements traced at {', '.join(traced)}")
    for note in notes:
        progress.note(f"{graph.name}: left to numba: {note}")


def _write_modules(plan: BuildPlan, folder: Path) -> None:
    """Every generated module, readable, in ``folder``; modules of earlier builds are removed."""
    wanted = {module.filename for module in plan.modules}
    for module in plan.modules:
        write_if_changed(folder / module.filename, module.text.encode())
    for stale in folder.glob("aot_*.py"):
        if stale.name not in wanted:
            remove(stale)


def _compile(
    plan: BuildPlan,
    project: ProjectConfig,
    target: Target,
    modules_dir: Path,
    cache: ObjectCache | None,
    progress: Progress,
    jobs: int,
    executor: str | None,
) -> tuple[dict[str, CompiledObject], list[OpTiming], int]:
    """Every compiled module's object (``plan.compiled``), from the cache or compiled now (in
    plan order, whoever compiled it); also the time each compiled one took, and how many came
    from the shared store."""
    from .compile.compiler import CompiledObject, CompileRequest
    from .compile.keys import op_key, toolchain_key
    from .compile.workers import local_workers, run_jobs, slowest_first

    toolchain = toolchain_key()
    modules = {module.symbol: module for module in plan.modules}
    found: dict[str, CompiledObject] = {}
    from_store: set[str] = set()  # found in the store a fleet shares, not the local cache
    missing: dict[str, CompileRequest] = {}
    keys: dict[str, str] = {}
    for module in plan.compiled:
        request = module.request(target, toolchain, [modules[symbol] for symbol in module.compiled_in])
        keys[module.symbol] = op_key(request)
        entry = cache.get(keys[module.symbol]) if cache is not None else None
        if entry is None:
            missing[module.symbol] = request
        else:
            if entry.remote:
                from_store.add(module.symbol)
            defined, needed = entry.record["defined"], entry.record["needed"]
            found[module.symbol] = CompiledObject(module.symbol, entry.data, tuple(defined), tuple(needed))
    progress.count_ops(
        len(plan.compiled), len(found), local_workers(len(missing), jobs, executor, target), len(from_store)
    )
    timings = []
    results = run_jobs(slowest_first(list(missing.values())), jobs=jobs, executor=executor)
    try:
        for result in results:
            module = modules[result.symbol]
            if result.error is not None:
                raise _located(result.error, module.title, modules_dir, project)
            assert result.compiled is not None
            if cache is not None:
                compiled = result.compiled
                record = {
                    "kind": "op",
                    "name": module.symbol,
                    "defined": compiled.defined,
                    "needed": compiled.needed,
                }
                cache.put(keys[module.symbol], compiled.data, record)
            found[module.symbol] = result.compiled
            timings.append(OpTiming(module.symbol, module.title, result.seconds))
            progress.op_compiled(f"{module.symbol}  {module.title}", result.seconds)
            raise_if_interrupted()
    finally:
        results.close()
    timings.sort(key=lambda timing: (-timing.seconds, timing.symbol))
    return {module.symbol: found[module.symbol] for module in plan.compiled}, timings, len(from_store)


def _located(exc: CompileError, title: str, modules_dir: Path, project: ProjectConfig) -> CompileError:
    """Point a numba failure at the generated module (or the kernel's source) and line. An error
    with no file (a worker refused the job; numba was set up wrongly) is not numba's: as it is."""
    if not exc.file:
        return exc
    path = modules_dir / exc.file if exc.file.startswith("aot_") else project.root / exc.file
    return CompileError(f"numba cannot compile {title}\n  at {display_path(path)}:{exc.line}\n{exc}")


def build(
    path: str | Path,
    *,
    out_dir: str | None = None,
    target: str | Sequence[str] | None = None,
    progress: Progress | None = None,
    jobs: int | None = None,
    executor: str | None = None,
    use_cache: bool = True,
    profile: bool = False,
    fuse: bool = True,
    force: bool = False,
    regions: bool = True,
    cache_url: str | None = None,
) -> BuildResult:
    """Build the package ``path`` (a graphs.toml) declares; returns what was built.

    ``jobs`` compile worker processes (default: one per CPU; 1 compiles in this process), or
    the cluster ``executor`` (``dask://HOST:PORT``). ``use_cache=False`` neither reads nor
    writes the object cache. ``profile`` compiles per-Op timers in (``pkg.profile()``);
    ``cache_url``: the store a fleet shares behind the local cache, if ``$AOTBUILD_CACHE_URL``
    names none (:mod:`aotbuild.cache.remote`).
    ``fuse=False`` keeps every elementwise Op its own (for debugging); ``regions=False`` leaves
    kernels' array statements to numba (:mod:`aotbuild.trace.regions`). ``force`` replaces
    ``<out_dir>/<name>`` even when aotbuild did not write what is there (see
    :mod:`aotbuild.package.ownership`); without it the build stops before doing anything.
    """
    from .compile.workers import default_jobs

    progress = progress or Progress()
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {jobs}")
    progress.begin("config")
    project = load_config(path, out_dir=out_dir, target=target)
    package = project.package
    progress.end(
        f"{display_path(project.path)}: package {package.name} {package.version}, "
        f"{len(project.graphs)} graph(s), target {package.target}"
    )
    destination = project.out_dir / package.name
    if check_replaceable(destination, package.name, force=force):
        message = f"{display_path(destination)} was not written by aotbuild; --force replaces it"
        warnings.warn(message, AotBuildWarning, stacklevel=2)
    project.out_dir.mkdir(parents=True, exist_ok=True)
    work = owned_folder(project.out_dir / ".aotbuild" / package.name, project.out_dir)
    for folder in ("modules", "objects", "c", "native"):
        owned_folder(work / folder, work)
    url = configured_url(cache_url) if use_cache else None
    store = RemoteStore(url, read_only=read_only()) if url else None
    cache = ObjectCache(cache_dir(), store) if use_cache else None
    keep_compiled_templates(cache.templates if cache is not None else None)
    cap = size_cap()
    options = _Options(profile=profile, fuse=fuse, regions=regions, force=force)
    described = inputs.describe(
        project,
        {"profile": profile, "fuse": fuse, "regions": regions},
        inputs.used_manifests(package.uses),
    )
    with exclusive_lock(work.parent / f"{package.name}.lock"):
        record = inputs.unchanged(work, described, destination) if use_cache else None
        if record is not None and _intact(destination, record):
            return _unchanged_result(project, destination, record, progress)
        result = _build_locked(project, work, cache, progress, jobs, executor, options)
        inputs.save(
            work,
            described,
            result.sources,
            destination,
            {"native": result.native.name, "native_size": result.native_size, "modules": result.modules},
        )
    if cache is not None:
        cache.evict(cap)
    if store is not None:
        save_stats(store.stats, cache_dir())
        stats = store.stats
        progress.note(
            f"shared cache {stats.url}: {stats.hits} read, {stats.misses} missing, {stats.written} written"
            + (" (read-only)" if stats.read_only else "")
            + (f"; left alone: {stats.unreachable}" if stats.unreachable else "")
        )
    return result


def _intact(destination: Path, record: dict) -> bool:
    """Whether the package the last build wrote still has its shared object, as written."""
    native = destination / record["result"]["native"]
    try:
        return native.stat().st_size == record["result"]["native_size"]
    except OSError:
        return False


def _unchanged_result(
    project: ProjectConfig, destination: Path, record: dict, progress: Progress
) -> BuildResult:
    """What a build whose inputs are the last build's returns: that build's package, untouched."""
    made = record["result"]
    progress.begin("package")
    progress.end(
        f"{display_path(destination)} unchanged: nothing it is built from changed since the last build"
    )
    return BuildResult(
        project=project,
        package_dir=destination,
        native=destination / made["native"],
        native_size=made["native_size"],
        modules=made["modules"],
        linked=False,
        changed=False,
        timings=(),
        seconds=0.0,
    )


def _build_locked(
    project: ProjectConfig,
    work: Path,
    cache: ObjectCache | None,
    progress: Progress,
    jobs: int,
    executor: str | None,
    options: _Options,
) -> BuildResult:
    from .compile import jit_target
    from .compile.target import resolve_target
    from .compile.workers import prepare

    package = project.package
    cpus = [resolve_target(name) for name in package.targets]
    # numba's JIT set to the (first) target before anything starts numba (the trace stage), so
    # that what this process compiles does not depend on this machine's CPU; and the server of
    # compile workers started for it at once, before this process imports the rest of the build
    # (numba among it: 0.2 s) and traces
    jit_target.claim(cpus[0])
    prepare(cpus[0], jobs, executor)

    from .link.linalg import graphs_needing_linalg
    from .link.linker import link_extension, native_module, start_runtime
    from .package.licences import NUMBA_LICENCE_FILE, numba_licence
    from .package.loader import (
        render_exceptions,
        render_loader,
        render_numba_interop,
        render_profile,
        render_stub,
    )
    from .package.manifest import build_manifest, manifest_text
    from .package.ownership import MODULES_FOLDER
    from .package.writer import (
        discard,
        publish,
        remove_leftovers,
        same_tree,
        staging_dir,
        write_bytecode,
        write_text,
    )

    modules_dir = work / "modules"
    with project_imports(project.root):
        progress.begin("trace")
        used = load_used(project)
        graphs = rewrite(trace_project(project, used, regions=options.regions), fuse=options.fuse)
        sources = inputs.imported_sources()  # the project's modules are imported only in here
        nodes = {node.key for graph in graphs for node in graph.nodes()}
        progress.end(f"{len(graphs)} graph(s), {len(nodes)} distinct node(s)")
        for config in (g.config for g in graphs if g.config.auto.startswith("kernel")):
            progress.note(f'{config.name}: mode "auto" compiles it as a {config.auto}')
        for graph in graphs:
            _report_regions(graph, progress)

        # Once the project traced (its errors come first, with no compiler left running), the
        # runtime compiles while the Ops are generated and compiled.
        runtime = start_runtime(cache, work)
        progress.begin("codegen")
        plan = make_plan(graphs, profile=options.profile)
        _write_modules(plan, modules_dir)
        progress.end(f"{len(plan.modules)} module(s) in {display_path(modules_dir)}")

        objects_for: dict[str, dict[str, CompiledObject]] = {}
        timings: list[OpTiming] = []
        for cpu in cpus:
            progress.begin("compile")
            objects, compiled_now, shared = _compile(
                plan, project, cpu, modules_dir, cache, progress, jobs, executor
            )
            objects_for[cpu.name] = objects
            timings += compiled_now
            for_target = f" for {cpu.name}" if len(cpus) > 1 else ""
            progress.end(
                f"{len(compiled_now)} object(s) compiled, {len(plan.compiled) - len(compiled_now)} "
                f"from cache{f' ({shared} from the shared cache)' if shared else ''}{for_target}"
            )
    timings.sort(key=lambda timing: (-timing.seconds, timing.symbol))
    objects = objects_for[cpus[0].name]
    linalg = graphs_needing_linalg(plan, objects)
    calls = called_graphs(used, {name for obj in objects.values() for name in obj.needed})

    destination = project.out_dir / package.name
    remove_leftovers(work)
    staged = staging_dir(work)
    try:
        natives: list[tuple[Target, str]] = []
        reused = True
        for index, cpu in enumerate(cpus):
            progress.begin("link")
            suffix = sysconfig.get_config_var("EXT_SUFFIX")
            native = staged / f"{native_module(cpu.name, first=index == 0)}{suffix}"
            linked = link_extension(
                package.name, plan, objects_for[cpu.name], linalg, work, native, cache, calls, runtime
            )
            how = "the same objects were linked before: taken from the cache" if linked.reused else "linked"
            progress.end(f"{native.name} ({linked.size / 1024:.0f} KB; {how})")
            natives.append((cpu, native.name))
            reused = reused and linked.reused

        progress.begin("package")
        manifest = build_manifest(project, plan, objects, linalg, natives, calls)
        write_text(staged, "manifest.json", manifest_text(manifest))
        write_text(staged, "__init__.py", render_loader(project, plan, natives, linalg, calls))
        write_text(staged, "__init__.pyi", render_stub(project, plan, linalg))
        write_text(staged, "_exceptions.py", render_exceptions(project))
        write_text(staged, "_numba.py", render_numba_interop(project, plan))
        if options.profile:
            write_text(staged, "_profile.py", render_profile(project))
        write_bytecode(staged, package.name)
        write_text(staged, "py.typed", "")
        write_text(staged, NUMBA_LICENCE_FILE, numba_licence())
        if any(vecmath.LICENCE_FILE in module.text for module in plan.modules):
            write_text(staged, vecmath.LICENCE_FILE, vecmath.licence_text())  # SLEEF's terms
        for module in plan.modules:  # what `aotbuild inspect` shows; never imported
            write_text(staged / MODULES_FOLDER, module.filename, module.text)
        changed = not same_tree(staged, destination)
        raise_if_interrupted()  # the last moment the old package can still be kept
        check_replaceable(destination, package.name, force=options.force)  # it may have appeared since
        if changed:
            publish(staged, destination)
        else:
            discard(staged)
    except BaseException:
        discard(staged)
        raise
    state = "ready" if changed else "unchanged"
    progress.end(f"{display_path(destination)} {state} ({progress.total:.1f} s in all)")
    return BuildResult(
        project=project,
        package_dir=destination,
        native=destination / natives[0][1],
        native_size=(destination / natives[0][1]).stat().st_size,
        modules=len(plan.modules),
        linked=not reused,
        changed=changed,
        timings=tuple(timings),
        seconds=progress.total,
        sources=sources,
    )
