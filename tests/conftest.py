"""Shared fixtures: one object cache per session, each fixture project built at most once.

Compiling is the slow part of the suite, so projects put many graphs in one graphs.toml and
every build in the session shares ``$AOTBUILD_CACHE_DIR``: an Op that two projects use is
compiled once.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

# numba's JIT set to the default target (generic) before anything in the suite starts numba, as a
# build sets its own process's (aotbuild/compile/jit_target.py): the suite's builds then compile
# their few Ops in its process, which stays warm across builds, rather than in workers (a test
# module jitting at import would else set it to this machine's CPU first). Tests that need the
# JIT of this machine (the vector math's FMA path) start processes of their own.
os.environ.setdefault("NUMBA_CPU_NAME", "generic")

from aotbuild.build import BuildResult, build  # noqa: E402
from aotbuild.files import exclusive_lock  # noqa: E402
from aotbuild.progress import Progress  # noqa: E402
from aotbuild.types import DTYPE_SPELLING  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PROJECTS = Path(__file__).resolve().parent / "projects"

_built: dict[str, BuildResult] = {}


@pytest.fixture(scope="session", autouse=True)
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every build in the session (and subprocesses it starts) shares one object cache; so do
    pytest-xdist's workers (their temporary folders share a parent), as builders of a fleet do."""
    configured = os.environ.get("AOTBUILD_CACHE_DIR")
    if configured:
        path = Path(configured)
    elif os.environ.get("PYTEST_XDIST_WORKER"):
        path = tmp_path_factory.getbasetemp().parent / "object-cache"
        path.mkdir(exist_ok=True)
    else:
        path = tmp_path_factory.mktemp("object-cache")
    os.environ["AOTBUILD_CACHE_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def build_project(tmp_path_factory: pytest.TempPathFactory):
    """``build_project(graphs_toml)`` -> BuildResult, built once per session per file.

    Packages go to a temporary folder, unless ``in_place`` (the project's own out_dir).
    """

    def _build(graphs_toml: Path, in_place: bool = False) -> BuildResult:
        key = str(graphs_toml.resolve())
        if key not in _built:
            out = None if in_place else str(tmp_path_factory.mktemp(graphs_toml.parent.name + "-build"))
            with _one_builder(tmp_path_factory, graphs_toml):
                _built[key] = build(graphs_toml, out_dir=out, progress=Progress(quiet=True))
        return _built[key]

    return _build


@contextmanager
def _one_builder(tmp_path_factory: pytest.TempPathFactory, graphs_toml: Path) -> Iterator[None]:
    """Held while this process builds ``graphs_toml``: pytest-xdist's other worker, wanting the
    same project (the same graphs.toml text, wherever it was copied to), waits and then builds it
    from the object cache, rather than compiling every Op a second time beside this one."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    digest = hashlib.sha256(graphs_toml.read_bytes()).hexdigest()[:16]
    with exclusive_lock(tmp_path_factory.getbasetemp().parent / "project-locks" / f"{digest}.lock"):
        yield


@pytest.fixture(scope="session")
def example_build(build_project, tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """The example project, copied as shipped and built."""
    import shutil

    folder = tmp_path_factory.mktemp("example_project")
    shutil.copytree(
        REPO / "example_project", folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("build")
    )
    return build_project(folder / "graphs.toml", in_place=True)


@pytest.fixture(scope="session")
def kernels_build(build_project) -> BuildResult:
    return build_project(PROJECTS / "kernels" / "graphs.toml")


@pytest.fixture(scope="session")
def runtime_build(build_project) -> BuildResult:
    """Exceptions, outputs, threads and memory of a generated package (tests/projects/runtime)."""
    return build_project(PROJECTS / "runtime" / "graphs.toml")


def reached(manifest: dict, *entries: str) -> set[str]:
    """The compiled Ops the entries call, directly or not, and the entries themselves."""
    seen: set[str] = set()
    stack = list(entries)
    while stack:
        symbol = stack.pop()
        if symbol not in seen:
            seen.add(symbol)
            stack.extend(manifest["ops"][symbol]["calls"])
    return seen


def load_package(result: BuildResult) -> ModuleType:
    """Import a built package into this process."""
    folder = str(result.package_dir.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(result.package_dir.name)


def spelled(value: object) -> str:
    """The signature spelling of a sample value's type: ``float64[:, :]``, ``boolean``..."""
    array = np.asarray(value)
    name = DTYPE_SPELLING[array.dtype.name]
    return name if array.ndim == 0 else f"{name}[{', '.join([':'] * array.ndim)}]"


def numpy_results(function, *args) -> tuple:
    """What NumPy gives for ``function(*args)``, always as a tuple, warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result = function(*args)
    return result if isinstance(result, tuple) else (result,)


def sampled_graphs(package: str, module, graphs: dict[str, tuple[str, tuple]]) -> str:
    """A graphs.toml whose signatures are read off NumPy's results on sample arguments.

    ``graphs`` maps a graph name to (function name in ``module``, sample arguments).
    """
    lines = [f'[package]\nname = "{package}"\n']
    for name, (function, args) in graphs.items():
        results = numpy_results(getattr(module, function), *args)
        signature = f"Tuple({', '.join(map(spelled, results))})({', '.join(map(spelled, args))})"
        lines.append(
            f'[graphs.{name}]\nfunction = "{module.__name__}:{function}"\nsignature = "{signature}"\n'
        )
    return "\n".join(lines)


def write_project(folder: Path, graphs_toml: str, modules: dict[str, str]) -> Path:
    """A project written into ``folder``: its graphs.toml and Python modules."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in modules.items():
        (folder / name).write_text(text)
    path = folder / "graphs.toml"
    path.write_text(graphs_toml)
    return path


def cached_caller_runs(folder: Path, package_folder: Path, call: str) -> tuple[str, str]:
    """``jit_caller.py`` in ``folder`` (a ``numba.njit(cache=True)`` ``caller``) run in two fresh
    processes printing ``call``'s value: compiled and cached by the first, loaded from numba's
    cache by the second (checked). Returns the two values printed."""
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(folder / "cache"),
        "PYTHONPATH": os.pathsep.join([str(package_folder), str(folder)]),
    }
    script = (
        f"import numpy as np\nimport jit_caller\n"
        f"print({call}, sum(jit_caller.caller.stats.cache_hits.values()))"
    )
    runs = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=folder)
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
    (value, hits), (again, cached) = (run.stdout.split() for run in runs)
    assert (hits, cached) == ("0", "1")  # compiled, then loaded from numba's cache
    return value, again
