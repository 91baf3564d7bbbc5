"""Run time of compiled graphs: aotbuild against numba's JIT, Pythran and plain NumPy, program by program.

Why: aotbuild's promise is that a traced NumPy function, compiled ahead of time, runs at least as
fast as the same function under ``numba.njit`` (the geometric mean over many programs), and at
least twice as fast as NumPy itself where the work is elementwise (fusion: one loop, no
temporaries); and (issue 30) that array expressions inside Python loops and branches run at the
speed of Pythran, the AOT compiler made for such code. This measures all three, and counts the
programs where aotbuild takes more time than NumPy, on work where the computation, not the call,
decides the time.

Programs (``PROJECTS``): the example project's graphs (``example_project/graphs.toml``, at the
sizes ``example_project/run.py`` uses; the radon model's 8 variants are left out, since they share
``radon_logp``'s Ops and would count it 9 times in the means), the NumPy programs of
``bench/runtime_programs/`` (elementwise chains, stencils by slicing, reductions, distance
matrices, dense layers, a grid written by slices, a reversed scan: ordinary NumPy as users write
it), and the loop-shaped programs of ``bench/loop_programs/`` (one of each shape issue 30 names:
array expressions in loops consumed by reductions or written into slices, small arrays per step,
the builtin ``max`` of an array, integer and ``np.roll`` stencils, and the idioms that neither
tracing nor numba took when they were written: sizes from a float, ``np.where`` of a mask,
``np.tile``, rows by ``enumerate``, ``np.ndindex``). C-contiguous inputs sized so that the
computation, not the call, decides the time (10^5 to 10^6 elements, or as much work).

Peers, each program:

* **aotbuild host**: the projects built with ``--target host`` (numba's JIT and Pythran compile
  for the host CPU too, so this is like against like); **generic**: ``--target generic``, the
  portable default; **host, --no-fuse**: every Op on its own, which shows what fusion does.
  A program aotbuild does not build gets a dash and aotbuild's error: when a project's build fails,
  its graphs are built one at a time to find those that fail, and the project is built without them.
* **numba njit**: ``numba.njit`` of the same Python function with the same explicit signature
  (helper functions of its module jitted with it; an ``@aotbuild.subgraph`` is its plain
  function). Where numba cannot compile it, a dash and numba's error.
* **Pythran**: ``pythran -O3 -march=native`` (Pythran 0.19, in a venv of its own: ``--pythran-venv``,
  installed into a cache folder if missing) of the same function, from a copy of its module with a
  ``#pythran export`` of the signature's argument types; each program its own extension module,
  imported by the measuring process (``pythran_peer.py`` says how). Where Pythran cannot compile it,
  a dash and Pythran's error; where Pythran cannot be installed, dashes and the reason.
* **NumPy**: the function itself (``np.linalg.det``/``slogdet`` for the two kernels, which are
  loops that plain Python would run element by element). For the loop-shaped programs that is
  mostly the Python interpreter's time, running the loops: the summary gives their means apart.

How: the code measured is commit HEAD as ``git archive HEAD`` exports it (others' uncommitted
edits do not count), first on ``PYTHONPATH`` for the builds and the measuring process, with an
object cache in the temp folder; the programs are this checkout's ``bench/runtime_programs`` and
``bench/loop_programs``. Each build gets a package name of its own (a copy of the project's
graphs.toml beside it, so its ``function`` modules still import: ``runtime_host``,
``example_nofuse``, ``loops_generic``, ...), and each Pythran module too (``pythran_<program>``), so
that every peer runs in ONE measuring process (this script with ``--measure``): times taken in
different processes on this shared machine differ by more than the effects measured (allocation and
page faults of large arrays especially). That process, with BLAS single-threaded
(``SINGLE_THREADED_BLAS``), first puts glibc's malloc in the state that freeing a large array
leaves it in (``settle_malloc``: else NumPy's temporaries would cost page faults or not depending
on which programs ran before), then imports all the packages and modules (each project's own
modules from their files, as ``<project>_<module>``: two projects have a ``programs``), jits the
numba peers, computes NumPy's result of every program and checks every other peer's against it
(``np.allclose``, rtol 1e-5, atol 1e-6: float32 results too), failing the run if any differs,
before anything is timed. Then it times in interleaved rounds: each round, program by program, one
``timeit`` loop (~30 ms) of each peer in turn (the order rotating), so a change in the machine's
load falls on all peers alike; each figure is the best (least time per call) of 7 rounds. The
measuring process answers in JSON; this script writes the table: times, ratios of aotbuild host's
time to NumPy's, numba's and Pythran's (below 1: aotbuild faster), their geometric means over the
NumPy programs, the elementwise-heavy ones, the loop-shaped ones and all, the largest ratio to
Pythran, and every peer's failures. Run from the repository root:

    python bench/bench_runtime.py                  # 7 rounds; writes its section into BENCHMARKS.md
    python bench/bench_runtime.py --no-write       # the same, printed only
    python bench/bench_runtime.py --quick --only gelu,horner   # for development: printed only
    python bench/bench_runtime.py --pythran-venv /work/pythran-venv   # a Pythran 0.19 venv of yours

``--quick`` (2 rounds of ~10 ms loops) and ``--only`` (some programs) never write BENCHMARKS.md:
their figures are provisional or partial.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pythran_peer
from common import BENCH, export_head, measured_by, microseconds, settle_malloc, write_section

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROUNDS, LOOP_SECONDS = 7, 0.03
QUICK_ROUNDS, QUICK_LOOP_SECONDS = 2, 0.01
"""``--quick``: enough to see that everything runs and roughly where it stands, not a figure to quote."""
BUILDS = {
    "host": ["--target", "host"],
    "generic": ["--target", "generic"],
    "no-fuse": ["--target", "host", "--no-fuse"],
}
"""aotbuild's builds: the flags of ``aotbuild compile`` (they override the graphs.toml's target)."""
PEERS = ("numpy", *BUILDS, "numba", "pythran")
"""NumPy first: its results are the reference the others are checked against."""
PROJECTS = {"example": None, "runtime": "runtime_programs", "loops": "loop_programs"}
"""Each project and its folder under ``bench/`` (None: the exported commit's ``example_project``)."""
LOOPS = "loops"
"""The project of loop-shaped programs, whose means the summary gives apart."""
PYTHRAN_OVER = 1.25
"""issue 30's bound for aotbuild host ÷ Pythran on a loop-shaped program: the summary lists those above."""
SLOWER = 1.1
"""A program where aotbuild host takes more than this many times NumPy's time is counted as slower."""
SINGLE_THREADED_BLAS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The measuring process's environment: on 2 shared cores a second BLAS thread waiting for a busy
core made a 256x128 @ 128x128 product take ~8 ms instead of ~0.2 ms, in every peer alike."""


@dataclass(frozen=True)
class Program:
    """One graph measured: where it is declared, what kind of work it is, and its inputs."""

    name: str
    project: str
    """"example", "runtime" or "loops": which graphs.toml declares it (``PROJECTS``)."""

    kind: str
    inputs: str
    elementwise: bool = False
    """Elementwise-heavy: at least four elementwise steps per element (over slices too), at most
    one reduction, at the end."""


PROGRAMS = [
    Program("normal_logp", "example", "elementwise, then a sum", "100,000", elementwise=True),
    Program("normalize_channels", "example", "reductions over axes (float32)", "3x256x256"),
    Program("image_pipeline", "example", "reductions, stencils (float32)", "3x256x256"),
    Program("det", "example", "kernel (LU loops)", "40x40"),
    Program("slogdet", "example", "kernel (LU loops)", "40x40"),
    Program("radon_logp", "example", "model: gathers, sums", "173"),
    Program("radon_logp_and_grad", "example", "model: gathers, bincount", "173"),
    Program("mlp", "example", "8 dense layers (float32)", "32x16"),
    Program("dense", "example", "dense layer (float32)", "32x16"),
    Program("haversine", "runtime", "elementwise", "4 of 500,000", elementwise=True),
    Program("softplus_logistic", "runtime", "elementwise", "10^6", elementwise=True),
    Program("gelu", "runtime", "elementwise", "10^6", elementwise=True),
    Program("horner", "runtime", "elementwise", "10^6", elementwise=True),
    Program("clip_where", "runtime", "elementwise", "2 of 10^6", elementwise=True),
    Program("smooth_1d", "runtime", "stencil", "10^6", elementwise=True),
    Program("laplacian_2d", "runtime", "stencil", "512x512", elementwise=True),
    Program("plain_sum", "runtime", "reduction", "10^6"),
    Program("sum_of_squares", "runtime", "elementwise, then a sum", "2 of 10^6"),
    Program("rms_deviation", "runtime", "reductions", "10^6"),
    Program("row_norms", "runtime", "reduction over an axis", "1000x256"),
    Program("standardize_rows", "runtime", "reductions, keepdims", "1000x256"),
    Program("logsumexp_rows", "runtime", "reductions, keepdims", "1000x256"),
    Program("softmax_rows", "runtime", "reductions, keepdims", "1000x256"),
    Program("distance_matrix", "runtime", "broadcast, then a sum", "200x16, 200x16"),
    Program("dense_relu", "runtime", "matmul, bias, relu", "256x128 @ 128x128"),
    Program("mlp_tanh", "runtime", "6 dense tanh layers (float32)", "256x32, 6 of 32x32"),
    Program("gauss_loglik", "runtime", "exp, log, sqrt, then a sum", "100,000", elementwise=True),
    Program("exp_poly3", "runtime", "elementwise, exp", "3 of 100,000", elementwise=True),
    Program("complex_normalise", "runtime", "abs, max, divide (complex128)", "100,000"),
    Program("great_circle", "runtime", "elementwise: sin, cos, arcsin", "4 of 100,000", elementwise=True),
    Program("grid_slices", "runtime", "zeros, writes into slices", "800, 800"),
    Program("dot_transposed", "runtime", "matmul by a transpose, row sums", "1x512, 10000x512"),
    Program("pairwise_dist", "runtime", "broadcast, then a sum", "300x3"),
    Program("stencil_5pt", "runtime", "stencil", "1000x1000", elementwise=True),
    Program("box_blur_3x3", "runtime", "stencil, 9 slices", "1000x1000", elementwise=True),
    Program("reversed_cumsum", "runtime", "scan over a reversed view", "10^6"),
    Program(
        "nearest_codeword", "loops", "argmin per element of an expression, in a loop (complex)", "20,000; 16"
    ),
    Program("diffuse_3d", "loops", "3-d stencil of slices, abs, builtin max, in a loop", "64x64x64, 4 steps"),
    Program("row_offsets", "loops", "broadcast sum over an axis per row, into a row, in a loop", "400x64"),
    Program("lms_filter", "loops", "window product summed, update in place, in a loop (complex)", "4x20,000"),
    Program(
        "weighted_column_distances", "loops", "sum of an expression per pair, in loops", "200x60, 200x80"
    ),
    Program("spring_chain", "loops", "2-element arrays per step, in a loop", "100,000x2"),
    Program("sharpen_u32", "loops", "stencil, 9 slices (uint32)", "1000x1000", elementwise=True),
    Program("heat_roll", "loops", "stencil by np.roll", "1000x1000", elementwise=True),
    Program("escape_counts", "loops", "masked updates in a loop; sizes from a float", "300x300, 40 steps"),
    Program("group_means", "loops", "group-by: np.where of a mask, diff, concatenate", "100,000"),
    Program("pair_offsets", "loops", "np.tile by a run-time count, masked updates under a branch", "600"),
    Program("matching_rows", "loops", "enumerate over rows, bitwise_and with a tuple default", "50,000x4"),
    Program("neighbour_sums", "loops", "np.ndindex, index tuples through a function default", "200x200"),
]
PROGRAM_OF = {program.name: program for program in PROGRAMS}
NUMPY_INSTEAD = {"det": "det", "slogdet": "slogdet"}
"""Kernels whose NumPy peer is ``np.linalg``'s function of that name."""


def package_name(project: str, build: str) -> str:
    """The package of ``project`` built as ``build``: one name per build, so all import at once."""
    return f"{project}_{build.replace('-', '')}"


# --- the folders of one run ---------------------------------------------------------------


@dataclass(frozen=True)
class Work:
    """The temp folder of a run: the exported source, the projects, the packages, the cache."""

    root: Path

    @property
    def source(self) -> Path:
        return self.root / "src"

    def project(self, project: str) -> Path:
        """The folder holding ``project``'s graphs.toml and its modules."""
        folder = PROJECTS[project]
        return self.source / "example_project" if folder is None else self.root / folder

    def config(self, project: str, build: str) -> Path:
        """The copy of ``project``'s graphs.toml for ``build``: beside it, where its modules import."""
        return self.project(project) / f"graphs_{build.replace('-', '')}.toml"

    @property
    def packages(self) -> Path:
        """Every build's packages, side by side (their names differ)."""
        return self.root / "packages"

    @property
    def pythran(self) -> Path:
        """The Pythran peer's modules (``pythran_<program>.so``) and the sources they were made from."""
        return self.root / "pythran"

    @property
    def env(self) -> dict[str, str]:
        return {"PYTHONPATH": str(self.source), "AOTBUILD_CACHE_DIR": str(self.root / "cache")}


def declarations(work: Work, programs: list[Program]) -> dict[str, dict]:
    """The graphs.toml entry (function, signature, ...) of each of ``programs``, by name."""
    tables = {}
    for project in {program.project for program in programs}:
        with open(work.project(project) / "graphs.toml", "rb") as file:
            tables[project] = tomllib.load(file)["graphs"]
    return {program.name: tables[program.project][program.name] for program in programs}


# --- the builds (in this script's process) ------------------------------------------------


def toml_text(config: dict) -> str:
    """A graphs.toml's tables (``[package]``, ``[graphs.NAME]``) as TOML again: their values are
    strings, numbers, booleans and lists of them, which JSON writes as TOML does."""
    tables = {"package": config["package"], **{f"graphs.{n}": e for n, e in config["graphs"].items()}}
    lines = []
    for header, values in tables.items():
        lines += [f"[{header}]", *(f"{key} = {json.dumps(value)}" for key, value in values.items()), ""]
    return "\n".join(lines)


def write_config(work: Work, project: str, build: str, names: list[str], package: str | None = None) -> Path:
    """``project``'s graphs.toml for ``build``, written beside it: the package renamed for the
    build (or ``package``), and only the graphs ``names`` (``--only`` builds less, and a graph
    that does not build is left out)."""
    with open(work.project(project) / "graphs.toml", "rb") as file:
        config = tomllib.load(file)
    config["package"]["name"] = package or package_name(project, build)
    config["graphs"] = {name: entry for name, entry in config["graphs"].items() if name in names}
    path = work.config(project, build) if package is None else work.project(project) / f"{package}.toml"
    path.write_text(toml_text(config))
    return path


class BuildFailed(Exception):
    """``aotbuild compile`` failed; the message is its one-line error."""


def compile_package(work: Work, config: Path, out: Path, flags: list[str]) -> None:
    """``aotbuild compile config`` into ``out``; :class:`BuildFailed` with aotbuild's error line if
    it fails (the project's folder taken out of it: the table names the program)."""
    command = [sys.executable, "-m", "aotbuild", "compile", str(config), "--out", str(out), "-q", *flags]
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **work.env}, cwd=work.source
    )
    if done.returncode != 0:
        raise BuildFailed(aotbuild_error(done.stderr, config) or f"exit status {done.returncode}")


