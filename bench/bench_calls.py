"""Call overhead, threads and memory: aotbuild's C entry against numba's dispatcher, numba.pycc and a
plain Python call, and what a million calls leave behind, measured in one run.

Why: a graph is a ``METH_FASTCALL`` C function that checks its arguments and calls compiled code
directly, where numba's dispatcher matches argument types at every call (and, under cProfile,
makes a Python frame for the profiler). This measures what that saves, on calls that do almost no
work, plainly and under cProfile, and whether ``nogil = true`` lets threads run graphs in parallel.

1. **Calls**: kernels taking 1, 4 or 8 float64 arrays of 8 elements, (a) returning a scalar (the
   sum of the arrays' first elements), (b) returning a new 8-element array (their elementwise
   sum). Peers: the aotbuild package; ``numba.njit`` with the same explicit signature (called
   once before timing); ``numba.pycc`` exporting the same functions and signatures; a plain Python
   function with the same parameters that returns 0.0 — the floor of any Python-level call.
   "Overhead" is a peer's time minus the floor's.
2. **Threads**: a kernel doing ~200,000 ``sin * cos`` per call, declared twice (``nogil = true``
   and not) and as ``numba.njit(nogil=True)``; a fixed total of calls spread over 1, 2, 4 and 8
   threads of a ``ThreadPoolExecutor``.
3. **Memory**: a million calls each of graphs that allocate — a kernel and a traced graph returning
   a new 8-element array, a kernel raising an exception with run-time values
   (``ValueError("bad", i, x[0])``) and one raising a static exception — in a fresh process per
   graph, with the runtime's allocation counters on. Why: docs/package.md promises that the runtime
   frees every array and exception it allocates; a leak of a few bytes per call hides in a test of
   thousands of calls but shows in the RSS after a million. Read before the calls, after 100,000
   (the warm-up: allocator pools, interned objects) and every 250,000: the RSS (``/proc/self/statm``),
   the counters and the interpreter's allocated blocks (``sys.getallocatedblocks``: a leaked Python
   object shows there before it shows in the RSS), each after ``gc.collect()``.

The code measured is commit HEAD as ``git archive HEAD`` exports it (others' uncommitted edits do
not count), first on ``PYTHONPATH`` for the build and for every measuring process, with an object
cache in the temp folder. Each peer is measured in a fresh process of its own (this script run
with ``--measure PEER``): the aotbuild process blocks numba, so numba's JIT state cannot disturb
it; so is each memory case (``--memory GRAPH``, numba blocked too). Each figure of the call tables
is the median of 7 repeats of a loop sized to take ~20 ms; the calls are timed by ``timeit`` on a
statement ``f(a0, a1, ...)``, so no lambda or ``*args`` sits between the loop and the call. Run
from the repository root:

    python bench/bench_calls.py          # writes its section into BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import importlib
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common import PAGE, export_head, measured_by, python, write_section

ARITIES = (1, 4, 8)
KINDS = ("scalar", "array")
SIZE = 8
SPIN_SIZE = 200_000
SPIN_CALLS = 32
THREADS = (1, 2, 4, 8)
REPEATS = 7
LOOP_SECONDS = 0.02
PEERS = ("python", "aotbuild", "numba", "pycc")
PACKAGE = "calls_ext"
PYCC = "calls_pycc"
TARGETS = {"plain": 1 / 4, "cProfile": 1 / 3}
"""The project's stated targets: aotbuild's overhead at most this fraction of numba's."""
MEMORY_GRAPHS = {
    "array_1": f"kernel → new {SIZE}-element array",
    "traced_array": f"traced `x * 2.0 + 1.0` → new {SIZE}-element array",
    "raise_values": 'kernel raising `ValueError("bad", i, x[0])`',
    "raise_static": 'kernel raising `ValueError("static message")`',
}
"""The graphs measured for memory (``array_1`` is also in the call tables), and how the table names them."""
MEMORY_CALLS = 1_000_000
MEMORY_READINGS = (0, 100_000, 250_000, 500_000, 750_000, MEMORY_CALLS)
"""After how many calls the memory is read; the second reading ends the warm-up."""
WARM_UP = MEMORY_READINGS[1]
MEASURED_CALLS = MEMORY_CALLS - WARM_UP
"""The calls after the warm-up: growth, allocations per call and time per call are over these."""
GROWTH_LIMITS = {"rss": 1 * 2**20, "blocks": 1_000}
"""Growth after the warm-up above which the section says, in bold, that memory grew: 1 MiB of RSS is
~1 byte per call over 900,000 calls; a Python object leaked per call would add 900,000 blocks."""


