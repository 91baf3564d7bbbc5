"""Builds side by side: aotbuild against numba's JIT, numba's cache, numba.pycc, NumPy and
PyTensor's numba backend, all measured in one run.

Workloads (see ``workloads.py``):

* **example**: ``example_project/`` (17 graphs: elementwise, reductions, kernels, the radon model
  and its 8 variants, an MLP, an image pipeline);
* **generated**: 50 graphs composed from 8 shared blocks, 2 kernels, and a chain of 100
  applications of one ``@aotbuild.subgraph`` layer, written into a temporary folder;
* **radon**: the radon model's logp+gradient and its 8 variants, against PyTensor's numba
  backend installed in a venv of its own (PyTensor pins an older numba than aotbuild's).

For each workload: aotbuild's cold build (empty object cache) at ``-j 2`` and ``-j 1``, its
no-change and one-graph-changed rebuilds, the peak memory of the build's whole process tree (it
forks compile workers), the shared object's size, the package's import time with numba blocked,
and per-call times; for the peers, the same where they have it. Run from the repository root:

    python bench/bench_builds.py                  # full run: writes BENCHMARKS.md
    python bench/bench_builds.py --repeats 1 --only example    # a quick look, still writes

Machines here are shared and noisy: every figure is a median over ``--repeats`` runs (call
times: over 7 repeats of a timed loop); compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import workloads
from common import (
    BENCH,
    REPO,
    WRITE_BYTECODE,
    Measured,
    export_head,
    folder_size,
    measure,
    measured_by,
    microseconds,
    write_section,
)


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    project: Path
    """The folder holding graphs.toml."""

    peer: str
    """The numba peer's module: the same functions under ``@njit``."""

    change: Callable[[Path, int | None], None]
    """Change one graph (differently for each int), or put it back (None)."""

    change_text: str


#: The tree measured: commit HEAD as ``git archive`` exports it (set by ``main``), so that others'
#: uncommitted edits in the checkout are not what the figures describe.
SOURCE = REPO


def prepare(work: Path, name: str) -> Workload:
    """A copy of the example project, or the generated one, in ``work``."""
    folder = work / name
    if name == "example":
        ignore = shutil.ignore_patterns("build", "__pycache__")
        shutil.copytree(SOURCE / "example_project", folder, ignore=ignore)
        title = "the example project (`example_project/`)"
        return Workload(
            name, title, folder, "numba_example", workloads.change_example, "normal_logp's `-0.5`"
        )
    workloads.write_generated(folder)
    title = (
        f"a generated project: {workloads.N_GRAPHS} graphs from 8 shared blocks, 2 kernels, "
        f"a chain of {workloads.CHAIN_LENGTH} calls of one subgraph layer"
    )
    change = f"a factor on graph_{workloads.CHANGED_GRAPH:02d}'s result"
    return Workload(name, title, folder, "model_njit", workloads.change_generated, change)


def python_env(**extra: str) -> dict[str, str]:
    """The environment of every child: aotbuild and the bench modules importable."""
    return {"PYTHONPATH": os.pathsep.join([str(SOURCE), str(BENCH)]), **extra}


def median_measured(samples: list[Measured]) -> dict[str, float]:
    """Medians; also the fastest run, the one the machine's other users disturbed least; and,
    for builds run with ``--timings``, the compile of one Op: the slowest one's and the
    average."""
    figures = {
        "seconds": statistics.median(s.seconds for s in samples),
        "fastest": min(s.seconds for s in samples),
        "rss_mib": statistics.median(s.rss_mib for s in samples),
        "pss_mib": statistics.median(s.pss_mib for s in samples),
    }
    timed = [timings for s in samples if (timings := op_timings(s.error_output)) is not None]
    if len(timed) == len(samples):
        figures["slowest_op"] = statistics.median(slowest for slowest, _ in timed)
        figures["per_op"] = statistics.median(average for _, average in timed)
    return figures


