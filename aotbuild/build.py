"""The whole pipeline: ``graphs.toml`` -> traced graphs -> Op modules -> objects -> package.

See DESIGN.md for the stages. Generated modules, objects and the C entry stay in
``<out_dir>/.aotbuild/<package>/`` for debugging; compiled objects are cached by content in
``$AOTBUILD_CACHE_DIR`` (default ``<out_dir>/.aotbuild/cache``).
"""

from __future__ import annotations

import os
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .codegen.plan import BuildPlan, make_plan
from .config import ProjectConfig, display_path, load_config
from .errors import CompileError
from .files import write_if_changed
from .progress import Progress
from .trace.driver import project_imports, trace_project

if TYPE_CHECKING:  # numba is imported by the compile stage only, when it runs
    from .compile.compiler import CompiledObject
    from .compile.target import Target


@dataclass(frozen=True)
class BuildResult:
    project: ProjectConfig
    package_dir: Path
    native: Path
    native_size: int
    modules: int
    compiled: int
    """Objects compiled by this build (the others came from the cache)."""

    seconds: float


def cache_dir(out_dir: Path) -> Path:
    configured = os.environ.get("AOTBUILD_CACHE_DIR")
    return Path(configured).expanduser().resolve() if configured else out_dir / ".aotbuild" / "cache"


def _write_modules(plan: BuildPlan, folder: Path) -> None:
    """Every generated module, readable, in ``folder``; modules of earlier builds are removed."""
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {module.filename for module in plan.modules}
    for module in plan.modules:
        write_if_changed(folder / module.filename, module.text.encode())
    for stale in folder.glob("aot_*.py"):
        if stale.name not in wanted:
            stale.unlink()


def _compile(
    plan: BuildPlan,
    project: ProjectConfig,
    target: Target,
    modules_dir: Path,
    cache_root: Path,
    progress: Progress,
) -> tuple[dict[str, CompiledObject], int]:
    """Every module's object, from the cache or compiled now; also how many were compiled."""
    from .compile.cache import ObjectCache
    from .compile.compiler import CompileRequest, compile_request

    cache = ObjectCache(cache_root)
    objects: dict[str, CompiledObject] = {}
    compiled = 0
    for module in plan.modules:
        request = CompileRequest(
            module.symbol,
            module.text,
            module.function,
            module.signature,
            module.flags,
            target,
            adapter=module.kind == "graph",
        )
        obj = cache.get(request)
        if obj is None:
            started = time.perf_counter()
            try:
                obj = compile_request(request)
            except CompileError as exc:
                raise _located(exc, module.title, modules_dir, project) from None
            cache.put(request, obj)
            compiled += 1
            progress.detail(f"{module.symbol}  {module.title}  ({time.perf_counter() - started:.2f} s)")
        objects[module.symbol] = obj
    return objects, compiled


def _located(exc: CompileError, title: str, modules_dir: Path, project: ProjectConfig) -> CompileError:
    """Point a numba failure at the generated module (or the kernel's source) and line."""
    path = modules_dir / exc.file if exc.file.startswith("aot_") else project.root / exc.file
    return CompileError(f"numba cannot compile {title}\n  at {display_path(path)}:{exc.line}\n{exc}")


def build(
    path: str | Path,
    *,
    out_dir: str | None = None,
    target: str | None = None,
    progress: Progress | None = None,
) -> BuildResult:
    """Build the package ``path`` (a graphs.toml) declares; returns what was built."""
    from .compile.target import resolve_target
    from .link.linalg import graphs_needing_linalg
    from .link.linker import link_extension
    from .package.loader import render_loader, render_stub
    from .package.manifest import build_manifest, manifest_text
    from .package.writer import discard, publish, staging_dir, write_text

    progress = progress or Progress()
    progress.begin("config")
    project = load_config(path, out_dir=out_dir, target=target)
    package = project.package
    progress.end(
        f"{display_path(project.path)}: package {package.name} {package.version}, "
        f"{len(project.graphs)} graph(s), target {package.target}"
    )
    out = project.out_dir
    objects_cache = cache_dir(out)
    work = out / ".aotbuild" / package.name
    modules_dir = work / "modules"

    with project_imports(project.root):
        progress.begin("trace")
        graphs = trace_project(project)
        nodes = {node.key for graph in graphs for node in graph.nodes()}
        progress.end(f"{len(graphs)} graph(s), {len(nodes)} distinct node(s)")

        progress.begin("codegen")
        plan = make_plan(graphs)
        _write_modules(plan, modules_dir)
        progress.end(f"{len(plan.modules)} module(s) in {display_path(modules_dir)}")

        progress.begin("compile")
        cpu = resolve_target(package.target)
        objects, compiled = _compile(plan, project, cpu, modules_dir, objects_cache, progress)
        progress.end(f"{compiled} object(s) compiled, {len(plan.modules) - compiled} from cache")
    linalg = graphs_needing_linalg(plan, objects)

    destination = out / package.name
    staged = staging_dir(destination)
    try:
        progress.begin("link")
        native = staged / f"_native{sysconfig.get_config_var('EXT_SUFFIX')}"
        linked = link_extension(package.name, plan, objects, linalg, work, native, objects_cache)
        progress.end(f"{native.name} ({linked.size / 1024:.0f} KB)")

        progress.begin("package")
        manifest = build_manifest(project, plan, objects, linalg, cpu, native.name)
        write_text(staged, "manifest.json", manifest_text(manifest))
        write_text(staged, "__init__.py", render_loader(project, plan, package.target, linalg))
        write_text(staged, "__init__.pyi", render_stub(project, plan, linalg))
        write_text(staged, "py.typed", "")
        publish(staged, destination)
    except BaseException:
        discard(staged)
        raise
    progress.end(f"{display_path(destination)} ready ({progress.total:.1f} s in all)")
    return BuildResult(
        project=project,
        package_dir=destination,
        native=destination / native.name,
        native_size=linked.size,
        modules=len(plan.modules),
        compiled=compiled,
        seconds=progress.total,
    )