# --- the project --------------------------------------------------------------------------


def params(n: int) -> str:
    return ", ".join(f"a{i}" for i in range(n))


def signature(kind: str, n: int) -> str:
    result = "float64" if kind == "scalar" else "float64[:]"
    return f"{result}({', '.join(['float64[:]'] * n)})"


SPIN_SIGNATURE = "float64(float64[::1])"


def kernels_source() -> str:
    """The functions every peer compiles (or, for ``noop_N``, calls as they are)."""
    lines = ["import math", "", "import numpy as np", ""]
    for n in ARITIES:
        firsts = " + ".join(f"a{i}[0]" for i in range(n))
        elements = " + ".join(f"a{i}[k]" for i in range(n))
        lines += [
            f"def scalar_{n}({params(n)}):",
            f"    return {firsts}",
            "",
            f"def array_{n}({params(n)}):",
            "    out = np.empty(a0.shape[0])",
            "    for k in range(a0.shape[0]):",
            f"        out[k] = {elements}",
            "    return out",
            "",
            f"def noop_{n}({params(n)}):",
            "    return 0.0",
            "",
        ]
    lines += [
        "def traced_array(x):",
        "    return x * 2.0 + 1.0",
        "",
        "def raise_values(x, i):",
        "    if i >= 0:",
        '        raise ValueError("bad", i, x[0])',
        "    return x[0]",
        "",
        "def raise_static(x):",
        "    if x.shape[0] > 0:",
        '        raise ValueError("static message")',
        "    return 0.0",
        "",
        "def spin(x):",
        "    total = 0.0",
        "    for value in x:",
        "        total += math.sin(value) * math.cos(value)",
        "    return total",
    ]
    return "\n".join(lines) + "\n"


def graphs_toml() -> str:
    lines = ["[package]", f'name = "{PACKAGE}"', "", ""]
    for kind in KINDS:
        for n in ARITIES:
            lines += [
                f"[graphs.{kind}_{n}]",
                f'function = "kernels:{kind}_{n}"',
                f'signature = "{signature(kind, n)}"',
                'mode = "kernel"',
                "",
            ]
    for graph, nogil in (("spin_nogil", "true"), ("spin_gil", "false")):
        lines += [
            f"[graphs.{graph}]",
            'function = "kernels:spin"',
            f'signature = "{SPIN_SIGNATURE}"',
            'mode = "kernel"',
            f"nogil = {nogil}",
            "",
        ]
    for graph, graph_signature, mode in (
        ("traced_array", "float64[:](float64[:])", "trace"),
        ("raise_values", "float64(float64[:], int64)", "kernel"),
        ("raise_static", "float64(float64[:])", "kernel"),
    ):
        lines += [
            f"[graphs.{graph}]",
            f'function = "kernels:{graph}"',
            f'signature = "{graph_signature}"',
            f'mode = "{mode}"',
            "",
        ]
    return "\n".join(lines)