def op_timings(report: str) -> tuple[float, float] | None:
    """From aotbuild's ``--timings`` report, the slowest Op's compile and the average over the
    Ops compiled, in seconds."""
    heading = re.search(
        r"the slowest of (\d+) compiled Ops \(([\d.]+) s of compile in all\):\n\s*([\d.]+) s", report
    )
    if heading is None:
        return None
    count, total, slowest = int(heading[1]), float(heading[2]), float(heading[3])
    return slowest, total / count


# --- aotbuild -------------------------------------------------------------------------------


def aotbuild_command(workload: Workload, jobs: int) -> list[str]:
    toml = workload.project / "graphs.toml"
    return [sys.executable, "-m", "aotbuild", "compile", str(toml), "-j", str(jobs), "-q", "--timings"]


def cold_builds(workload: Workload, work: Path, repeats: int) -> dict[int, dict[str, float]]:
    """Builds from an empty object cache and no previous package, at ``-j 2`` and ``-j 1`` in
    turn (alternating which goes first), so a drift in the machine's load hits both."""
    samples: dict[int, list[Measured]] = {2: [], 1: []}
    for repeat in range(repeats):
        for jobs in (2, 1) if repeat % 2 == 0 else (1, 2):
            cache = work / f"cache-{workload.name}-cold-j{jobs}-{repeat}"
            shutil.rmtree(workload.project / "build", ignore_errors=True)
            env = python_env(AOTBUILD_CACHE_DIR=str(cache))
            samples[jobs].append(measure(aotbuild_command(workload, jobs), env))
            shutil.rmtree(cache)
    return {jobs: median_measured(runs) for jobs, runs in samples.items()}


def rebuilds(workload: Workload, cache: Path, repeats: int) -> dict:
    """The no-change rebuild, and the rebuild after one graph changed (a new change each time,
    so it compiles even though the cache is warm; put back and rebuilt, untimed, after each)."""
    env = python_env(AOTBUILD_CACHE_DIR=str(cache))
    command = aotbuild_command(workload, 2)
    # the package and the cache, from which the rebuilds start; the cold builds' package goes
    # first, else this build finds its inputs unchanged, does nothing and leaves the cache empty
    shutil.rmtree(workload.project / "build", ignore_errors=True)
    measure(command, env)
    cache_bytes, cache_files = folder_size(cache)  # before the changes add their objects
    unchanged = [measure(command, env) for _ in range(repeats)]
    changed = []
    for repeat in range(repeats):
        workload.change(workload.project, repeat)
        changed.append(measure(command, env))
        workload.change(workload.project, None)
        measure(command, env)
    return {
        "unchanged": median_measured(unchanged),
        "changed": median_measured(changed),
        "cache_bytes": cache_bytes,
        "cache_files": cache_files,
    }


IMPORT = """
import json, sys, time
sys.modules["numba"] = None; sys.modules["llvmlite"] = None
sys.path.insert(0, {path!r})
import numpy  # every peer needs it: not part of the figure
started = time.perf_counter()
import {name}
print(json.dumps({{"import": time.perf_counter() - started}}))
"""


def import_seconds(package_dir: Path, name: str, repeats: int) -> float:
    """The import's median over new processes, from cached bytecode as an installed package has
    it (a first run writes it where PYTHONDONTWRITEBYTECODE is set for every process)."""
    code = IMPORT.format(path=str(package_dir), name=name)
    measure([sys.executable, "-c", code], WRITE_BYTECODE)
    samples = [
        measure([sys.executable, "-c", code], WRITE_BYTECODE).last_line for _ in range(max(5, repeats))
    ]
    return statistics.median(json.loads(sample)["import"] for sample in samples)


def aotbuild_figures(workload: Workload, work: Path, repeats: int) -> dict:
    cold = cold_builds(workload, work, repeats)
    figures: dict = {"cold_j2": cold[2], "cold_j1": cold[1]}
    cache = work / f"cache-{workload.name}"
    figures.update(rebuilds(workload, cache, repeats))
    package = workload.project / "build" / f"{workload.name}_ext"
    manifest = json.loads((package / "manifest.json").read_text())
    figures["graphs"], figures["ops"] = len(manifest["graphs"]), len(manifest["ops"])
    figures["so_bytes"] = next(package.glob("_native*")).stat().st_size
    figures["import"] = import_seconds(package.parent, package.name, repeats)
    return figures


