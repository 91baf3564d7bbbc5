"""What ``build_aot`` does: build the package, check the wheel's requirements, place the files."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from .commands import AotBuildError


def build_for_wheel(
    graphs: Path,
    dist: Any,
    *,
    wheel_dir: Path | None,
    work_dir: Path,
    target: str | tuple[str, ...] | None,
    jobs: int | None,
    cache_url: str | None = None,
) -> list[Path]:
    """Build the package of ``graphs`` for a wheel (into ``wheel_dir``, its files returned) or,
    with ``wheel_dir=None``, for an editable install: in place, where graphs.toml puts it."""
    from ..build import build
    from ..errors import AotBuildError as BuildFailed
    from ..progress import Progress

    out_dir = None if wheel_dir is None else str(work_dir)  # None: graphs.toml's out_dir
    try:
        result = build(
            graphs, out_dir=out_dir, target=target, jobs=jobs, progress=Progress(), cache_url=cache_url
        )
    except BuildFailed as exc:
        raise AotBuildError(f"aotbuild: error: {exc}") from None
    manifest = json.loads((result.package_dir / "manifest.json").read_text())
    check_requirements(dist, manifest, graphs)
    if wheel_dir is None:
        _map_for_editable_install(dist, result.package_dir, graphs)
        return []
    return copy_package(result.package_dir, wheel_dir)


def _requirement_names(dist: Any) -> set[str]:
    names = set()
    for requirement in dist.install_requires or ():
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", str(requirement))
        if match:
            names.add(re.sub(r"[-_.]+", "-", match.group(1)).lower())
    return names


def check_requirements(dist: Any, manifest: dict[str, Any], graphs: Path) -> None:
    """The wheel runs on NumPy, and on SciPy's BLAS/LAPACK if a graph uses them: the project's
    ``[project] dependencies`` must say so (a plugin cannot add to a static dependency list)."""
    listed = _requirement_names(dist)
    numpy = manifest["toolchain"]["numpy"]
    if "numpy" not in listed:
        raise AotBuildError(
            f'aotbuild: error: the package needs NumPy at run time: add "numpy>={numpy.rsplit(".", 1)[0]}" '
            "to [project] dependencies in pyproject.toml (it was built against NumPy "
            f"{numpy})"
        )
    linalg = manifest["linalg"]["graphs"]
    if linalg and "scipy" not in listed:
        raise AotBuildError(
            f"aotbuild: error: graph(s) {', '.join(linalg)} of {graphs.name} use BLAS/LAPACK, which "
            'SciPy provides at run time: add "scipy" to [project] dependencies in pyproject.toml'
        )
    for module in manifest.get("cython", {}).get("modules", []):
        providers = _distributions_of(module)
        if providers and not providers & listed:
            users = [
                g
                for g, exports in manifest["cython"]["graphs"].items()
                if any(e.startswith(module + ".") for e in exports)
            ]
            raise AotBuildError(
                f"aotbuild: error: graph(s) {', '.join(users)} of {graphs.name} call functions {module} "
                f'exports, found at run time: add "{sorted(providers)[0]}" to [project] dependencies '
                "in pyproject.toml"
            )

    for name, record in manifest.get("uses", {}).items():
        providers = _distributions_of(name) or {re.sub(r"[-_.]+", "-", name).lower()}
        if not providers & listed:
            called = ", ".join(f"{name}.{graph}" for graph in record["graphs"]) or name
            raise AotBuildError(
                f"aotbuild: error: {graphs.name} uses the aotbuild package {name} (calling {called}), "
                f'found at run time: add "{sorted(providers)[0]}" to [project] dependencies in '
                "pyproject.toml"
            )


def _distributions_of(module: str) -> set[str]:
    """The installed distributions providing ``module``'s top-level package, normalised."""
    from importlib.metadata import packages_distributions

    names = packages_distributions().get(module.partition(".")[0], [])
    return {re.sub(r"[-_.]+", "-", name).lower() for name in names}


def _map_for_editable_install(dist: Any, package_dir: Path, graphs: Path) -> None:
    """setuptools' editable finder maps the distribution's packages to their folders: adding the
    built package makes ``import <name>`` find it where it was built."""
    root = Path.cwd().resolve()
    folder = package_dir.resolve()
    try:
        relative = folder.relative_to(root).as_posix()
    except ValueError:
        relative = str(folder)
    name = package_dir.name
    dist.packages = [*(dist.packages or []), name] if name not in (dist.packages or []) else dist.packages
    dist.package_dir = {**(dist.package_dir or {}), name: relative}
    shown = graphs.resolve().relative_to(root) if graphs.resolve().is_relative_to(root) else graphs
    print(
        f"aotbuild: editable install: {name} is built in {relative}; after editing the graphs or "
        f"their modules, rebuild it with `aotbuild compile {shown}`",
        file=sys.stderr,
    )


def copy_package(package_dir: Path, build_lib: Path) -> list[Path]:
    """The built package copied into ``build_lib`` (the wheel's files); the files copied. An
    earlier copy is replaced; anything else of that name there stops the build. Bytecode stays
    out: pip compiles it for the Python it installs into."""
    from ..package.ownership import not_ours, remove

    destination = build_lib / package_dir.name
    problem = not_ours(destination, package_dir.name)
    if problem is not None:
        raise AotBuildError(
            f"aotbuild: error: {destination} {problem}; it would be lost in the wheel. Does the "
            f"project ship a package named {package_dir.name} too? Rename one of them"
        )
    remove(destination)
    shutil.copytree(package_dir, destination, ignore=shutil.ignore_patterns("__pycache__"))
    return sorted(path for path in destination.rglob("*") if path.is_file())