def build_pycc(project: Path, out: Path) -> list[str]:
    """Export every call kernel with numba.pycc into ``PYCC`` (run in a process of its own). pycc
    compiles all or nothing: if the whole module fails, each function gets a module of its own,
    so one that pycc cannot build costs only its own column entry. Returns the exported names."""
    import warnings

    from numba.pycc import CC

    warnings.simplefilter("ignore")  # pycc's deprecation warning
    sys.path.insert(0, str(project))
    kernels = importlib.import_module("kernels")
    names = [f"{kind}_{n}" for kind in KINDS for n in ARITIES]

    def compile_module(module: str, exported: list[str]) -> None:
        cc = CC(module)
        cc.output_dir = str(out)
        for name in exported:
            kind, n = name.split("_")
            cc.export(name, signature(kind, int(n)))(getattr(kernels, name))
        cc.compile()

    try:
        compile_module(PYCC, names)
        return names
    except Exception:
        built = []
        for name in names:
            try:
                compile_module(f"{PYCC}_{name}", [name])
                built.append(name)
            except Exception:
                continue
        return built


# --- measuring (in a process per peer) ----------------------------------------------------


def per_call(function: Callable, args: tuple, profile: bool) -> float:
    """Seconds per call: the median of ``REPEATS`` loops sized to ~``LOOP_SECONDS``, under a
    ``cProfile.Profile`` enabled around the loops when ``profile``."""
    arguments = {f"a{i}": value for i, value in enumerate(args)}
    timer = timeit.Timer(f"f({', '.join(arguments)})", globals={"f": function, **arguments})
    function(*args)
    profiler = cProfile.Profile()
    if profile:
        profiler.enable()
    try:
        number = 1
        while (seconds := timer.timeit(number)) < LOOP_SECONDS / 10:
            number *= 10
        number = max(1, int(number * LOOP_SECONDS / seconds))
        return statistics.median(timer.repeat(repeat=REPEATS, number=number)) / number
    finally:
        profiler.disable()


def thread_times(function: Callable, x: object) -> dict[int, float]:
    """Wall seconds of ``SPIN_CALLS`` calls spread over each number of threads: the median of
    ``REPEATS`` rounds, each round timing every number of threads in turn (so a change in the
    machine's load hits them alike); every pool's threads are started before the clock."""
    pools = {threads: ThreadPoolExecutor(threads) for threads in THREADS}
    runs: dict[int, list[float]] = {threads: [] for threads in THREADS}
    try:
        for threads, pool in pools.items():
            list(pool.map(function, [x] * threads))
        for _ in range(REPEATS):
            for threads, pool in pools.items():
                started = time.perf_counter()
                list(pool.map(function, [x] * SPIN_CALLS))
                runs[threads].append(time.perf_counter() - started)
    finally:
        for pool in pools.values():
            pool.shutdown()
    return {threads: statistics.median(seconds) for threads, seconds in runs.items()}


def peer_functions(peer: str, package_dir: Path, pycc_dir: Path, kernels) -> tuple[dict, dict]:
    """(call functions by name, spin functions by label) of one peer; a call function pycc could
    not build is None."""
    if peer == "python":
        return {f"{kind}_{n}": getattr(kernels, f"noop_{n}") for kind in KINDS for n in ARITIES}, {}
    if peer == "aotbuild":
        sys.path.insert(0, str(package_dir))
        package = importlib.import_module(PACKAGE)
        calls = {f"{kind}_{n}": getattr(package, f"{kind}_{n}") for kind in KINDS for n in ARITIES}
        spins = {"aotbuild, nogil = true": package.spin_nogil, "aotbuild, GIL held": package.spin_gil}
        return calls, spins
    if peer == "numba":
        import numba

        calls = {
            f"{kind}_{n}": numba.njit(signature(kind, n))(getattr(kernels, f"{kind}_{n}"))
            for kind in KINDS
            for n in ARITIES
        }
        return calls, {"numba njit(nogil=True)": numba.njit(SPIN_SIGNATURE, nogil=True)(kernels.spin)}
    sys.path.insert(0, str(pycc_dir))
    return {name: pycc_function(name) for name in (f"{kind}_{n}" for kind in KINDS for n in ARITIES)}, {}


def pycc_function(name: str) -> Callable | None:
    """``name`` from the pycc module of all call kernels, or from its own module (``build_pycc``'s
    fallback), or None where pycc could not build it."""
    for module in (PYCC, f"{PYCC}_{name}"):
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    return None


