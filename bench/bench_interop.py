"""Calls from numba's JIT into a generated package, against the same functions under ``@njit``.

A small project (a norm of 8 values, traced; a scalar kernel) is built once. Then, in this one
process: a jitted loop calling the package's graph 1e6 times against the same loop calling the
function compiled by ``numba.njit`` (whose code numba links into the caller, where LLVM may
inline it) — interleaved rounds, best of 7, results checked first. And in fresh processes, the
size of numba's cache (``cache=True``) for a caller of the graph against a caller of the
``@njit`` function, and a cached caller's first call in a new process.

Then a second package using the first (``uses = ["interop_ext"]``): a kernel's loop calling the
first package's scalar kernel 1e7 times, against the same loop calling the same function as a
helper of its own package (also a call by declaration, never inlined: the difference is the
call crossing shared objects).

    python bench/bench_interop.py      # writes its section of BENCHMARKS.md
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, measured_by, write_section

MODEL = """
import numpy as np


def norm(x):
    return np.sqrt(np.sum(x * x))


def blend(a, b, t):
    return a + (b - a) * t
"""

GRAPHS = """
[package]
name = "interop_ext"
target = "host"

[graphs.norm]
function = "model:norm"
signature = "float64(float64[::1])"

[graphs.blend]
function = "model:blend"
signature = "float64(float64, float64, float64)"
mode = "kernel"
"""

#: A caller, cached by numba, of the graph (``graph``) or of the same function under njit.
CALLER = """
import numba
import numpy as np
{imports}


@numba.njit(cache=True)
def caller(x, n):
    total = 0.0
    for i in range(n):
        total += {callee}(x) + {blend}(total, 1.0, 0.5)
    return total
"""

USER = """
import interop_ext


def blend_here(a, b, t):
    return a + (b - a) * t


def through_package(n):
    total = 0.0
    for i in range(n):
        total += interop_ext.blend(total, 1.0, 0.5) * 1e-9
    return total


def in_package(n):
    total = 0.0
    for i in range(n):
        total += blend_here(total, 1.0, 0.5) * 1e-9
    return total
"""

USER_GRAPHS = """
[package]
name = "interop_user_ext"
target = "host"
uses = ["interop_ext"]

[graphs.through_package]
function = "user:through_package"
signature = "float64(int64)"
mode = "kernel"

