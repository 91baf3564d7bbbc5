"""Run time of compiled graphs: aotbuild against numba's JIT and plain NumPy, program by program.

Why: aotbuild's promise is that a traced NumPy function, compiled ahead of time, runs at least as
fast as the same function under ``numba.njit`` (the geometric mean over many programs), and at
least twice as fast as NumPy itself where the work is elementwise (fusion: one loop, no
temporaries). This measures both, on work where the computation, not the call, decides the time.

Programs: the example project's graphs (``example_project/graphs.toml``, at the sizes
``example_project/run.py`` uses; the radon model's 8 variants are left out, since they share
``radon_logp``'s Ops and would count it 9 times in the means), and the NumPy programs of
``bench/runtime_programs/`` (elementwise chains, stencils by slicing, reductions, a distance
matrix, a dense layer), with C-contiguous float64 inputs sized so that the computation, not the
call, decides the time (10^5 to 10^6 elements, or as much work).

Peers, each program:

* **aotbuild host**: both projects built with ``--target host`` (numba's JIT compiles for the
  host CPU too, so this is like against like); **generic**: ``--target generic``, the portable
  default; **host, --no-fuse**: every Op on its own, which shows what fusion does.
* **numba njit**: ``numba.njit`` of the same Python function with the same explicit signature
  (helper functions of its module jitted with it; an ``@aotbuild.subgraph`` is its plain
  function), called once before timing. Where numba cannot compile it, a dash and numba's error.
* **NumPy**: the function itself (``np.linalg.det``/``slogdet`` for the two kernels, which are
  loops that plain Python would run element by element).

The code measured is commit HEAD as ``git archive HEAD`` exports it (others' uncommitted edits do
not count), first on ``PYTHONPATH`` for the builds and every measuring process, with an object
cache in the temp folder. Each peer runs in a process of its own (this script with ``--serve
PEER``; the aotbuild ones block numba, so numba's JIT state cannot disturb them), started once:
NumPy's first, which keeps its results; every other peer's results must match them
(``np.allclose``, rtol 1e-5, atol 1e-6: float32 results too) before anything is timed, or the
run fails. Then the processes are asked for one ``timeit`` loop (sized to ~30 ms) at a time,
program by program, each peer in turn (the order rotating), 7 rounds: each figure is the median
of its 7 loops, and a change in the machine's load falls on all peers alike. BLAS runs single-threaded in every peer (``SINGLE_THREADED_BLAS``).
Run from the repository root:

    python bench/bench_runtime.py          # writes its section into BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pickle
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

from common import BENCH, export_head, measured_by, microseconds, python, write_section

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

REPEATS = 7
LOOP_SECONDS = 0.03
BUILDS = {
    "host": ["--target", "host"],
    "generic": ["--target", "generic"],
    "no-fuse": ["--target", "host", "--no-fuse"],
}
"""aotbuild's builds: the flags of ``aotbuild compile`` (they override the graphs.toml's target)."""
PEERS = ("numpy", *BUILDS, "numba")
"""In the order measured: NumPy first, as its results are the reference."""
RUNTIME_PROGRAMS = "runtime_programs"
NOISE = 0.1
"""How far apart runs of this script put a geometric mean on this shared machine (~10%)."""
SINGLE_THREADED_BLAS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The measuring processes' environment: on 2 shared cores a second BLAS thread waiting for a busy
core made a 256x128 @ 128x128 product take ~8 ms instead of ~0.2 ms, in every peer alike."""


@dataclass(frozen=True)
class Program:
    """One graph measured: where it is declared, what kind of work it is, and its inputs."""

    name: str
    project: str
    """"example" or "runtime": which graphs.toml declares it."""

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
]
NUMPY_INSTEAD = {"det": "det", "slogdet": "slogdet"}
"""Kernels whose NumPy peer is ``np.linalg``'s function of that name."""


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
        return self.source / "example_project" if project == "example" else self.root / RUNTIME_PROGRAMS

    def packages(self, build: str) -> Path:
        return self.root / "packages" / build

    @property
    def references(self) -> Path:
        return self.root / "numpy_results.pickle"

    @property
    def env(self) -> dict[str, str]:
        return {"PYTHONPATH": str(self.source), "AOTBUILD_CACHE_DIR": str(self.root / "cache")}