def measure_peer(peer: str, project: Path, package_dir: Path, pycc_dir: Path) -> dict:
    """Every figure of one peer, in this process. The results are checked against the plain
    Python functions first."""
    import numpy as np

    sys.path.insert(0, str(project))
    kernels = importlib.import_module("kernels")
    calls, spins = peer_functions(peer, package_dir, pycc_dir, kernels)
    rng = np.random.default_rng(0)
    arrays = tuple(rng.normal(size=SIZE) for _ in range(max(ARITIES)))
    figures: dict = {"calls": {}, "threads": {}}
    for name, function in calls.items():
        kind, n = name.split("_")
        args = arrays[: int(n)]
        if function is None:
            figures["calls"][name] = None
            continue
        if peer != "python":
            assert np.allclose(function(*args), getattr(kernels, name)(*args)), (peer, name)
        figures["calls"][name] = {mode: per_call(function, args, mode == "cProfile") for mode in TARGETS}
    x = np.ascontiguousarray(rng.uniform(0, 10, size=SPIN_SIZE))
    for label, function in spins.items():
        assert np.isclose(function(x), kernels.spin(x)), label
        figures["threads"][label] = thread_times(function, x)
    return figures


def call_loop(graph: str, function: Callable, x: object) -> Callable[[int, int], int]:
    """A loop making calls ``start`` to ``stop - 1`` of ``graph``; returns how many raised. Written
    out per kind of graph so that nothing (no lambda, no ``*args``) sits between the loop and the
    call. A raising graph's exception is caught and counted, as a caller handling it would, so the
    count also checks that every call raised."""
    if graph == "raise_values":

        def loop(start: int, stop: int) -> int:
            raised = 0
            for i in range(start, stop):
                try:
                    function(x, i)
                except ValueError:
                    raised += 1
            return raised

    elif graph == "raise_static":

        def loop(start: int, stop: int) -> int:
            raised = 0
            for _ in range(start, stop):
                try:
                    function(x)
                except ValueError:
                    raised += 1
            return raised

    else:

        def loop(start: int, stop: int) -> int:
            for _ in range(start, stop):
                function(x)
            return 0

    return loop


def check_memory_graph(graph: str, function: Callable, x, kernels) -> None:
    """One call of ``graph`` gives what its Python function gives (the same exception and args for
    the raising ones), so the million calls measure the right thing."""
    import numpy as np

    if not graph.startswith("raise_"):
        assert np.allclose(function(x), getattr(kernels, graph)(x)), graph
        return
    args = (x, 7) if graph == "raise_values" else (x,)
    expected = ("bad", 7, x[0]) if graph == "raise_values" else ("static message",)
    try:
        function(*args)
    except ValueError as error:
        assert error.args == expected, (graph, error.args)
    else:
        raise AssertionError(f"{graph} did not raise")


def memory_reading(calls: int, allocations: Callable[[], dict]) -> dict:
    """The process's memory after ``calls`` calls, garbage collected first (a cycle the collector
    would free is not a leak): RSS in bytes, the interpreter's allocated blocks, and the runtime's
    counters."""
    gc.collect()
    with open("/proc/self/statm") as statm:
        rss = int(statm.read().split()[1]) * PAGE
    return {"calls": calls, "rss": rss, "blocks": sys.getallocatedblocks(), **allocations()}