def aotbuild_error(stderr: str, config: Path) -> str:
    """aotbuild's error message as one line: from its ``aotbuild: error:`` line on (a kernel's
    failure after the tracer's takes the lines below; numba's source excerpt, from its ``File``
    line, is left out), without the project's folder and the config's name."""
    lines = stderr.splitlines()
    first = next((i for i, line in enumerate(lines) if re.match(r"aotbuild: (internal )?error:", line)), None)
    if first is None:
        return " ".join(lines[-1:]).strip()
    message = []
    for line in lines[first:]:
        if re.match(r'\s*File "|During: |There (is|are) \d+ candidate', line):
            break
        message.append(line.strip())
    text = re.sub(r"^aotbuild: (error: )?", "", " ".join(line for line in message if line))
    text = text.replace(f"{config.parent}/", "")
    return re.sub(rf"^{re.escape(config.name)}: (\[graphs\.\w+\] )?", "", text)


def build_project(work: Work, project: str, build: str, names: list[str]) -> dict[str, str]:
    """``project``'s graphs ``names`` built as ``build`` into ``work.packages``. If that fails, each
    graph is built alone (into a scratch folder) to find those that fail, and the project is built
    without them: their errors, by name."""
    flags = BUILDS[build]
    try:
        compile_package(work, write_config(work, project, build, names), work.packages, flags)
        return {}
    except BuildFailed as error:
        whole = str(error)
    print(f"{build} build of {project} failed ({whole}): building its graphs one at a time", file=sys.stderr)
    failed, scratch = {}, work.root / "one-at-a-time"
    for name in names:
        config = write_config(work, project, build, [name], package=f"{package_name(project, build)}_alone")
        try:
            compile_package(work, config, scratch, flags)
        except BuildFailed as error:
            failed[name] = str(error)
            print(f"  {name}: {error}", file=sys.stderr)
    shutil.rmtree(scratch, ignore_errors=True)
    if not failed:
        raise BuildFailed(f"{build} build of {project}: {whole} (yet every graph builds alone)")
    rest = [name for name in names if name not in failed]
    if rest:
        compile_package(work, write_config(work, project, build, rest), work.packages, flags)
    return failed