# --- numba: JIT, cache=True, pycc -----------------------------------------------------------


def jit_run(workload: Workload, cache_dir: Path | None) -> tuple[Measured, dict[str, float]]:
    command = [
        sys.executable,
        str(BENCH / "jit_compile.py"),
        workload.name,
        str(workload.project),
        workload.peer,
    ]
    env = python_env()
    if cache_dir is not None:
        env.update(NUMBA_PEER_CACHE="1", NUMBA_CACHE_DIR=str(cache_dir))
    measured = measure(command, env)
    return measured, json.loads(measured.last_line)


def jit_samples(workload: Workload, cache_dir: Path | None, repeats: int) -> dict[str, float]:
    """JIT in new processes: wall time and peak memory, and the first calls' seconds inside."""
    runs = [jit_run(workload, cache_dir) for _ in range(repeats)]
    figures = median_measured([measured for measured, _ in runs])
    for key in runs[0][1]:
        figures[key] = statistics.median(inside[key] for _, inside in runs)
    return figures


def numba_figures(workload: Workload, work: Path, repeats: int) -> dict:
    """numba's JIT cold; with ``cache=True``, cold (filling a fresh cache) and warm."""
    figures = {"jit": jit_samples(workload, None, repeats)}
    fills, warm_caches = [], []
    for repeat in range(repeats):
        cache_dir = work / f"numba-cache-{workload.name}-{repeat}"
        fills.append(jit_run(workload, cache_dir))
        warm_caches.append(cache_dir)
    figures["cache_cold"] = median_measured([measured for measured, _ in fills])
    figures["cache_cold"]["first_calls"] = statistics.median(inside["first_calls"] for _, inside in fills)
    figures["cache_warm"] = jit_samples(workload, warm_caches[0], repeats)
    figures["cache_bytes"], figures["cache_files"] = folder_size(warm_caches[0])
    return figures


def pycc_figures(workload: Workload, work: Path) -> dict:
    """pycc compiles all or nothing: the graphs it can compile are found first (untimed)."""
    script, toml = str(BENCH / "pycc_build.py"), str(workload.project / "graphs.toml")
    probe = measure([sys.executable, script, "probe", toml, workload.peer], python_env())
    graphs = json.loads(probe.last_line)
    out = work / f"pycc-{workload.name}"
    name = f"{workload.name}_pycc"
    built = measure(
        [sys.executable, script, "build", toml, workload.peer, str(out), name, ",".join(graphs)], python_env()
    )
    return {
        "graphs": graphs,
        "build": {"seconds": built.seconds, "rss_mib": built.rss_mib, "pss_mib": built.pss_mib},
        "so_bytes": next(out.glob(f"{name}*")).stat().st_size,
        "dir": out,
    }


def call_figures(workload: Workload, pycc_dir: Path) -> dict[str, dict[str, float | None]]:
    package_dir = workload.project / "build"
    args = [workload.name, str(workload.project), str(package_dir), str(pycc_dir), workload.peer]
    measured = measure([sys.executable, str(BENCH / "call_times.py"), *args], python_env())
    return json.loads(measured.last_line)


# --- tables ---------------------------------------------------------------------------------


def seconds(value: float) -> str:
    return f"{value:.1f} s" if value >= 1 else f"{value * 1e3:.0f} ms"


def ratio(peer: float | None, aotbuild: float) -> str:
    return "" if peer is None or not aotbuild else f" ({peer / aotbuild:.2f}×)"


def size(value: float) -> str:
    return f"{value / 1024:,.0f} KB" if value < 10 * 1024 * 1024 else f"{value / 1024 / 1024:.1f} MB"