def measure_memory(graph: str, project: Path, package_dir: Path) -> dict:
    """``MEMORY_CALLS`` calls of ``graph`` in this process (numba blocked), with the allocation
    counters on from before the first call: a reading at each of ``MEMORY_READINGS``, and the
    seconds the calls after the warm-up took (the readings between them not counted)."""
    import numpy as np

    sys.path[:0] = [str(project), str(package_dir)]
    kernels = importlib.import_module("kernels")
    package = importlib.import_module(PACKAGE)
    native, function = package._native, getattr(package, graph)
    x = np.random.default_rng(0).normal(size=SIZE)
    native._count_allocations(True)
    check_memory_graph(graph, function, x, kernels)
    loop = call_loop(graph, function, x)
    readings = [memory_reading(0, native._allocations)]
    seconds = 0.0
    for start, stop in itertools.pairwise(MEMORY_READINGS):
        started = time.perf_counter()
        raised = loop(start, stop)
        if start >= WARM_UP:
            seconds += time.perf_counter() - started
        assert raised == (stop - start if graph.startswith("raise_") else 0), (graph, raised)
        readings.append(memory_reading(stop, native._allocations))
    return {"readings": readings, "seconds": seconds}


# --- the run ------------------------------------------------------------------------------


def measure_all(work: Path) -> dict:
    source = work / "src"
    commit = export_head(source)
    os.environ["BENCH_COMMIT"] = commit  # for measured_by()
    project = work / "project"
    project.mkdir()
    (project / "kernels.py").write_text(kernels_source())
    (project / "graphs.toml").write_text(graphs_toml())
    package_dir, pycc_dir = work / "package", work / "pycc"
    env = {"PYTHONPATH": str(source), "AOTBUILD_CACHE_DIR": str(work / "cache")}
    toml = str(project / "graphs.toml")
    python(["-m", "aotbuild", "compile", toml, "--out", str(package_dir), "-q"], env)
    script = str(Path(__file__).resolve())
    pycc_built = json.loads(python([script, "--pycc", str(project), str(pycc_dir)], env))
    print(f"pycc built: {pycc_built}", file=sys.stderr)
    figures: dict = {"load": os.getloadavg()[0]}
    for peer in PEERS:
        arguments = [script, "--measure", peer, str(project), str(package_dir), str(pycc_dir)]
        figures[peer] = json.loads(python(arguments, env).strip().splitlines()[-1])
        print(f"{peer}: measured", file=sys.stderr)
    figures["memory"] = {}
    for graph in MEMORY_GRAPHS:
        arguments = [script, "--memory", graph, str(project), str(package_dir)]
        figures["memory"][graph] = json.loads(python(arguments, env).strip().splitlines()[-1])
        print(f"memory, {graph}: measured", file=sys.stderr)
    return figures


# --- the section --------------------------------------------------------------------------


def us(seconds: float | None, sign: bool = False) -> str:
    if seconds is None:
        return "—"
    return f"{seconds * 1e6:+.3f} µs" if sign else f"{seconds * 1e6:.3f} µs"


def ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None else f"{a / b:.2f}"


def calls_table(figures: dict, mode: str) -> tuple[list[str], list[float]]:
    """The rows of one call table, and aotbuild's overhead ÷ numba's for each case."""
    lines = [
        f"| per call, {'plain' if mode == 'plain' else 'under cProfile'} | plain Python (floor) | aotbuild "
        "| numba njit | numba.pycc | aotbuild ÷ njit | overhead: aotbuild | overhead: njit "
        "| overhead: pycc | overhead aotbuild ÷ njit |",
        "|---" * 10 + "|",
    ]
    overhead_ratios = []
    for kind in KINDS:
        for n in ARITIES:
            name = f"{kind}_{n}"
            time_of = {
                peer: (figures[peer]["calls"][name] or {}).get(mode) for peer in PEERS
            }  # None: not built
            floor = time_of["python"]
            over = {p: None if time_of[p] is None else time_of[p] - floor for p in PEERS if p != "python"}
            overhead_ratios.append(over["aotbuild"] / over["numba"])
            what = "scalar" if kind == "scalar" else f"{SIZE}-element array"
            lines.append(
                f"| {n} array{'s' if n > 1 else ''} → {what} | {us(floor)} | {us(time_of['aotbuild'])} "
                f"| {us(time_of['numba'])} | {us(time_of['pycc'])} "
                f"| {ratio(time_of['aotbuild'], time_of['numba'])} | {us(over['aotbuild'], True)} "
                f"| {us(over['numba'], True)} | {us(over['pycc'], True)} "
                f"| {ratio(over['aotbuild'], over['numba'])} |"
            )
    return lines, overhead_ratios


