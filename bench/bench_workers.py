"""Why compile workers are recycled, and how often: the measurements behind
``aotbuild.compile.workers.OPS_PER_WORKER``.

(a) Memory: numba and LLVM keep something of every function they compile. One process compiles
    the example project's Op modules several times over with ``compile_request`` (as a worker
    does) and reads its RSS from ``/proc/self/statm`` after each pass: the growth per compiled Op
    is what a worker that is never replaced accumulates.
(b) Time: a fresh worker is forked from a server that has imported numba and compiled once, but
    still costs something (fork, first-touch of copied pages, numba's per-process state). The
    example project is built cold at ``-j 2`` with ``OPS_PER_WORKER`` set to each of
    :data:`SETTINGS`; the difference in wall time over the difference in workers started is the
    price of one fresh worker. The peak memory of the build's process tree shows what recycling
    buys. On a shared machine that difference drowns in noise, so
(c) measures it directly: one small Op compiled 40 times through the pool, on a fresh worker
    each time or on the first two, in turns.

Run from the repository root:

    python bench/bench_workers.py             # writes its table into BENCHMARKS.md
    python bench/bench_workers.py --repeats 1 --passes 2      # quicker
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
from pathlib import Path

from common import REPO, Measured, export_head, measure, measured_by, write_section

SETTINGS = (8, 32, 64, 1000)
#: The tree measured: commit HEAD as ``git archive`` exports it (set by ``main``).
SOURCE = REPO


def example() -> Path:
    return SOURCE / "example_project" / "graphs.toml"


#: In a new process: trace and plan the example, then compile every Op module ``passes`` times.
GROWTH = """
import json, os, sys, time
from aotbuild.codegen.plan import make_plan
from aotbuild.compile.compiler import compile_request
from aotbuild.compile.keys import toolchain_key
from aotbuild.compile.target import resolve_target
from aotbuild.config import load_config
from aotbuild.trace.driver import project_imports, trace_project

def rss_mib():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

project = load_config({path!r})
with project_imports(project.root):
    plan = make_plan(trace_project(project))
target, toolchain = resolve_target(project.package.target), toolchain_key()
requests = [m.request(target, toolchain) for m in plan.modules]
after, seconds = [rss_mib()], []
for _ in range({passes}):
    started = time.perf_counter()
    for request in requests:
        compile_request(request)
    seconds.append(time.perf_counter() - started)
    after.append(rss_mib())
print(json.dumps({{"ops": len(requests), "rss_after_pass": after, "seconds_per_pass": seconds}}))
"""

#: In a new process: a cold build of the example at -j 2 with OPS_PER_WORKER set.
RECYCLED_BUILD = """
import json, time
import aotbuild.compile.workers as workers
from aotbuild.build import build
from aotbuild.progress import Progress
workers.OPS_PER_WORKER = {ops_per_worker}
progress = Progress(quiet=True)
result = build({path!r}, out_dir={out!r}, jobs=2, progress=progress)
print(json.dumps({{"compile": progress.stage_times["compile"], "compiled": result.compiled}}))
"""


#: In a new process: one small Op compiled ``count`` times through the local pool at -j 2, each
#: time on a fresh worker (OPS_PER_WORKER = 1) or on the first two (1000), the two in turns.
FRESH_WORKERS = """
import json, time
import aotbuild.compile.workers as workers
from aotbuild.compile.compiler import CompileFlags, CompileRequest
from aotbuild.compile.keys import toolchain_key
from aotbuild.compile.target import resolve_target
from aotbuild.config.signature import parse_signature

text = "def small(x, n):\\n    return x[:n].sum() * 2.0\\n"
signature = parse_signature("float64(float64[:], int64)")
request = CompileRequest("aot_small", text, "small", signature, CompileFlags(), resolve_target("generic"), toolchain_key())
seconds = {{1: [], 1000: []}}
for _ in range({repeats}):
    for ops_per_worker in (1, 1000):
        workers.OPS_PER_WORKER = ops_per_worker
        started = time.perf_counter()
        for result in workers.run_jobs([request] * {count}, jobs=2):
            assert result.error is None, result.error
        seconds[ops_per_worker].append(time.perf_counter() - started)
print(json.dumps(seconds))
"""
FRESH_COUNT = 40


def fresh_workers(repeats: int) -> dict[str, list[float]]:
    """Wall times of the FRESH_WORKERS runs, by OPS_PER_WORKER."""
    code = FRESH_WORKERS.format(repeats=repeats, count=FRESH_COUNT)
    return json.loads(measure([sys.executable, "-c", code], {"PYTHONPATH": str(SOURCE)}).last_line)


def growth(passes: int) -> dict:
    """RSS after each pass of compiling every Op of the example once."""
    code = GROWTH.format(path=str(example()), passes=passes)
    measured = measure([sys.executable, "-c", code], {"PYTHONPATH": str(SOURCE)})
    return json.loads(measured.last_line)


def recycled_build(work: Path, ops_per_worker: int, repeat: int) -> tuple[Measured, dict]:
    """A cold build (a fresh object cache) with workers replaced after ``ops_per_worker``."""
    cache = work / f"cache-{ops_per_worker}-{repeat}"
    code = RECYCLED_BUILD.format(ops_per_worker=ops_per_worker, path=str(example()), out=str(work / "out"))
    measured = measure(
        [sys.executable, "-c", code], {"AOTBUILD_CACHE_DIR": str(cache), "PYTHONPATH": str(SOURCE)}
    )
    return measured, json.loads(measured.last_line)


def recycled_builds(work: Path, repeats: int) -> dict[int, dict]:
    """Medians for each setting; the settings take turns (in a rotating order), so a drift in
    the machine's load spreads over all of them rather than favouring the first."""
    samples: dict[int, list[tuple[Measured, dict]]] = {setting: [] for setting in SETTINGS}
    for repeat in range(repeats):
        for index in range(len(SETTINGS)):
            setting = SETTINGS[(index + repeat) % len(SETTINGS)]
            samples[setting].append(recycled_build(work, setting, repeat))
    return {
        setting: {
            "compile": statistics.median(inside["compile"] for _, inside in runs),
            "pss_mib": statistics.median(measured.pss_mib for measured, _ in runs),
            "rss_mib": statistics.median(measured.rss_mib for measured, _ in runs),
            "compiled": runs[0][1]["compiled"],
        }
        for setting, runs in samples.items()
    }