def build_all(work: Work, programs: list[Program]) -> tuple[float, dict[str, dict[str, str]]]:
    """The projects of ``programs`` in each of ``BUILDS``, into ``work.packages``: the seconds
    taken, and by build, the error of each program that does not build."""
    started = time.perf_counter()
    errors: dict[str, dict[str, str]] = {}
    for build in BUILDS:
        errors[build] = {}
        for project in PROJECTS:
            names = [program.name for program in programs if program.project == project]
            if names:
                errors[build].update(build_project(work, project, build, names))
        print(f"built: {build}", file=sys.stderr)
    return time.perf_counter() - started, errors


def build_pythran(work: Work, programs: list[Program], venv: str | None) -> dict:
    """Pythran found or installed (:func:`pythran_peer.provide`), and every program compiled by it
    into ``work.pythran``: what it is (or why it is missing), and each failed program's error."""
    pythran = pythran_peer.provide(venv)
    if isinstance(pythran, str):
        print(f"pythran: {pythran}", file=sys.stderr)
        return {"pythran": None, "missing": pythran, "errors": {}}
    declared = declarations(work, programs)
    jobs = []
    for program in programs:
        module, function = declared[program.name]["function"].split(":")
        path = work.project(program.project) / f"{module}.py"
        jobs.append(pythran_peer.Job(program.name, path, function, declared[program.name]["signature"]))
    started = time.perf_counter()
    built, errors = pythran_peer.build(pythran, jobs, work.pythran)
    print(
        f"built: pythran, {len(built)} of {len(jobs)} programs ({time.perf_counter() - started:.0f} s)",
        file=sys.stderr,
    )
    return {"pythran": pythran.describe(), "missing": None, "errors": errors}