def target_sentence(mode: str, ratios: list[float]) -> str:
    target = TARGETS[mode]
    met = sum(r <= target for r in ratios)
    where = "plainly" if mode == "plain" else "under cProfile"
    verdict = "met" if met == len(ratios) else "not met" if met == 0 else "met in part"
    return (
        f"Target {where}: aotbuild's overhead at most 1/{round(1 / target)} ({target:.2f}) of numba's "
        f"dispatcher's — **{verdict}**: {met} of {len(ratios)} cases, overhead ratios "
        f"{min(ratios):.2f} to {max(ratios):.2f} (median {statistics.median(ratios):.2f})."
    )


def profiler_sentence(figures: dict) -> str:
    """What cProfile adds to each peer's call (the median over the six cases)."""
    added = {
        peer: statistics.median(
            value["cProfile"] - value["plain"] for value in figures[peer]["calls"].values() if value
        )
        for peer in PEERS
    }
    names = {
        "python": "the plain Python call",
        "aotbuild": "aotbuild",
        "numba": "numba njit",
        "pycc": "numba.pycc",
    }
    listed = ", ".join(f"{names[peer]} {us(seconds, True)}" for peer, seconds in added.items())
    text = f"cProfile adds per call (median of the six cases): {listed}."
    if added["aotbuild"] < added["python"]:
        text += (
            " The profiler records a call of a C function (an aotbuild graph) more cheaply than a call of"
            " a Python function, so under cProfile aotbuild's overhead over the floor can come out"
            " near zero or negative."
        )
    return text


def threads_table(figures: dict) -> list[str]:
    spins = {**figures["aotbuild"]["threads"], **figures["numba"]["threads"]}
    lines = [
        f"| {SPIN_CALLS} calls of `spin`, wall time (speed-up over 1 thread) | "
        + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in THREADS)
        + " |",
        "|---" * (len(THREADS) + 1) + "|",
    ]
    for label, times in spins.items():
        one = times["1"]
        cells = [f"{times[str(t)] * 1e3:.1f} ms ({one / times[str(t)]:.2f}×)" for t in THREADS]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def threads_sentence(figures: dict) -> str:
    spins = {**figures["aotbuild"]["threads"], **figures["numba"]["threads"]}
    best = {label: max(times["1"] / times[str(t)] for t in THREADS[1:]) for label, times in spins.items()}
    listed = ", ".join(f"{label} {speedup:.2f}×" for label, speedup in best.items())
    text = (
        f"Best speed-up over 1 thread: {listed}. With {os.cpu_count()} cores a graph that releases the "
        "GIL can approach 2×; one that holds it stays near 1× however many threads call it."
    )
    if best["numba njit(nogil=True)"] < 1.3:
        text += (
            " numba's nogil peer did not speed up either: the second core was busy with other work"
            " during this run, so this table shows nothing about nogil; run it again on a quiet machine."
        )
    return text


def outstanding(reading: dict) -> int:
    """Runtime allocations not freed: blocks (meminfos, exception payloads) and their data."""
    return reading["alloc"] - reading["free"] + reading["mi_alloc"] - reading["mi_free"]


def warm_and_end(figures: dict) -> tuple[dict, dict]:
    """A memory case's readings after the warm-up and at the end."""
    return figures["readings"][MEMORY_READINGS.index(WARM_UP)], figures["readings"][-1]


def mib(size: float) -> str:
    return f"{size / 2**20:.2f} MiB"


def kib(size: float) -> str:
    return f"{size / 2**10:+,.0f} KiB"


