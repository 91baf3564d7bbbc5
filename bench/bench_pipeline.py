"""Build, size, import and call benchmarks of the example project against its peers.

Peers, measured in the same run: numba JIT (cold: compile in a new process), numba with
``cache=True`` (warm cache, new process), ``numba.pycc`` (numba's deprecated AOT) and NumPy.
Run from the repository root:

    python bench/bench_pipeline.py            # writes its table into BENCHMARKS.md

Machines here are shared and noisy: timings are medians (builds, imports) or best-of-repeats
(calls); compare ratios within one run rather than absolute figures across runs.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from common import (
    BENCH,
    REPO,
    WRITE_BYTECODE,
    measured_by,
    median_of,
    microseconds,
    python_json,
    run,
    write_section,
)


def build_figures(work: Path) -> dict[str, float]:
    project = work / "example_project"
    shutil.copytree(REPO / "example_project", project, ignore=shutil.ignore_patterns("build", "__pycache__"))
    cache = work / "cache"
    command = [sys.executable, "-m", "aotbuild", "compile", str(project / "graphs.toml"), "-q"]
    env = {"AOTBUILD_CACHE_DIR": str(cache)}
    cold = run(command, env)
    rebuild = median_of(3, lambda: run(command, env))
    stats = project / "stats.py"
    stats.write_text(stats.read_text().replace("-0.5 * z**2", "-0.5 * z * z"))
    one_op = run(command, env)
    stats.write_text(stats.read_text().replace("-0.5 * z * z", "-0.5 * z**2"))
    run(command, env)  # back to the original package for the call benchmarks
    native = next((project / "build" / "example_ext").glob("_native*"))
    manifest = json.loads((project / "build" / "example_ext" / "manifest.json").read_text())
    pycc_dir = work / "pycc"
    pycc_build = run([sys.executable, str(BENCH / "pycc_peer.py"), str(pycc_dir)])
    pycc_so = next(pycc_dir.glob("example_pycc*"))
    return {
        "aotbuild_cold": cold,
        "aotbuild_rebuild": rebuild,
        "aotbuild_one_op_changed": one_op,
        "aotbuild_size": native.stat().st_size,
        "graphs": len(manifest["graphs"]),
        "ops": len(manifest["ops"]),
        "pycc_build": pycc_build,
        "pycc_size": pycc_so.stat().st_size,
        "package_dir": str(project / "build"),
        "pycc_dir": str(pycc_dir),
    }


IMPORT_AOTBUILD = """
import sys, time, json
sys.modules["numba"] = None; sys.modules["llvmlite"] = None
sys.path.insert(0, {path!r})
import numpy as np
t = time.perf_counter(); import example_ext; imported = time.perf_counter() - t
x = np.linspace(0, 1, 10)
t = time.perf_counter(); example_ext.normal_logp(x, 0.0, 1.0); first = time.perf_counter() - t
print(json.dumps({{"import": imported, "first_call": first}}))
"""

IMPORT_NUMBA = """
import sys, time, json
sys.path.insert(0, {bench!r})
import numpy as np
t = time.perf_counter(); import numba_peer; imported = time.perf_counter() - t
x = np.linspace(0, 1, 10)
t = time.perf_counter(); numba_peer.normal_logp(x, 0.0, 1.0); numba_peer.det(np.eye(3)); first = time.perf_counter() - t
print(json.dumps({{"import": imported, "first_call": first}}))
"""

IMPORT_PYCC = """
import sys, time, json
sys.path.insert(0, {path!r})
import numpy as np
t = time.perf_counter(); import example_pycc; imported = time.perf_counter() - t
x = np.linspace(0, 1, 10)
t = time.perf_counter(); example_pycc.normal_logp(x, 0.0, 1.0); first = time.perf_counter() - t
print(json.dumps({{"import": imported, "first_call": first}}))
"""


def import_figures(builds: dict) -> dict[str, dict[str, float]]:
    # Imports as an installed package runs them: from cached bytecode (the first run of each
    # writes it: common.WRITE_BYTECODE).
    def imported(code: str, env: dict[str, str] | None = None) -> dict:
        return python_json(code, {**WRITE_BYTECODE, **(env or {})})

    def medians(code: str, env: dict[str, str] | None = None, count: int = 7) -> dict[str, float]:
        samples = [imported(code, env) for _ in range(count)]
        return {key: statistics.median(s[key] for s in samples) for key in samples[0]}

    imported(IMPORT_AOTBUILD.format(path=builds["package_dir"]))
    imported(IMPORT_PYCC.format(path=builds["pycc_dir"]))
    cache_dir = tempfile.mkdtemp(prefix="numba-cache-")
    cached_env = {"NUMBA_PEER_CACHE": "1", "NUMBA_CACHE_DIR": cache_dir}
    imported(IMPORT_NUMBA.format(bench=str(BENCH)), cached_env)  # fill the cache
    figures = {
        "aotbuild": medians(IMPORT_AOTBUILD.format(path=builds["package_dir"])),
        "numba JIT (cold)": medians(IMPORT_NUMBA.format(bench=str(BENCH)), count=3),
        "numba cache=True (warm)": medians(IMPORT_NUMBA.format(bench=str(BENCH)), cached_env, count=5),
        "numba.pycc": medians(IMPORT_PYCC.format(path=builds["pycc_dir"])),
    }
    shutil.rmtree(cache_dir, ignore_errors=True)
    return figures


CALLS = """
import sys, json, timeit, cProfile
sys.path[:0] = [{package!r}, {pycc!r}, {bench!r}, {example!r}]
import numpy as np
import example_ext, example_pycc, numba_peer, stats, linalg