# --- inputs and peers (in the measuring process) ------------------------------------------


def project_module(work: Work, project: str, name: str) -> types.ModuleType:
    """Module ``name`` of ``project``'s folder, imported from its file as ``<project>_<name>``:
    two projects have a module ``programs``, and one process imports both."""
    alias = f"{project}_{name}"
    if alias not in sys.modules:
        spec = importlib.util.spec_from_file_location(alias, work.project(project) / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[alias] = module
        spec.loader.exec_module(module)
    return sys.modules[alias]


def example_inputs(work: Work) -> dict[str, tuple]:
    """Arguments for the example's graphs, sized as ``example_project/run.py`` calls them."""
    import numpy as np

    mlp = project_module(work, "example", "mlp")
    rng = np.random.default_rng(2026)
    stack = rng.random((3, 256, 256), dtype=np.float32)
    matrix = rng.normal(size=(40, 40))
    theta = np.random.default_rng(1).normal(size=173)
    weights = mlp.make_weights(0)
    batch = rng.normal(size=(32, mlp.WIDTH)).astype(np.float32)
    return {
        "normal_logp": (rng.normal(1.5, 2.0, size=100_000), 1.5, 2.0),
        "normalize_channels": (stack,),
        "image_pipeline": (stack,),
        "det": (matrix,),
        "slogdet": (matrix,),
        "radon_logp": (theta,),
        "radon_logp_and_grad": (theta,),
        "mlp": (batch, *weights),
        "dense": (batch, *weights[:2]),
    }


def all_inputs(work: Work) -> dict[str, tuple]:
    """Every program's arguments; the packages (aotbuild's and Pythran's) made importable."""
    sys.path[:0] = [str(work.packages), str(work.pythran)]
    return {
        **example_inputs(work),
        **project_module(work, "runtime", "programs").inputs(),
        **project_module(work, LOOPS, "programs").inputs(),
    }


def python_function(work: Work, project: str, spec: str) -> Callable:
    """The function ``module:name`` of a graphs.toml entry of ``project``."""
    module, name = spec.split(":")
    return getattr(project_module(work, project, module), name)


def numba_signature(signature: str, function: Callable):
    """A graphs.toml signature as numba takes it: ``Tuple(a, b)`` becomes ``Tuple((a, b))``, and
    parameters past the declared ones get the types of their defaults (numba wants them all)."""
    import inspect

    import numba
    from numba.core import sigutils

    signature = re.sub(r"^Tuple\((.*)\)(\([^()]*\))$", r"Tuple((\1))\2", signature)
    arguments, result = sigutils.normalize_signature(signature)
    parameters = list(inspect.signature(function).parameters.values())
    defaults = [numba.typeof(parameter.default) for parameter in parameters[len(arguments) :]]
    return result(*arguments, *defaults)


def njit_as_written(module: types.ModuleType, name: str, signature: str) -> Callable:
    """``numba.njit`` of function ``name`` of ``module`` with its declared signature. The plain
    functions of its module (and ``@aotbuild.subgraph`` ones, unwrapped) are jitted too, in a copy
    of the module's namespace: numba cannot call plain Python."""
    import numba

    namespace = dict(module.__dict__)
    for key, value in module.__dict__.items():
        value = getattr(value, "py_func", None) or getattr(value, "function", None) or value
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            copy = types.FunctionType(value.__code__, namespace, key, value.__defaults__, value.__closure__)
            namespace[key] = numba.njit(copy)
    function = namespace[name].py_func
    return numba.njit(numba_signature(signature, function))(function)


def numba_error(error: Exception) -> str:
    """The line of numba's message that says what it could not do."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    useful = [line for line in lines if not line.startswith(("Failed in", "- Resolution failure"))]
    line = next((line for line in useful if line.startswith(">>>")), useful[0] if useful else repr(error))
    return f"{type(error).__name__}: {line.removeprefix('>>> ')}"


def peer_functions(work: Work, programs: list[Program]) -> tuple[dict[str, dict[str, Callable]], dict]:
    """Each peer's function of each program, and by peer, the error of each program it has no
    function for that only this process sees (numba's JIT fails; a module does not import).
    aotbuild's graphs that did not build, and Pythran's modules that did not compile, are absent."""
    import numpy as np

    declared = declarations(work, programs)
    functions: dict[str, dict[str, Callable]] = {peer: {} for peer in PEERS}
    errors: dict[str, dict[str, str]] = {"numba": {}, "pythran": {}}
    for program in programs:
        name, entry = program.name, declared[program.name]
        module, function = entry["function"].split(":")
        functions["numpy"][name] = (
            getattr(np.linalg, NUMPY_INSTEAD[name])
            if name in NUMPY_INSTEAD
            else python_function(work, program.project, entry["function"])
        )
        for build in BUILDS:
            package = package_name(program.project, build)
            if (work.packages / package).exists() and hasattr(importlib.import_module(package), name):
                functions[build][name] = getattr(sys.modules[package], name)
        try:
            functions["numba"][name] = njit_as_written(
                project_module(work, program.project, module), function, entry["signature"]
            )
        except Exception as error:
            errors["numba"][name] = numba_error(error).replace(f"{work.root}/", "")
        if (work.pythran / f"{pythran_peer.module_name(name)}.so").exists():
            try:
                compiled = importlib.import_module(pythran_peer.module_name(name))
                functions["pythran"][name] = getattr(compiled, function)
            except (ImportError, AttributeError) as error:
                errors["pythran"][name] = f"{type(error).__name__}: {error}"
    return functions, errors


def close(got: object, expected: object) -> bool:
    """``np.allclose``, element by element through tuples of results."""
    import numpy as np

    if isinstance(expected, tuple):
        return (
            isinstance(got, tuple)
            and len(got) == len(expected)
            and all(close(g, e) for g, e in zip(got, expected, strict=True))
        )
    return np.shape(got) == np.shape(expected) and bool(np.allclose(got, expected, rtol=1e-5, atol=1e-6))


def check(functions: dict[str, dict[str, Callable]], inputs: dict[str, tuple]) -> None:
    """Every peer's result of every program against NumPy's, before anything is timed: a peer
    that is fast but wrong must stop the run, not make the table. (The calls warm up too.)"""
    wrong = []
    for name, reference in functions["numpy"].items():
        expected = reference(*inputs[name])
        for peer in PEERS[1:]:
            if name in functions[peer] and not close(functions[peer][name](*inputs[name]), expected):
                wrong.append(f"{peer} {name}")
    if wrong:
        raise AssertionError(f"results differ from NumPy's: {', '.join(wrong)}")


def ops_called(package: types.ModuleType, name: str, args: tuple) -> int:
    """The compiled Ops a call of graph ``name`` with ``args`` runs, its entry not counted: those
    its contiguous variant reaches if it has one and every array passed is C-contiguous, else
    those of its entry (``__graphs__[name]["ops"]`` lists both variants' together)."""
    import numpy as np

    graph = package.__graphs__[name]
    contiguous = all(arg.flags.c_contiguous for arg in args if isinstance(arg, np.ndarray))
    entry = graph["contiguous_symbol"] if graph["contiguous_symbol"] and contiguous else graph["symbol"]
    calls = {symbol: op["calls"] for symbol, op in package.manifest()["ops"].items()}
    seen, stack = set(), [entry]
    while stack:
        symbol = stack.pop()
        if symbol not in seen:
            seen.add(symbol)
            stack.extend(calls[symbol])
    return len(seen) - 1


# --- timing (in the measuring process) ----------------------------------------------------


class Loop:
    """A timed loop of calls of one program: the statement ``f(a0, a1, ...)`` under ``timeit``,
    so nothing (no lambda, no ``*args``) sits between the loop and the call, with as many calls
    as take ~``seconds`` (at least one)."""

    def __init__(self, function: Callable, args: tuple, seconds: float) -> None:
        arguments = {f"a{i}": value for i, value in enumerate(args)}
        self.timer = timeit.Timer(f"f({', '.join(arguments)})", globals={"f": function, **arguments})
        self.number = 1
        while (taken := self.timer.timeit(self.number)) < seconds / 10:
            self.number *= 10
        self.number = max(1, round(self.number * seconds / taken))

    def per_call(self) -> float:
        return self.timer.timeit(self.number) / self.number


def time_rounds(
    functions: dict[str, dict[str, Callable]], inputs: dict[str, tuple], rounds: int, seconds: float
) -> dict[str, dict[str, float]]:
    """Seconds per call of each peer's function of each program: the best of ``rounds`` rounds,
    each of which times one loop of every peer of every program, program by program, the peers
    in an order that rotates (so no peer always runs first, or right after the same other)."""
    loops: dict[tuple[str, str], Loop] = {}
    best: dict[str, dict[str, float]] = {peer: {} for peer in functions}
    for round_ in range(rounds):
        for index, name in enumerate(functions["numpy"]):
            peers = [peer for peer in functions if name in functions[peer]]
            shift = (round_ + index) % len(peers)
            for peer in peers[shift:] + peers[:shift]:
                if (peer, name) not in loops:
                    loops[peer, name] = Loop(functions[peer][name], inputs[name], seconds)
                per_call = loops[peer, name].per_call()
                best[peer][name] = min(per_call, best[peer].get(name, math.inf))
        print(f"timed: round {round_ + 1} of {rounds}", file=sys.stderr)
    return best


def measure(work: Work, programs: list[Program], rounds: int, seconds: float) -> dict:
    """The measuring process's work: every peer prepared and checked, then timed; what the table
    needs, as JSON-ready figures."""
    settle_malloc()
    inputs = all_inputs(work)
    functions, errors = peer_functions(work, programs)
    check(functions, inputs)
    print("checked: every peer's results match NumPy's", file=sys.stderr)
    ops = {
        build: {
            program.name: ops_called(
                sys.modules[package_name(program.project, build)], program.name, inputs[program.name]
            )
            for program in programs
            if program.name in functions[build]
        }
        for build in ("host", "no-fuse")
    }
    load = os.getloadavg()[0]
    return {
        "seconds": time_rounds(functions, inputs, rounds, seconds),
        "errors": errors,
        "ops": ops,
        "load": load,
    }


# --- the run ------------------------------------------------------------------------------


def measure_all(work: Work, programs: list[Program], quick: bool, pythran_venv: str | None) -> dict:
    """HEAD exported, the programs built (aotbuild's builds, then Pythran's), then measured in one
    process (this script with ``--measure``) with single-threaded BLAS: its figures, with the
    builds' time and every build's errors."""
    commit = export_head(work.source)
    os.environ["BENCH_COMMIT"] = commit  # for measured_by()
    for project, folder in PROJECTS.items():
        if folder is not None:
            shutil.copytree(
                BENCH / folder, work.project(project), ignore=shutil.ignore_patterns("__pycache__")
            )
    build_seconds, build_errors = build_all(work, programs)
    pythran = build_pythran(work, programs, pythran_venv)
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", str(work.root)]
    command += ["--only", ",".join(program.name for program in programs), *(["--quick"] if quick else [])]
    env = {**os.environ, **work.env, **SINGLE_THREADED_BLAS}
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, env=env, cwd=work.source, check=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["errors"] = {
        **build_errors,
        "numba": figures["errors"]["numba"],
        "pythran": {**pythran["errors"], **figures["errors"]["pythran"]},
    }
    return {
        **figures,
        "build_seconds": build_seconds,
        "pythran": pythran["pythran"],
        "missing": pythran["missing"],
    }


# --- the section --------------------------------------------------------------------------


def seconds_of(figures: dict, peer: str, name: str) -> float | None:
    """``peer``'s seconds per call of program ``name``; None where it did not run (no build, no
    compile)."""
    return figures["seconds"][peer].get(name)


def time_cell(seconds: float | None) -> str:
    return "—" if seconds is None else microseconds(seconds)


def ratio_cell(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None else f"{a / b:.2f}"


def ratios(figures: dict, top: str, bottom: str, programs: list[Program]) -> dict[str, float]:
    """``top``'s time ÷ ``bottom``'s, for each of ``programs`` that both ran."""
    pairs = {
        p.name: (seconds_of(figures, top, p.name), seconds_of(figures, bottom, p.name)) for p in programs
    }
    return {name: a / b for name, (a, b) in pairs.items() if a is not None and b is not None}


def table(figures: dict, programs: list[Program]) -> list[str]:
    lines = [
        "| program | kind | input | NumPy | aotbuild host | aotbuild generic | host, --no-fuse | numba njit "
        "| Pythran | Ops (fused / not) | host ÷ NumPy | host ÷ njit | host ÷ Pythran |",
        "|---" * 13 + "|",
    ]
    for program in programs:
        name = program.name
        time_of = {peer: seconds_of(figures, peer, name) for peer in PEERS}
        label = f"**`{name}`**" if program.elementwise else f"`{name}`"
        ops = [str(figures["ops"][build].get(name, "—")) for build in ("host", "no-fuse")]
        lines.append(
            f"| {label} | {program.kind} | {program.inputs} | {time_cell(time_of['numpy'])} "
            f"| {time_cell(time_of['host'])} | {time_cell(time_of['generic'])} "
            f"| {time_cell(time_of['no-fuse'])} | {time_cell(time_of['numba'])} "
            f"| {time_cell(time_of['pythran'])} | {ops[0]} / {ops[1]} "
            f"| {ratio_cell(time_of['host'], time_of['numpy'])} "
            f"| {ratio_cell(time_of['host'], time_of['numba'])} "
            f"| {ratio_cell(time_of['host'], time_of['pythran'])} |"
        )
    return lines


def geomean(values: dict[str, float]) -> str:
    if not values:
        return "—"
    return f"**{statistics.geometric_mean(values.values()):.2f}** (over {len(values)})"


def means(figures: dict, programs: list[Program]) -> list[str]:
    """The geometric means of each ratio over the NumPy programs (example and runtime: NumPy's
    time is NumPy's), the elementwise-heavy ones, the loop-shaped ones (NumPy's time is mostly
    Python's, running the loops) and all of them."""
    groups = [
        [program for program in programs if program.project != LOOPS],
        [program for program in programs if program.elementwise],
        [program for program in programs if program.project == LOOPS],
        programs,
    ]
    lines = [
        "| geometric mean | NumPy programs (example, runtime) | elementwise-heavy (bold above) "
        "| loop-shaped (loop_programs) | all programs |",
        "|---|---|---|---|---|",
    ]
    for top, bottom, what in (
        ("host", "numpy", "aotbuild host ÷ NumPy"),
        ("host", "numba", "aotbuild host ÷ numba njit"),
        ("host", "pythran", "aotbuild host ÷ Pythran"),
        ("generic", "host", "aotbuild generic ÷ host"),
        ("no-fuse", "host", "aotbuild --no-fuse ÷ host"),
    ):
        cells = [geomean(ratios(figures, top, bottom, group)) for group in groups]
        lines.append(f"| {what} | {' | '.join(cells)} |")
    return lines


def against_pythran(figures: dict, programs: list[Program]) -> list[str]:
    """aotbuild host ÷ Pythran: the largest ratio, and the loop-shaped programs above ``PYTHRAN_OVER``."""
    if figures["missing"]:
        return [f"No Pythran figures (a dash above): Pythran {figures['missing']}."]
    over = ratios(figures, "host", "pythran", programs)
    if not over:
        return ["aotbuild host and Pythran ran no program in common."]
    largest = max(over, key=over.__getitem__)
    loops = {name: value for name, value in over.items() if PROGRAM_OF[name].project == LOOPS}
    above = sorted(((value, name) for name, value in loops.items() if value > PYTHRAN_OVER), reverse=True)
    listed = ", ".join(f"`{name}` {value:.2f}" for value, name in above)
    return [
        f"aotbuild host ÷ Pythran: largest **{over[largest]:.2f}** (`{largest}`); above {PYTHRAN_OVER} on "
        f"**{len(above)} of {len(loops)}** loop-shaped programs{': ' + listed if listed else ''}."
    ]


def slower_than_numpy(figures: dict, programs: list[Program]) -> list[str]:
    """The programs where aotbuild host takes more than ``SLOWER`` times NumPy's time."""
    over = ratios(figures, "host", "numpy", programs)
    slower = sorted(((value, name) for name, value in over.items() if value > SLOWER), reverse=True)
    listed = ", ".join(f"`{name}` {value:.2f}" for value, name in slower)
    return [
        f"aotbuild host takes more than {SLOWER}× NumPy's time on **{len(slower)} of {len(over)}** "
        f"programs{': ' + listed if listed else ''}."
    ]


NOTES = {
    ("numba", "mlp"): "numba types the loop variable `activations` as the argument `x`, declared "
    "`float32[:, :]`, joined with the layers' C-contiguous results: layout A, which it cannot return as "
    "the declared `float32[:, ::1]`",
}
"""Why a peer fails where its message alone does not say, by (peer, program)."""
PYTHRAN_CBLAS = (
    "`cblas.h` above: Pythran's matrix products call a system BLAS through its C header (its default "
    "`compiler.blas = blas`; e.g. Debian's libopenblas-dev), which this machine lacks."
)


def failures(figures: dict) -> list[str]:
    """Every peer's programs that did not build or compile, with the one-line error of each."""
    errors = figures["errors"]
    lines = []
    builds = {build: errors.get(build, {}) for build in BUILDS}
    names = list(dict.fromkeys(name for failed in builds.values() for name in failed))
    if names:
        lines += ["aotbuild does not build these (a dash above; its error):", ""]
        for name in names:
            messages = {build: failed[name] for build, failed in builds.items() if name in failed}
            if len(set(messages.values())) == 1 and len(messages) == len(BUILDS):
                lines.append(f"- `{name}`: {next(iter(messages.values()))}")
            else:
                lines += [f"- `{name}` ({build}): {message}" for build, message in messages.items()]
        lines.append("")
    else:
        lines += ["aotbuild builds every program.", ""]
    for peer, label in (("numba", "numba's JIT"), ("pythran", "Pythran")):
        if peer == "pythran" and figures["missing"]:
            continue  # said above
        if not errors[peer]:
            lines += [f"{label} compiles every program as written.", ""]
            continue
        lines += [f"{label} does not compile these as written (a dash above):", ""]
        for name, error in errors[peer].items():
            note = NOTES.get((peer, name))
            lines.append(f"- `{name}`: {error}" + (f" ({note})" if note else ""))
        lines.append("")
        if peer == "pythran" and any("cblas.h" in error for error in errors[peer].values()):
            lines += [PYTHRAN_CBLAS, ""]
    return lines[:-1]


def section(figures: dict, programs: list[Program], rounds: int, seconds: float) -> str:
    pythran = figures["pythran"] or f"Pythran {figures['missing']}"
    failed = any(figures["errors"][build] for build in BUILDS)
    return "\n".join(
        [
            "## Run time: compiled graphs against numba JIT, Pythran and NumPy",
            "",
            measured_by("bench_runtime.py")
            + f" {pythran}."
            + f" Best of {rounds} interleaved rounds of one loop of ~{seconds * 1e3:.0f} ms "
            "(one call where a call takes longer).",
            "",
            "Per-call time of each graph of the example project (the radon model's 8 variants left out: "
            "they share `radon_logp`'s Ops) at the sizes `example_project/run.py` uses, of the NumPy "
            "programs in `bench/runtime_programs/`, and of the loop-shaped programs in "
            "`bench/loop_programs/` (array expressions inside Python loops and branches, and the idioms that "
            "come with them; their "
            "NumPy time is mostly Python's, running the loops). C-contiguous inputs, declared `[::1]` for "
            "aotbuild, numba and Pythran alike. aotbuild host / generic: the projects built with `--target "
            "host` / `generic`; host, --no-fuse: every Op on its own. numba njit: `numba.njit` of the same "
            "function with the same explicit signature. Pythran: `pythran -O3 -march=native` of the same "
            "function (a copy of its module holding what it reaches, decorators dropped), exported with the "
            "signature's argument types. NumPy: the function itself (`np.linalg.det`/`slogdet` for the two "
            "kernels). Ops: the compiled Ops each graph calls, fused and not (a graph with any-layout "
            "matrices: those of its C-contiguous variant, which every call here runs). All peers in one "
            "process (each build a package of its own name, each Pythran module its own), every result "
            "checked against NumPy's (`np.allclose`) before timing; then, each round, program by program, "
            "one loop of each peer in turn (the order rotating), so load changes fall on all peers alike; "
            f"each figure is the best of {rounds} rounds. BLAS single-threaded (`OPENBLAS_NUM_THREADS=1`): "
            "on these 2 shared cores a second BLAS thread made a 256x128 @ 128x128 product ~30× slower, in "
            "every peer. Before all that, the process frees one 30 MiB array, which raises glibc malloc's "
            "mmap and trim thresholds to near their ceilings: else, which programs ran before decided "
            "whether temporaries of 10^5 float64 cost page faults at every call (3× NumPy's time for "
            "`gauss_loglik`). "
            f"aotbuild's builds took {figures['build_seconds']:.0f} s (3 builds of the 3 projects, one "
            "object cache, cold"
            + ("; with the builds of single graphs that found those that fail" if failed else "")
            + f"); the 1-minute load average was {figures['load']:.2f} when the timing started. "
            "Ratios are aotbuild host's time ÷ the peer's: below 1, aotbuild is faster. Bold: "
            "elementwise-heavy (at least four elementwise steps per element, at most one reduction, at the "
            "end).",
            "",
            *table(figures, programs),
            "",
            *means(figures, programs),
            "",
            *against_pythran(figures, programs),
            "",
            *slower_than_numpy(figures, programs),
            "",
            *failures(figures),
        ]
    )


def selected(only: str | None) -> list[Program]:
    """The programs ``--only`` names (all without it), in the table's order."""
    if not only:
        return PROGRAMS
    names = set(only.split(","))
    unknown = names - {program.name for program in PROGRAMS}
    if unknown:
        raise SystemExit(f"unknown programs: {', '.join(sorted(unknown))}")
    return [program for program in PROGRAMS if program.name in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_ROUNDS} short rounds, for development")
    parser.add_argument("--only", metavar="NAME[,NAME]", help="measure these programs only")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave BENCHMARKS.md")
    parser.add_argument(
        "--pythran-venv",
        metavar="PATH",
        help="the venv with Pythran 0.19 (else $PYTHRAN_VENV, else one in ~/.cache/aotbuild-bench, "
        "made there if missing)",
    )
    parser.add_argument("--measure", metavar="WORK", help=argparse.SUPPRESS)  # the measuring process
    options = parser.parse_args()
    programs = selected(options.only)
    rounds, seconds = (QUICK_ROUNDS, QUICK_LOOP_SECONDS) if options.quick else (ROUNDS, LOOP_SECONDS)
    if options.measure:
        print(json.dumps(measure(Work(Path(options.measure)), programs, rounds, seconds)))
        return
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aotbuild-bench-runtime-") as folder:
        figures = measure_all(Work(Path(folder)), programs, options.quick, options.pythran_venv)
        text = section(figures, programs, rounds, seconds)
    print(text)
    if options.no_write or options.quick or options.only:
        print("BENCHMARKS.md not written (--no-write, --quick or --only)", file=sys.stderr)
    else:
        write_section("bench_runtime", text)
    print(f"bench_runtime.py: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