[graphs.in_package]
function = "user:in_package"
signature = "float64(int64)"
mode = "kernel"
"""

FIRST_CALL = """
import time
started = time.perf_counter()
import numpy as np
import caller
value = caller.caller(np.arange(8.0), 10)
print(time.perf_counter() - started, value, sum(caller.caller.stats.cache_hits.values()))
"""


def build(work: Path) -> Path:
    (work / "model.py").write_text(MODEL)
    (work / "graphs.toml").write_text(GRAPHS)
    subprocess.run([sys.executable, "-m", "aotbuild", "compile", str(work / "graphs.toml"), "-q"], check=True)
    return work / "build"


def build_user(work: Path, package_dir: Path) -> Path:
    folder = work / "user"
    folder.mkdir()
    (folder / "user.py").write_text(USER)
    (folder / "graphs.toml").write_text(USER_GRAPHS)
    command = [sys.executable, "-m", "aotbuild", "compile", str(folder / "graphs.toml"), "-q"]
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": f"{package_dir}:{REPO}"})
    return folder / "build"


def package_calls(user_dir: Path) -> dict[str, float]:
    """Nanoseconds per iteration of a kernel's loop calling the used package's kernel, and of
    the same loop calling the same function as its own helper (best of 7 interleaved rounds)."""
    sys.path.insert(0, str(user_dir))
    import interop_user_ext

    n = 10_000_000
    assert interop_user_ext.through_package(1000) == interop_user_ext.in_package(1000)
    best = {"through_package": float("inf"), "in_package": float("inf")}
    for _ in range(7):
        for name in best:
            function = getattr(interop_user_ext, name)
            started = time.perf_counter()
            function(n)
            best[name] = min(best[name], (time.perf_counter() - started) / n * 1e9)
    return best


def loops(package_dir: Path, work: Path) -> dict[str, float]:
    """Nanoseconds per iteration of the two loops (best of 7 interleaved rounds)."""
    sys.path[:0] = [str(package_dir), str(work)]
    import interop_ext
    import model
    import numba
    import numpy as np

    norm_jit, blend_jit = numba.njit(model.norm), numba.njit(model.blend)

    @numba.njit
    def with_graphs(x, n):
        total = 0.0
        for _ in range(n):
            total += interop_ext.norm(x) + interop_ext.blend(total, 1.0, 0.5)
        return total

    @numba.njit
    def with_njit(x, n):
        total = 0.0
        for _ in range(n):
            total += norm_jit(x) + blend_jit(total, 1.0, 0.5)
        return total

    x, n = np.arange(8.0), 1_000_000
    assert with_graphs(x, 1000) == with_njit(x, 1000)
    best = {"graphs": float("inf"), "njit": float("inf")}
    for _ in range(7):
        for name, function in (("graphs", with_graphs), ("njit", with_njit)):
            started = time.perf_counter()
            function(x, n)
            best[name] = min(best[name], (time.perf_counter() - started) / n * 1e9)
    return best


def scalar_calls() -> dict[str, float]:
    """Nanoseconds per iteration of a jitted loop calling the scalar kernel: the package's graph,
    numba's own call that is not inlined (a ``cfunc`` passed as a first-class function: through
    its address), and the ``@njit`` function (inlined). Best of 7 interleaved rounds."""
    import interop_ext
    import model
    import numba
    from numba import types

    signature = types.float64(types.float64, types.float64, types.float64)
    blend_pointer = numba.cfunc(signature)(model.blend)
    blend_jit = numba.njit(signature)(model.blend)

    @numba.njit
    def through_graph(n):
        total = 0.0
        for _ in range(n):
            total += interop_ext.blend(total, 1.0, 0.5) * 1e-9
        return total

    @numba.njit
    def through_pointer(f, n):
        total = 0.0
        for _ in range(n):
            total += f(total, 1.0, 0.5) * 1e-9
        return total

    @numba.njit
    def inlined(n):
        total = 0.0
        for _ in range(n):
            total += blend_jit(total, 1.0, 0.5) * 1e-9
        return total

    n = 10_000_000
    runs = {
        "graph": lambda count: through_graph(count),
        "cfunc": lambda count: through_pointer(blend_pointer, count),
        "njit": lambda count: inlined(count),
    }
    assert len({run(1000) for run in runs.values()}) == 1
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(7):
        for name, run in runs.items():
            started = time.perf_counter()
            run(n)
            best[name] = min(best[name], (time.perf_counter() - started) / n * 1e9)
    return best


def cached_callers(package_dir: Path, work: Path) -> dict[str, dict[str, float]]:
    """For each callee: numba's cache size, the first process's call and a new process's."""
    figures = {}
    for name, imports, callee, blend in (
        ("graphs", "import interop_ext", "interop_ext.norm", "interop_ext.blend"),
        (
            "njit",
            "import model\nnorm = numba.njit(model.norm)\nblend_ = numba.njit(model.blend)",
            "norm",
            "blend_",
        ),
    ):
        folder = work / f"caller-{name}"
        folder.mkdir()
        (folder / "caller.py").write_text(CALLER.format(imports=imports, callee=callee, blend=blend))
        env = {
            "NUMBA_CACHE_DIR": str(folder / "cache"),
            "PYTHONPATH": f"{folder}:{package_dir}:{work}:{REPO}",
            "PATH": "/usr/bin:/bin",
        }
        runs = []
        for _ in range(2):
            out = subprocess.run(
                [sys.executable, "-c", FIRST_CALL], check=True, capture_output=True, text=True, env=env
            ).stdout.split()
            runs.append((float(out[0]), out[1], int(out[2])))
        assert runs[0][1] == runs[1][1] and runs[1][2] == 1, runs
        files = [p for p in (folder / "cache").rglob("*") if p.is_file()]
        figures[name] = {
            "cache_bytes": sum(p.stat().st_size for p in files),
            "cache_files": len(files),
            "compile_s": runs[0][0],
            "cached_s": runs[1][0],
        }
    return figures