def numpy_logp(x, mu, sigma):
    return stats.normal_logp(x, mu, sigma)

def per_call(function, *args, number=20000):
    function(*args)
    return min(timeit.repeat(lambda: function(*args), number=number, repeat=7)) / number

def under_profile(function, *args, number=5000):
    profile = cProfile.Profile()
    function(*args)
    profile.enable()
    seconds = per_call(function, *args, number=number)
    profile.disable()
    return seconds

results = {{}}
for n in (10, 100_000):
    x = np.random.default_rng(0).normal(size=n)
    count = 20000 if n == 10 else 50
    results[f"normal_logp n={{n}}"] = {{
        "aotbuild": per_call(example_ext.normal_logp, x, 0.5, 1.5, number=count),
        "numba njit": per_call(numba_peer.normal_logp, x, 0.5, 1.5, number=count),
        "numba.pycc": per_call(example_pycc.normal_logp, x, 0.5, 1.5, number=count),
        "NumPy": per_call(numpy_logp, x, 0.5, 1.5, number=count),
    }}
a = np.random.default_rng(1).normal(size=(3, 3))
results["det 3x3"] = {{
    "aotbuild": per_call(example_ext.det, a),
    "numba njit": per_call(numba_peer.det, a),
    "numba.pycc": per_call(example_pycc.det, a),
    "NumPy": per_call(np.linalg.det, a),
}}
x = np.random.default_rng(0).normal(size=10)
results["normal_logp n=10 under cProfile"] = {{
    "aotbuild": under_profile(example_ext.normal_logp, x, 0.5, 1.5),
    "numba njit": under_profile(numba_peer.normal_logp, x, 0.5, 1.5),
    "numba.pycc": under_profile(example_pycc.normal_logp, x, 0.5, 1.5),
    "NumPy": under_profile(numpy_logp, x, 0.5, 1.5),
}}
print(json.dumps(results))
"""


def call_figures(builds: dict) -> dict[str, dict[str, float]]:
    return python_json(
        CALLS.format(
            package=builds["package_dir"],
            pycc=builds["pycc_dir"],
            bench=str(BENCH),
            example=str(REPO / "example_project"),
        )
    )


def table(builds: dict, imports: dict, calls: dict) -> str:
    lines = [
        "## Pipeline: build, size, import, call (example project)",
        "",
        measured_by("bench_pipeline.py"),
        "",
        "| build | seconds | artifact |",
        "|---|---|---|",
        f"| aotbuild, cold (empty object cache, {builds['graphs']} graphs, {builds['ops']} Ops) "
        f"| {builds['aotbuild_cold']:.1f} s | `_native*.so` {builds['aotbuild_size'] / 1024:.0f} KB "
        f"(all {builds['graphs']} graphs) |",
        f"| aotbuild, nothing changed | {builds['aotbuild_rebuild']:.1f} s | |",
        f"| aotbuild, one Op changed (`z**2` → `z * z`) | {builds['aotbuild_one_op_changed']:.1f} s | |",
        f"| numba.pycc (normal_logp and det only) | {builds['pycc_build']:.1f} s | {builds['pycc_size'] / 1024:.0f} KB |",
        "",
        "| new process | import | first call (incl. compile for JIT) |",
        "|---|---|---|",
    ]
    for peer, figures in imports.items():
        lines.append(
            f"| {peer} | {microseconds(figures['import'])} | {microseconds(figures['first_call'])} |"
        )
    lines += [
        "",
        "| per call (best of 7) | " + " | ".join(next(iter(calls.values()))) + " | aotbuild / njit |",
        "|---" * 6 + "|",
    ]
    for case, figures in calls.items():
        ratio = figures["aotbuild"] / figures["numba njit"]
        lines.append(
            f"| {case} | " + " | ".join(microseconds(v) for v in figures.values()) + f" | {ratio:.2f} |"
        )
    lines += [
        "",
        "Imports are medians of new processes with cached bytecode. aotbuild's runs with numba and",
        "llvmlite blocked (`sys.modules[...] = None`): the package loads `_native` and checks it against",
        "the Op list it was built with, and leaves its numba interop and exception rebuilder until they",
        "are needed. numba's includes `import numba`. A kernel call (`det`) skips numba's dispatcher;",
        "under cProfile a graph is one C call.",
    ]
    return "\n".join(lines)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="aotbuild-bench-") as work:
        builds = build_figures(Path(work))
        imports = import_figures(builds)
        calls = call_figures(builds)
        text = table(builds, imports, calls)
    print(text)
    write_section("bench_pipeline", text)


if __name__ == "__main__":
    main()