def declarations(work: Work) -> dict[str, dict]:
    """Every measured program's graphs.toml entry (function, signature, ...), by name."""
    tables = {}
    for project in ("example", "runtime"):
        with open(work.project(project) / "graphs.toml", "rb") as file:
            tables[project] = tomllib.load(file)["graphs"]
    return {program.name: tables[program.project][program.name] for program in PROGRAMS}


# --- inputs and peers (in a measuring process) --------------------------------------------


def example_inputs() -> dict[str, tuple]:
    """Arguments for the example's graphs, sized as ``example_project/run.py`` calls them."""
    import mlp  # example_project is on sys.path
    import numpy as np

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
    sys.path[:0] = [str(work.project("example")), str(work.project("runtime"))]
    import programs

    return {**example_inputs(), **programs.inputs()}


def python_function(spec: str) -> Callable:
    """The function ``module:name`` of a graphs.toml entry."""
    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


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


def njit_as_written(spec: str, signature: str) -> Callable:
    """``numba.njit`` of the graph's function with its declared signature. The plain functions
    of its module (and ``@aotbuild.subgraph`` ones, unwrapped) are jitted too, in a copy of the
    module's namespace: numba cannot call plain Python."""
    import numba

    module_name, name = spec.split(":")
    module = importlib.import_module(module_name)
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


def peer_functions(peer: str, work: Work) -> dict[str, Callable | str]:
    """Each program's function for ``peer``, or (numba) the error that stopped its compiling."""
    import numpy as np

    declared = declarations(work)
    if peer == "numpy":
        return {
            name: getattr(np.linalg, NUMPY_INSTEAD[name])
            if name in NUMPY_INSTEAD
            else python_function(entry["function"])
            for name, entry in declared.items()
        }
    if peer == "numba":
        functions: dict[str, Callable | str] = {}
        for name, entry in declared.items():
            try:
                functions[name] = njit_as_written(entry["function"], entry["signature"])
            except Exception as error:
                functions[name] = numba_error(error)
        return functions
    sys.path.insert(0, str(work.packages(peer)))
    packages = {project: importlib.import_module(f"{project}_ext") for project in ("example", "runtime")}
    return {program.name: getattr(packages[program.project], program.name) for program in PROGRAMS}


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


class Loop:
    """A timed loop of calls of one program: the statement ``f(a0, a1, ...)`` under ``timeit``,
    so nothing (no lambda, no ``*args``) sits between the loop and the call, with as many calls
    as take ~``LOOP_SECONDS`` (at least one)."""

    def __init__(self, function: Callable, args: tuple) -> None:
        arguments = {f"a{i}": value for i, value in enumerate(args)}
        self.timer = timeit.Timer(f"f({', '.join(arguments)})", globals={"f": function, **arguments})
        self.number = 1
        while (seconds := self.timer.timeit(self.number)) < LOOP_SECONDS / 10:
            self.number *= 10
        self.number = max(1, round(self.number * LOOP_SECONDS / seconds))

    def per_call(self) -> float:
        return self.timer.timeit(self.number) / self.number