def memory_table(memory: dict) -> list[str]:
    after = ", ".join(f"{calls // 1000}k" for calls in MEMORY_READINGS[2:-1])
    lines = [
        f"| graph | calls | RSS after {WARM_UP:,} (warm-up) | RSS at {MEMORY_CALLS:,} | RSS growth "
        f"| RSS after {after} | Python blocks growth | runtime allocations per call "
        "| outstanding allocations at the end | per call |",
        "|---" * 10 + "|",
    ]
    for graph, figures in memory.items():
        warm, end = warm_and_end(figures)
        between = " / ".join(f"{reading['rss'] / 2**20:.2f}" for reading in figures["readings"][2:-1])
        allocations = end["alloc"] + end["mi_alloc"] - warm["alloc"] - warm["mi_alloc"]
        lines.append(
            f"| `{graph}`: {MEMORY_GRAPHS[graph]} | {end['calls']:,} | {mib(warm['rss'])} "
            f"| {mib(end['rss'])} | {kib(end['rss'] - warm['rss'])} | {between} MiB "
            f"| {end['blocks'] - warm['blocks']:+,} | {allocations / MEASURED_CALLS:.2f} "
            f"| {outstanding(end):,} | {us(figures['seconds'] / MEASURED_CALLS)} |"
        )
    return lines


def memory_findings(figures: dict) -> list[str]:
    """What is wrong with one graph's memory, with its numbers: RSS or Python blocks grown past
    ``GROWTH_LIMITS`` after the warm-up, counters that do not balance at the end."""
    warm, end = warm_and_end(figures)
    rss, blocks = end["rss"] - warm["rss"], end["blocks"] - warm["blocks"]
    findings = []
    if rss > GROWTH_LIMITS["rss"]:
        findings.append(
            f"RSS grew {kib(rss)} over the {MEASURED_CALLS:,} calls after the warm-up "
            f"({rss / MEASURED_CALLS:.1f} bytes per call)"
        )
    if blocks > GROWTH_LIMITS["blocks"]:
        findings.append(f"Python memory blocks grew {blocks:+,} ({blocks / MEASURED_CALLS:.2f} per call)")
    if outstanding(end) != 0:
        findings.append(
            f"the counters do not balance: {outstanding(end):,} allocations outstanding "
            f"(alloc {end['alloc']:,}, free {end['free']:,}, mi_alloc {end['mi_alloc']:,}, "
            f"mi_free {end['mi_free']:,})"
        )
    return findings


def memory_sentences(memory: dict) -> list[str]:
    """What the memory table shows: first, in bold, every graph that grew or does not balance;
    then the graphs that stayed flat; then whether the runtime's own allocations balance."""
    findings = {graph: memory_findings(figures) for graph, figures in memory.items()}
    sentences = [
        f"**Memory grew: `{graph}`** ({MEMORY_GRAPHS[graph]}): " + "; ".join(found) + "."
        for graph, found in findings.items()
        if found
    ]
    flat = [f"`{graph}`" for graph, found in findings.items() if not found]
    if flat:
        sentences.append(
            f"Flat: {', '.join(flat)} — RSS within {mib(GROWTH_LIMITS['rss'])} and Python blocks within "
            f"{GROWTH_LIMITS['blocks']:,} over the {MEASURED_CALLS:,} calls after the warm-up."
        )
    if all(outstanding(figures["readings"][-1]) == 0 for figures in memory.values()):
        sentences.append(
            "The runtime's counters balance for every graph (0 outstanding): every array and exception "
            "payload the runtime allocated was freed; Python objects (boxed exception args, say) are "
            "not counted there, only in the RSS and the Python blocks."
        )
    return sentences