def memory(figures: dict[str, float]) -> str:
    return f"{figures['pss_mib']:.0f} / {figures['rss_mib']:.0f} MiB"


def op_figure(figures: dict, name: str) -> str:
    return seconds(figures[name]) if name in figures else "not reported"


def build_table(workload: Workload, aot: dict, nb: dict, pycc: dict) -> list[str]:
    cold, j1 = aot["cold_j2"], aot["cold_j1"]
    jit, filled, warm = nb["jit"], nb["cache_cold"], nb["cache_warm"]
    changed = aot["changed"]["seconds"]
    n_pycc = len(pycc["graphs"])
    return [
        f"| build ({aot['graphs']} graphs, {aot['ops']} Ops) | aotbuild | numba JIT | numba cache=True "
        f"| numba.pycc ({n_pycc} graphs) |",
        "|---|---|---|---|---|",
        f"| cold: whole process, empty cache (aotbuild `-j 2`) | {seconds(cold['seconds'])} "
        f"| {seconds(jit['seconds'])}{ratio(jit['seconds'], cold['seconds'])} "
        f"| {seconds(filled['seconds'])}{ratio(filled['seconds'], cold['seconds'])} "
        f"| {seconds(pycc['build']['seconds'])}{ratio(pycc['build']['seconds'], cold['seconds'])} |",
        f"| cold, compiling only (JIT: the first calls) | | {seconds(jit['first_calls'])} "
        f"| {seconds(filled['first_calls'])} | |",
        f"| aotbuild `-j 1` cold | {seconds(j1['seconds'])}: `-j 2` takes {cold['seconds'] / j1['seconds']:.0%} "
        f"of it (fastest runs: {seconds(cold['fastest'])} and {seconds(j1['fastest'])}, "
        f"{cold['fastest'] / j1['fastest']:.0%}) | | | |",
        f"| compile of one Op (aotbuild's `--timings`): the slowest at `-j 2`; the average at `-j 1` "
        f"| {op_figure(cold, 'slowest_op')}; {op_figure(j1, 'per_op')} | | | |",
        f"| nothing changed: aotbuild rebuild; numba's warm cache, new process | "
        f"{seconds(aot['unchanged']['seconds'])} | | {seconds(warm['seconds'])}"
        f"{ratio(warm['seconds'], aot['unchanged']['seconds'])} (first calls {seconds(warm['first_calls'])}) | |",
        f"| one graph changed ({workload.change_text}) | {seconds(changed)} "
        f"({changed / cold['seconds']:.0%} of cold) | | | |",
        f"| peak memory, PSS / RSS summed over the process tree | {memory(cold)} (`-j 1`: {memory(j1)}) "
        f"| {memory(jit)} | {memory(filled)} | {memory(pycc['build'])} |",
        f"| artifact | `.so` {size(aot['so_bytes'])}; object cache {size(aot['cache_bytes'])} "
        f"in {aot['cache_files']} files | | cache dir {size(nb['cache_bytes'])} in {nb['cache_files']} files "
        f"| `.so` {size(pycc['so_bytes'])} |",
        f"| import in a new process (numba: `import numba` + the module) | {microseconds(aot['import'])} "
        f"| {microseconds(jit['import_numba'] + jit['import_module'])} "
        f"| {microseconds(warm['import_numba'] + warm['import_module'])} | |",
    ]


def call_table(calls: dict[str, dict[str, float | None]], group_generated: bool) -> list[str]:
    """Per-call medians; the generated workload's 50 composed graphs summed into one row."""
    peers = ["aotbuild", "numba JIT", "numba.pycc", "NumPy"]
    rows = dict(calls)
    if group_generated:
        composed = [case for case in calls if case.startswith("graph_")]
        rows = {f"graph_00 … graph_{len(composed) - 1:02d}, one call each (sum)": _summed(calls, composed)}
        rows.update({case: figures for case, figures in calls.items() if case not in composed})
    lines = [
        "| per call (median) | aotbuild | numba JIT | numba.pycc | NumPy |",
        "|---|---|---|---|---|",
    ]
    for case, figures in rows.items():
        aot = figures["aotbuild"]
        assert aot is not None
        cells = [microseconds(aot)]
        for peer in peers[1:]:
            value = figures[peer]
            cells.append("—" if value is None else microseconds(value) + ratio(value, aot))
        lines.append(f"| {case} | " + " | ".join(cells) + " |")
    return lines