def prepare_peer(peer: str, work: Work) -> tuple[dict[str, Callable], dict[str, tuple], dict]:
    """Every program's function for ``peer`` and its arguments, each called once and its result
    checked against NumPy's (NumPy itself keeps its results for the others); and what to report
    before timing: numba's errors, and the compiled Ops of each aotbuild graph."""
    inputs = all_inputs(work)
    functions = peer_functions(peer, work)
    errors = {name: function for name, function in functions.items() if isinstance(function, str)}
    runnable = {name: function for name, function in functions.items() if name not in errors}
    results = {name: function(*inputs[name]) for name, function in runnable.items()}
    if peer == "numpy":
        work.references.write_bytes(pickle.dumps(results))
    else:
        expected = pickle.loads(work.references.read_bytes())
        wrong = [name for name, result in results.items() if not close(result, expected[name])]
        if wrong:
            raise AssertionError(f"{peer}: results differ from NumPy's for {', '.join(wrong)}")
    report: dict = {"errors": errors}
    if peer in BUILDS:
        report["ops"] = {
            program.name: ops_called(
                sys.modules[f"{program.project}_ext"], program.name, inputs[program.name]
            )
            for program in PROGRAMS
        }
    return runnable, inputs, report


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


def serve(peer: str, work: Work) -> None:
    """The worker of one peer: prepare (a JSON line when ready), then time one loop of each
    program named on stdin, answering its seconds per call (a JSON line), until stdin closes."""
    functions, inputs, report = prepare_peer(peer, work)
    print(json.dumps(report), flush=True)
    loops: dict[str, Loop] = {}
    for line in sys.stdin:
        name = line.strip()
        if name not in loops:
            loops[name] = Loop(functions[name], inputs[name])
        print(json.dumps(loops[name].per_call()), flush=True)


# --- the run ------------------------------------------------------------------------------


def build_all(work: Work) -> float:
    """Both projects in each of ``BUILDS``, into ``work.packages(build)``; the seconds taken."""
    started = time.perf_counter()
    for build, flags in BUILDS.items():
        for project in ("example", "runtime"):
            toml = str(work.project(project) / "graphs.toml")
            out = str(work.packages(build))
            python(["-m", "aotbuild", "compile", toml, "--out", out, "-q", *flags], work.env)
        print(f"built: {build}", file=sys.stderr)
    return time.perf_counter() - started


class Worker:
    """A peer's process (this script with ``--serve PEER``), asked for one timed loop at a time;
    its stderr goes to a file, shown if it fails."""

    def __init__(self, peer: str, work: Work) -> None:
        self.peer = peer
        self.log = work.root / f"{peer}.stderr"
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve", peer, str(work.root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log.open("w"),
            text=True,
            env={**os.environ, **work.env, **SINGLE_THREADED_BLAS},
        )
        self._report: dict | None = None

    def _answer(self) -> object:
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            raise RuntimeError(f"the {self.peer} worker failed:\n{self.log.read_text()}")
        return json.loads(line)

    def report(self) -> dict:
        """What the worker said when ready (it has checked every result by then)."""
        if self._report is None:
            self._report = self._answer()
        return self._report

    def per_call(self, name: str) -> float:
        self.process.stdin.write(name + "\n")
        self.process.stdin.flush()
        return self._answer()

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def time_programs(workers: dict[str, Worker]) -> dict[str, dict[str, float | None]]:
    """Per-call seconds of every program for every peer (None where numba could not compile it):
    the median of ``REPEATS`` loops, taken in rounds that time each peer in turn (the order
    rotating), so a change in the machine's load falls on all peers alike."""
    seconds: dict[str, dict[str, float | None]] = {peer: {} for peer in workers}
    for program in PROGRAMS:
        peers = [peer for peer in workers if program.name not in workers[peer].report()["errors"]]
        loops: dict[str, list[float]] = {peer: [] for peer in peers}
        for repeat in range(REPEATS):
            for peer in peers[repeat % len(peers) :] + peers[: repeat % len(peers)]:
                loops[peer].append(workers[peer].per_call(program.name))
        for peer in workers:
            seconds[peer][program.name] = statistics.median(loops[peer]) if peer in loops else None
        print(f"timed: {program.name}", file=sys.stderr)
    return seconds