def section(
    loop: dict[str, float],
    scalar: dict[str, float],
    cached: dict[str, dict[str, float]],
    calls: dict[str, float],
) -> str:
    graphs, njit = cached["graphs"], cached["njit"]
    through, own = calls["through_package"], calls["in_package"]
    return "\n".join(
        [
            "## Calls from numba's JIT: a jitted loop calling a graph, against the function under `@njit`",
            "",
            measured_by("bench_interop.py"),
            "",
            "| per iteration of a jitted loop (1e6 iterations: `norm` of 8 values, traced, and a scalar kernel) | calling the package's graphs | calling `@njit` functions |",
            "|---|---|---|",
            f"| best of 7 interleaved rounds | {loop['graphs']:.1f} ns | {loop['njit']:.1f} ns ({loop['njit'] / loop['graphs']:.2f}×) |",
            "",
            "| per iteration of a jitted loop (1e7 iterations) calling the scalar kernel `a + (b - a) * t` | the package's graph | numba's call that is not inlined (a `cfunc` passed as a first-class function) | the `@njit` function (inlined) |",
            "|---|---|---|---|",
            f"| best of 7 interleaved rounds | {scalar['graph']:.2f} ns | {scalar['cfunc']:.2f} ns ({scalar['cfunc'] / scalar['graph']:.2f}×) | {scalar['njit']:.2f} ns ({scalar['njit'] / scalar['graph']:.2f}×) |",
            "",
            "| a caller with `cache=True`, numba's cache | of the graphs | of `@njit` functions |",
            "|---|---|---|",
            f"| cache size | {graphs['cache_bytes'] / 1024:.1f} KB in {graphs['cache_files']} files | {njit['cache_bytes'] / 1024:.1f} KB in {njit['cache_files']} files |",
            f"| first process: import, compile and first call | {graphs['compile_s']:.2f} s | {njit['compile_s']:.2f} s |",
            f"| new process: import, load from numba's cache, first call | {graphs['cached_s']:.2f} s | {njit['cached_s']:.2f} s |",
            "",
            "- The graph is called by declaration: the caller's code declares its symbol, the package's "
            "shared object holds its code once. numba links an `@njit` callee's code into each "
            "caller (and its cache entry), where LLVM may inline it: the fair floor for a call "
            "that crosses a shared object is a call that is not inlined.",
            "",
            "| per iteration of a kernel's loop (1e7 iterations) calling a scalar kernel `a + (b - a) * t` | of a used package (`uses = [...]`) | of its own package (a helper) |",
            "|---|---|---|",
            f"| best of 7 interleaved rounds | {through:.2f} ns | {own:.2f} ns ({through / own:.2f}× the time) |",
            "",
            "- Both calls are by declaration, never inlined. The call into the used package goes "
            "through the dynamic linker's PLT and the exported jump to the graph's entry, which "
            "calls the kernel: two calls where the helper is one.",
        ]
    )


def main() -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aotbuild-bench-interop-") as folder:
        work = Path(folder)
        package_dir = build(work)
        loop = loops(package_dir, work)
        scalar = scalar_calls()
        cached = cached_callers(package_dir, work)
        calls = package_calls(build_user(work, package_dir))
    print(
        json.dumps({"loop": loop, "scalar": scalar, "cached": cached, "calls": calls}, indent=1),
        file=sys.stderr,
    )
    text = section(loop, scalar, cached, calls)
    print(text)
    write_section("bench_interop", text)
    print(f"bench_interop.py: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