def _summed(calls: dict, cases: list[str]) -> dict[str, float | None]:
    summed: dict[str, float | None] = {}
    for peer in next(iter(calls.values())):
        values = [calls[case][peer] for case in cases]
        summed[peer] = None if None in values else sum(values)
    return summed


def workload_section(workload: Workload, aot: dict, nb: dict, pycc: dict, calls: dict, header: str) -> str:
    lines = [
        f"## Builds: {workload.title}",
        "",
        header,
        "Ratios in parentheses: the peer's figure ÷ aotbuild's (above 1: aotbuild is faster or smaller).",
        "",
        *build_table(workload, aot, nb, pycc),
        "",
        *call_table(calls, group_generated=workload.name == "generated"),
        "",
        *notes(workload, aot, pycc, calls),
    ]
    return "\n".join(lines)


def notes(workload: Workload, aot: dict, pycc: dict, calls: dict) -> list[str]:
    peer = "bench/numba_example.py" if workload.name == "example" else "the generated `model_njit.py`"
    missing = [graph for graph in calls if not graph.startswith("tiny") and graph not in pycc["graphs"]]
    return [
        f"- numba JIT: the same functions under `@njit` ({peer}); a whole process includes Python's "
        'start, `import numba` and the module, "compiling only" is the first call of every graph.',
        f"- numba.pycc exports the graphs numba compiles with their declared signatures "
        f"({len(pycc['graphs'])} of {aot['graphs']}; not {', '.join(missing) or '—'}: numba types their "
        "result differently, e.g. float64 for `float32 / 9.0`, or an any-layout array where C order is "
        "declared).",
        "- Peak memory: PSS summed over the build's process tree (shared pages split between the "
        "processes sharing them: what the tree really holds; sampled every 0.5 s) / RSS summed (a page "
        "shared by forked workers counted in each; every 50 ms). aotbuild `-j 2` runs the build, a "
        "fork server that has imported numba, and two workers forked from it.",
        "- NumPy: the function as written; for kernels NumPy's equivalent where it has one "
        "(`np.linalg.det`, `slogdet`, `np.maximum.accumulate`), else the Python loop.",
    ]


# --- main -----------------------------------------------------------------------------------


def run_workload(name: str, work: Path, repeats: int, header: str) -> str:
    workload = prepare(work, name)
    started = time.perf_counter()
    aot = aotbuild_figures(workload, work, repeats)
    nb = numba_figures(workload, work, repeats)
    pycc = pycc_figures(workload, work)
    calls = call_figures(workload, pycc["dir"])
    print(f"{name}: measured in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return workload_section(workload, aot, nb, pycc, calls, header)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per build figure (median)")
    parser.add_argument("--only", default="example,generated,radon", help="comma-separated workloads")
    options = parser.parse_args()
    started = time.perf_counter()
    command = " ".join(["bench_builds.py", *sys.argv[1:]])
    header = measured_by(command) + f" Figures are medians of {options.repeats} runs."
    global SOURCE
    with tempfile.TemporaryDirectory(prefix="aotbuild-bench-builds-") as folder:
        work = Path(folder)
        SOURCE = work / "src"
        export_head(SOURCE)
        for name in options.only.split(","):
            if name == "radon":
                import radon_peers

                radon_peers.SOURCE = SOURCE
                text = radon_peers.section(work, options.repeats, header)
            else:
                text = run_workload(name, work, options.repeats, header)
            print(text + "\n")
            write_section(f"bench_builds_{name}", text)
    print(f"bench_builds.py: {time.perf_counter() - started:.0f} s in all", file=sys.stderr)


if __name__ == "__main__":
    main()