def measure_all(work: Work) -> dict:
    commit = export_head(work.source)
    os.environ["BENCH_COMMIT"] = commit  # for measured_by()
    shutil.copytree(
        BENCH / RUNTIME_PROGRAMS, work.project("runtime"), ignore=shutil.ignore_patterns("__pycache__")
    )
    figures: dict = {"build_seconds": build_all(work)}
    workers = {"numpy": Worker("numpy", work)}
    workers["numpy"].report()  # NumPy's results are written: the others check theirs against them
    workers.update({peer: Worker(peer, work) for peer in PEERS if peer != "numpy"})
    try:
        reports = {peer: worker.report() for peer, worker in workers.items()}
        figures["load"] = os.getloadavg()[0]
        seconds = time_programs(workers)
    finally:
        for worker in workers.values():
            worker.close()
    for peer in PEERS:
        figures[peer] = {**reports[peer], "seconds": seconds[peer]}
    return figures


# --- the section --------------------------------------------------------------------------


def time_cell(seconds: float | None) -> str:
    return "—" if seconds is None else microseconds(seconds)


def ratio_cell(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None else f"{a / b:.2f}"


def ratios(figures: dict, peer: str, programs: list[Program]) -> dict[str, float]:
    """``peer``'s time ÷ aotbuild host's, for each of ``programs`` that ``peer`` ran."""
    host = figures["host"]["seconds"]
    return {
        program.name: figures[peer]["seconds"][program.name] / host[program.name]
        for program in programs
        if figures[peer]["seconds"][program.name] is not None
    }


def table(figures: dict) -> list[str]:
    lines = [
        "| program | kind | input | aotbuild host | aotbuild generic | host, --no-fuse | numba njit "
        "| NumPy | Ops (fused / not) | njit ÷ host | NumPy ÷ host | no-fuse ÷ host |",
        "|---" * 12 + "|",
    ]
    for program in PROGRAMS:
        name = program.name
        time_of = {peer: figures[peer]["seconds"][name] for peer in PEERS}
        label = f"**`{name}`**" if program.elementwise else f"`{name}`"
        lines.append(
            f"| {label} | {program.kind} | {program.inputs} | {time_cell(time_of['host'])} "
            f"| {time_cell(time_of['generic'])} | {time_cell(time_of['no-fuse'])} "
            f"| {time_cell(time_of['numba'])} | {time_cell(time_of['numpy'])} "
            f"| {figures['host']['ops'][name]} / {figures['no-fuse']['ops'][name]} "
            f"| {ratio_cell(time_of['numba'], time_of['host'])} | {ratio_cell(time_of['numpy'], time_of['host'])} "
            f"| {ratio_cell(time_of['no-fuse'], time_of['host'])} |"
        )
    return lines


def geomean(values: dict[str, float]) -> str:
    return f"**{statistics.geometric_mean(values.values()):.2f}** (over {len(values)})"


def means(figures: dict) -> list[str]:
    """The geometric means of each ratio, over all programs and over the elementwise-heavy ones."""
    heavy = [program for program in PROGRAMS if program.elementwise]
    lines = [
        "| geometric mean | all programs | elementwise-heavy (bold above) |",
        "|---|---|---|",
    ]
    for peer, what in (
        ("numba", "numba njit ÷ aotbuild host"),
        ("numpy", "NumPy ÷ aotbuild host"),
        ("generic", "aotbuild generic ÷ host"),
        ("no-fuse", "aotbuild --no-fuse ÷ host"),
    ):
        everything, elementwise = ratios(figures, peer, PROGRAMS), ratios(figures, peer, heavy)
        lines.append(f"| {what} | {geomean(everything)} | {geomean(elementwise)} |")
    return lines


def verdicts(figures: dict) -> list[str]:
    """Whether each of the project's targets is met, and which programs fall short of it."""
    heavy = [program for program in PROGRAMS if program.elementwise]
    njit = ratios(figures, "numba", PROGRAMS)
    numpy = ratios(figures, "numpy", heavy)
    njit_mean, numpy_mean = (
        statistics.geometric_mean(njit.values()),
        statistics.geometric_mean(numpy.values()),
    )
    slower = ", ".join(
        f"`{name}` {value:.2f}" for name, value in sorted(njit.items(), key=lambda kv: kv[1]) if value < 1
    )
    short = ", ".join(
        f"`{name}` {value:.2f}" for name, value in sorted(numpy.items(), key=lambda kv: kv[1]) if value < 2
    )
    return [
        f"- Target: at least as fast as numba's JIT on the geometric mean (njit ÷ host ≥ 1) — "
        f"**{'met' if njit_mean >= 1 else 'not met'}**: {njit_mean:.2f} over the {len(njit)} programs numba "
        f"compiles{near(njit_mean, 1)}. Slower than njit (njit ÷ host below 1): {slower or 'none'}.",
        f"- Target: at least 2× NumPy on elementwise-heavy graphs (NumPy ÷ host ≥ 2) — "
        f"**{'met' if numpy_mean >= 2 else 'not met'}** on the geometric mean: {numpy_mean:.2f} over "
        f"{len(numpy)} programs{near(numpy_mean, 2)}; below 2× on its own: {short or 'none'}.",
    ]


def near(value: float, target: float) -> str:
    """A warning when ``value`` is within ``NOISE`` of ``target``: on this machine, a verdict that
    another run may reverse."""
    if abs(value / target - 1) >= NOISE:
        return ""
    return (
        f", within {NOISE:.0%} of the target: this machine's run-to-run noise, so the verdict could go "
        "either way on another run"
    )


def findings(figures: dict) -> list[str]:
    """Why the programs that lose do, as read in their generated Op modules (``aotbuild inspect``)
    at the commit this was written for; the figures are this run's."""

    def over_host(peer: str, name: str) -> str:
        return f"{figures[peer]['seconds'][name] / figures['host']['seconds'][name]:.2f}"

    transcendental = ("haversine", "softplus_logistic", "gelu")

    return [
        "- **Reductions trail NumPy's.** A `sum` adds in NumPy's pairwise order: each whole block of "
        "128 elements of the innermost reduced axis is summed where it lies with eight interleaved "
        "partial sums, the rest through a small buffer. NumPy's own pairwise loop is unrolled and "
        f"vectorised further: `plain_sum` runs at {over_host('numpy', 'plain_sum')} of NumPy's speed "
        f"(NumPy ÷ host) and {over_host('numba', 'plain_sum')} of njit's naive loop. A reduction "
        "takes in the elementwise expression it reduces, so there is no temporary to write "
        "(`normal_logp`, `sum_of_squares`, `row_norms`); where the reduced value is used twice "
        "(`standardize_rows`, `softmax_rows`) it is stored once and reduced from memory.",
        "- **Transcendental functions dominate** `haversine`, `softplus_logistic` and `gelu`: each "
        "element calls the C library's `sin`/`cos`/`arcsin`, `exp`/`log1p` or `tanh` in turn. Fusion "
        "removes their temporaries, which saves little here: unfused, about half their steps write in "
        "place over a dying input (`…, in place` in `aotbuild inspect`) and the calls take the time "
        f"(--no-fuse ÷ host {', '.join(over_host('no-fuse', name) for name in transcendental)}); "
        "NumPy 2 has SIMD loops for several of them: fused, they run at "
        f"{', '.join(over_host('numpy', name) for name in transcendental)}× NumPy, short of 2×.",
        "- **`gelu`'s `x**3`** is `pow(x, 3.0)` in aotbuild, as in NumPy (whose fast paths are the "
        "exponents -1, 0, 0.5, 1 and 2; aotbuild keeps NumPy's results), while numba's njit multiplies "
        f"for an integer-valued constant exponent: njit ÷ host {over_host('numba', 'gelu')}.",
        "- **`laplacian_2d`**: the fused loop reads its five 2-d views as `a[i0 * s0, i1 * s1]`, with "
        "broadcast multipliers and strides known only at run time, which keeps it from being vectorised; "
        "NumPy's ufunc loops over the same views are SIMD. Neither fusion nor the host target helps here "
        f"(--no-fuse ÷ host {over_host('no-fuse', 'laplacian_2d')}, generic ÷ host "
        f"{over_host('generic', 'laplacian_2d')}).",
        "- Where fusion has plain arithmetic to merge, it pays: `horner` "
        f"{over_host('numpy', 'horner')}× NumPy, `smooth_1d` {over_host('numpy', 'smooth_1d')}×, "
        f"`clip_where` {over_host('numpy', 'clip_where')}× (numba's njit makes a temporary for "
        "`np.where` and `np.clip`, which its array-expression fusion does not take in). The small "
        f"graphs gain on calls: `radon_logp` {over_host('numpy', 'radon_logp')}× NumPy, whose time "
        "there is per-ufunc overhead on 173 elements. The kernels (`det`, `slogdet`) are numba's own "
        "code: equal to njit within the noise.",
    ]


def numba_failures(figures: dict) -> list[str]:
    errors = figures["numba"]["errors"]
    return [f"- `{name}`: {error}" for name, error in errors.items()]


def section(figures: dict) -> str:
    return "\n".join(
        [
            "## Run time: compiled graphs against numba JIT and NumPy",
            "",
            measured_by("bench_runtime.py")
            + f" Medians of {REPEATS} loops of ~{LOOP_SECONDS * 1e3:.0f} ms (one call where a call takes longer).",
            "",
            "Per-call time of each graph of the example project (the radon model's 8 variants left out: "
            "they share `radon_logp`'s Ops) at the sizes `example_project/run.py` uses, and of the NumPy "
            "programs in `bench/runtime_programs/` (float64, C-contiguous inputs, declared `[::1]` for "
            "aotbuild and numba alike). aotbuild host / generic: both projects built with `--target host` "
            "/ `generic`; host, --no-fuse: every Op on its own. numba njit: `numba.njit` of the same "
            "function with the same explicit signature, called once before timing. NumPy: the function "
            "itself (`np.linalg.det`/`slogdet` for the two kernels). Ops: the compiled Ops each graph "
            "calls, fused and not (a graph with any-layout matrices: those of its C-contiguous variant, "
            "which every call here runs). Each peer in a process of its own (aotbuild's with numba "
            "blocked), every result checked against NumPy's (`np.allclose`) before timing; then one "
            "loop at a "
            f"time, each peer in turn, {REPEATS} rounds per program, so load changes fall on all peers "
            "alike. BLAS single-threaded in every process (`OPENBLAS_NUM_THREADS=1`): on these 2 shared "
            "cores a second BLAS thread made a 256x128 @ 128x128 product ~30× slower, in every peer. "
            f"The builds took {figures['build_seconds']:.0f} s (3 builds of both projects, one object "
            f"cache); the 1-minute load average was {figures['load']:.2f} when the timing started. "
            "Ratios above 1: aotbuild host is faster. Bold: elementwise-heavy (at least four "
            "elementwise steps per element, at most one reduction, at the end).",
            "",
            *table(figures),
            "",
            *means(figures),
            "",
            *verdicts(figures),
            "",
            "Why the programs that lose do (read in their generated Op modules, `aotbuild inspect`):",
            "",
            *findings(figures),
            "",
            "numba's JIT does not compile these as written (a dash above):",
            "",
            *numba_failures(figures),
            "",
            "(`mlp`: numba types the loop variable `activations` as the argument `x`, declared "
            "`float32[:, :]`, joined with the layers' C-contiguous results: layout A, which it cannot "
            "return as the declared `float32[:, ::1]`.)",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", nargs=2, metavar=("PEER", "WORK"))
    options = parser.parse_args()
    if options.serve:
        peer, root = options.serve
        if peer in BUILDS:
            sys.modules["numba"] = sys.modules["llvmlite"] = None  # type: ignore[assignment]
        serve(peer, Work(Path(root)))
        return
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aotbuild-bench-runtime-") as folder:
        text = section(measure_all(Work(Path(folder))))
    print(text)
    write_section("bench_runtime", text)
    print(f"bench_runtime.py: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