def section(figures: dict) -> str:
    plain, plain_ratios = calls_table(figures, "plain")
    profiled, profiled_ratios = calls_table(figures, "cProfile")
    missing = [name for name, value in figures["pycc"]["calls"].items() if value is None]
    pycc_note = (
        f"numba.pycc could not build {', '.join(missing)} (a dash)."
        if missing
        else "numba.pycc built every variant."
    )
    return "\n".join(
        [
            "## Calls, threads and memory",
            "",
            measured_by("bench_calls.py") + f" Medians of {REPEATS} loops of ~20 ms.",
            "",
            f'Call overhead: `mode = "kernel"` graphs taking 1, 4 or 8 float64 arrays of {SIZE} '
            "elements (`float64[:]`), returning a scalar (the sum of the first elements) or a new "
            f"{SIZE}-element array (the elementwise sum). numba njit: the same function and explicit "
            "signature; numba.pycc: the same, exported; plain Python: a function with the same "
            "parameters returning 0.0, the floor of a Python-level call. Overhead: a peer's time minus "
            "the floor's. Each peer in a fresh process of its own (aotbuild's with numba blocked).",
            "",
            *plain,
            "",
            *profiled,
            "",
            "- " + target_sentence("plain", plain_ratios),
            "- " + target_sentence("cProfile", profiled_ratios),
            "- " + profiler_sentence(figures),
            f"- {pycc_note} Under cProfile the loop's profiler cost is in every column, the floor's "
            "included; numba's dispatcher also reports each call to the profiler as a Python call.",
            "",
            f"Threads: `spin(x)` sums `math.sin(v) * math.cos(v)` over a C-contiguous float64 array of "
            f"{SPIN_SIZE:,} elements (`{SPIN_SIGNATURE}`), declared twice — `nogil = true` and not — "
            f"and compiled by `numba.njit(nogil=True)`; {SPIN_CALLS} calls in all, spread over a "
            f"`ThreadPoolExecutor` of 1 to 8 threads on {os.cpu_count()} cores; each figure the median of "
            f"{REPEATS} rounds timing every thread count in turn. The machine is shared: its 1-minute "
            f"load average was {figures['load']:.2f} when the measurements started.",
            "",
            *threads_table(figures),
            "",
            threads_sentence(figures),
            "",
            f"Memory: {MEMORY_CALLS:,} calls of each graph below (`x` a float64 array of {SIZE} elements; "
            "`raise_values` also gets the call's number as `i`, so every exception carries new "
            "values), each graph in a fresh process of its own with numba blocked and the runtime's "
            "allocation counters on from before the first call (`_native._count_allocations(True)`; "
            "they cost an atomic add per allocation and free, included in the times). Exceptions are "
            f"caught and counted: every call raised. Read after {WARM_UP:,} calls (the warm-up), after "
            f"{', '.join(f'{calls:,}' for calls in MEMORY_READINGS[2:-1])} and at the end, each after "
            "`gc.collect()`: the RSS (`/proc/self/statm`), "
            "the interpreter's allocated blocks (`sys.getallocatedblocks()`) and the counters. "
            "Runtime allocations per call: alloc + mi_alloc after the warm-up, per call; outstanding: "
            "alloc − free + mi_alloc − mi_free. Per call: the calls after the warm-up, the loop's "
            "`for` (and `try`) included.",
            "",
            *memory_table(figures["memory"]),
            "",
            *(f"- {sentence}" for sentence in memory_sentences(figures["memory"])),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", nargs=4, metavar=("PEER", "PROJECT", "PACKAGE_DIR", "PYCC_DIR"))
    parser.add_argument("--pycc", nargs=2, metavar=("PROJECT", "OUT"))
    parser.add_argument("--memory", nargs=3, metavar=("GRAPH", "PROJECT", "PACKAGE_DIR"))
    options = parser.parse_args()
    if options.pycc:
        print(json.dumps(build_pycc(*map(Path, options.pycc))))
        return
    if options.measure:
        peer, *folders = options.measure
        if peer == "aotbuild":
            sys.modules["numba"] = sys.modules["llvmlite"] = None  # type: ignore[assignment]
        print(json.dumps(measure_peer(peer, *map(Path, folders))))
        return
    if options.memory:
        graph, *folders = options.memory
        sys.modules["numba"] = sys.modules["llvmlite"] = None  # type: ignore[assignment]
        print(json.dumps(measure_memory(graph, *map(Path, folders))))
        return
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aotbuild-bench-calls-") as folder:
        text = section(measure_all(Path(folder)))
    print(text)
    write_section("bench_calls", text)
    print(f"bench_calls.py: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