def workers_started(ops: int, ops_per_worker: int, jobs: int = 2) -> int:
    """Worker processes a build starts: the first ``jobs``, then one per ``ops_per_worker`` Ops
    done (tasks go to whichever worker is free, so this is the count to within one)."""
    return max(jobs, math.ceil(ops / ops_per_worker))


def table(grown: dict, builds: dict[int, dict], fresh: dict[str, list[float]], repeats: int) -> str:
    ops, after = grown["ops"], grown["rss_after_pass"]
    per_pass = [after[i + 1] - after[i] for i in range(len(after) - 1)]
    lines = [
        "## Compile workers: memory per compiled Op, and the price of recycling them",
        "",
        measured_by("bench_workers.py") + f" Medians of {repeats} runs.",
        "",
        f"(a) One process compiling the example's {ops} Op modules {len(per_pass)} times over with "
        "`compile_request`, as a worker does (RSS from `/proc/self/statm`):",
        "",
        "| pass | RSS after | growth | per compiled Op | compile time of the pass |",
        "|---|---|---|---|---|",
        f"| before (traced, planned) | {after[0]:.0f} MiB | | | |",
    ]
    times = grown["seconds_per_pass"]
    for index, grew in enumerate(per_pass, 1):
        lines.append(
            f"| {index} | {after[index]:.0f} MiB | {grew:+.0f} MiB | {grew / ops * 1.048576:+.2f} MB "
            f"| {times[index - 1]:.1f} s |"
        )
    steady = statistics.mean(per_pass[1:] or per_pass) / ops * 1.048576
    lines += [
        "",
        f"The first pass includes numba's one-time set-up; after it a process keeps {steady:.2f} MB "
        "per compiled Op: the growth a worker that is never replaced accumulates. The last pass took "
        f"{times[-1] / times[min(1, len(times) - 1)]:.0%} of the second's time (a long-lived "
        "process's compiles slowing down would show here).",
        "",
        f"(b) Cold builds of the example ({builds[SETTINGS[0]]['compiled']} Ops compiled) at `-j 2`, "
        "workers replaced after `OPS_PER_WORKER` Ops (peak PSS / RSS summed over the process tree):",
        "",
        "| OPS_PER_WORKER | workers started (≈) | compile stage | peak memory | vs. never replaced |",
        "|---|---|---|---|---|",
    ]
    never = builds[SETTINGS[-1]]
    for setting, figures in builds.items():
        started = workers_started(figures["compiled"], setting)
        extra = figures["compile"] - never["compile"]
        lines.append(
            f"| {setting} | {started} | {figures['compile']:.1f} s | {figures['pss_mib']:.0f} / "
            f"{figures['rss_mib']:.0f} MiB | {extra:+.1f} s |"
        )
    each, reused = statistics.median(fresh["1"]), statistics.median(fresh["1000"])
    per_worker = (each - reused) / (FRESH_COUNT - 2)
    lines += [
        "",
        "64 and 1000 are the same build here (each of the two workers compiles about "
        f"{never['compiled'] // 2} Ops, so none is replaced): the difference between those rows, "
        f"{builds[64]['compile'] - never['compile']:+.1f} s, is the machine's noise; (c) measures what (b) "
        "cannot resolve.",
        "",
        f"(c) The cost of a fresh worker, directly: one small Op compiled {FRESH_COUNT} times through the "
        "local pool at `-j 2`, on a fresh worker each time (`OPS_PER_WORKER = 1`) or on the first two "
        f"(1000), the two in turns: {each:.2f} s against {reused:.2f} s, so "
        f"**{per_worker:+.3f} s of wall time per extra worker** (two start side by side, so about "
        f"{2 * per_worker:+.2f} s of one core each). At 64 Ops per worker that is one fresh worker per "
        f"64 Ops: {per_worker / 64 * 1000:+.1f} ms of wall time per Op, against "
        f"{steady:.2f} MB per Op that a never-replaced worker would keep.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="cold builds per setting (median)")
    parser.add_argument("--passes", type=int, default=3, help="compiles of every Op in (a)")
    options = parser.parse_args()
    global SOURCE
    with tempfile.TemporaryDirectory(prefix="aotbuild-bench-workers-") as folder:
        SOURCE = Path(folder) / "src"
        export_head(SOURCE)
        grown = growth(options.passes)
        builds = recycled_builds(Path(folder), options.repeats)
        fresh = fresh_workers(options.repeats)
    text = table(grown, builds, fresh, options.repeats)
    print(text)
    write_section("bench_workers", text)


if __name__ == "__main__":
    main()
