"""The radon workload of ``bench_builds.py``: aotbuild against PyTensor's numba backend, measured
in the same run, with RADON.md's published figures (pytensor 3.3.7) quoted beside them.

The work is the reference benchmark's: logp and its gradient of the base model in one function,
then the 8 variants' logp and gradient after the base is in the cache. aotbuild builds
``radon:logp_and_grad`` (the gradient written by hand in NumPy); PyTensor derives its gradient
(``pytensor_radon.py``). PyTensor goes into a venv of its own, made once under the temp folder:
it pins an older numba than aotbuild's. If that venv cannot be made or PyTensor fails, the table
says so and only RADON.md's figures stand in its column.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import BENCH, REPO, folder_size, measure, microseconds
from workloads import VARIANT_NAMES

#: The tree measured; bench_builds.py points it at its export of commit HEAD.
SOURCE = REPO

PYTENSOR_VENV = Path(tempfile.gettempdir()) / "aotbuild-bench-pytensor"

#: RADON.md's figures: pytensor 3.3.7 on Python 3.12, numba 0.68, a 2-core machine.
QUOTED = {
    "cold": "10.4 s",
    "warm": "1.26 s",
    "cache": "0.9 MB in 66 files",
    "peak": "252 MiB",
    "call": "7.5–8 µs",
    "variants": "22 s",
}


def radon_project(work: Path, name: str, graphs: dict[str, str]) -> Path:
    """A copy of the example project declaring ``graphs`` (name -> function) as logp+gradient;
    ``variants_grad.py`` in it names each variant's logp_and_grad function."""
    folder = work / name
    shutil.copytree(SOURCE / "example_project", folder, ignore=shutil.ignore_patterns("build", "__pycache__"))
    lines = ["import radon", ""]
    lines += [f"{v} = radon.make_logp_and_grad(*{tuple(_options(v))!r})" for v in VARIANT_NAMES]
    (folder / "variants_grad.py").write_text("\n".join(lines) + "\n")
    toml = [f'[package]\nname = "{name}_ext"\n']
    signature = "Tuple(float64, float64[::1])(float64[:])"
    toml += [f'[graphs.{g}]\nfunction = "{f}"\nsignature = "{signature}"\n' for g, f in graphs.items()]
    (folder / "graphs.toml").write_text("\n".join(toml))
    return folder / "graphs.toml"


def _options(variant: str) -> list:
    intercept, sigma, centering = variant.split("_")
    return [intercept, sigma, centering == "centered"]


def aotbuild_build(toml: Path, cache: Path):
    command = [sys.executable, "-m", "aotbuild", "compile", str(toml), "-q"]
    return measure(command, {"AOTBUILD_CACHE_DIR": str(cache), "PYTHONPATH": str(SOURCE)})


CALL = """
import json, statistics, sys, time, timeit
sys.modules["numba"] = None; sys.modules["llvmlite"] = None
sys.path.insert(0, {path!r})
import numpy as np  # not part of the figure: every peer needs it
started = time.perf_counter()
import radon_ext
imported = time.perf_counter() - started
x = np.random.default_rng(1).normal(size=173)
started = time.perf_counter()
logp, grad = radon_ext.radon_logp_and_grad(x)
first = time.perf_counter() - started
call = statistics.median(timeit.repeat(lambda: radon_ext.radon_logp_and_grad(x), number=2000, repeat=7)) / 2000
print(json.dumps({{"import": imported, "first_call": first, "call": call, "logp": float(logp)}}))
"""


def aotbuild_figures(work: Path, repeats: int) -> dict:
    base = radon_project(work, "radon", {"radon_logp_and_grad": "radon:logp_and_grad"})
    variants = radon_project(work, "variants", {f"radon_{v}": f"variants_grad:{v}" for v in VARIANT_NAMES})
    cold, warm, eight = [], [], []
    for repeat in range(repeats):
        cache = work / f"cache-radon-{repeat}"
        shutil.rmtree(base.parent / "build", ignore_errors=True)
        cold.append(aotbuild_build(base, cache))
        if repeat == 0:
            cache_bytes, cache_files = folder_size(cache)  # the base's alone
        shutil.rmtree(base.parent / "build")
        warm.append(aotbuild_build(base, cache))  # a new package from the warm cache
        shutil.rmtree(variants.parent / "build", ignore_errors=True)
        eight.append(aotbuild_build(variants, cache))  # after the base, as the reference does
    calls = [measure([sys.executable, "-c", CALL.format(path=str(base.parent / "build"))]) for _ in range(3)]
    call = {
        k: statistics.median(json.loads(c.last_line)[k] for c in calls)
        for k in ("import", "first_call", "call")
    }
    native = next((base.parent / "build" / "radon_ext").glob("_native*"))
    return {
        "cold": statistics.median(m.seconds for m in cold),
        "peak": (statistics.median(m.pss_mib for m in cold), statistics.median(m.rss_mib for m in cold)),
        "warm": statistics.median(m.seconds for m in warm),
        "variants": statistics.median(m.seconds for m in eight),
        "cache": (cache_bytes, cache_files),
        "so_bytes": native.stat().st_size,
        **call,
    }


# --- PyTensor -------------------------------------------------------------------------------


def pytensor_python() -> Path:
    """The venv's interpreter, the venv made (``pip install pytensor``) if it is not there."""
    python = PYTENSOR_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PYTENSOR_VENV)], check=True, capture_output=True)
        pip = [str(python), "-m", "pip", "install", "-q", "pytensor"]
        subprocess.run(pip, check=True, capture_output=True, text=True)
    return python


def pytensor_run(python: Path, what: str, caches: Path):
    """``pytensor_radon.py what`` with PyTensor's and numba's caches in ``caches``."""
    env = {
        "PYTENSOR_FLAGS": f"base_compiledir={caches / 'pytensor'}",
        "NUMBA_CACHE_DIR": str(caches / "numba"),
    }
    measured = measure([str(python), str(BENCH / "pytensor_radon.py"), what], env)
    return measured, json.loads(measured.last_line)


def pytensor_figures(work: Path, repeats: int) -> dict:
    python = pytensor_python()
    cold, warm, eight = [], [], []
    for repeat in range(repeats):
        caches = work / f"pytensor-caches-{repeat}"
        cold.append(pytensor_run(python, "compile", caches))
        warm.append(pytensor_run(python, "compile", caches))
        eight.append(pytensor_run(python, "variants", work / f"pytensor-variants-{repeat}"))
    _, called = pytensor_run(python, "call", work / "pytensor-caches-0")
    numba = subprocess.run(
        [str(python), "-c", "import numba; print(numba.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        "version": cold[0][1]["version"],
        "numba": numba.stdout.strip(),
        "cold": statistics.median(m.seconds for m, _ in cold),
        "cold_inside": statistics.median(inside["compile"] for _, inside in cold),
        "peak": (
            statistics.median(m.pss_mib for m, _ in cold),
            statistics.median(m.rss_mib for m, _ in cold),
        ),
        "warm": statistics.median(m.seconds for m, _ in warm),
        "warm_inside": statistics.median(inside["compile"] for _, inside in warm),
        "variants": statistics.median(inside["variants"] for _, inside in eight),
        "cache": folder_size(work / "pytensor-caches-0"),
        "call": called["call"],
        "logp": cold[0][1]["logp"],
    }


# --- the table ------------------------------------------------------------------------------


def _mb(cache: tuple[int, int]) -> str:
    return f"{cache[0] / 1e6:.1f} MB in {cache[1]} files"


def table(aot: dict, pt: dict | None, failure: str | None, header: str) -> str:
    if pt is None:
        pytensor_note = (
            f"**PyTensor could not be installed or run in this run** ({failure}): only RADON.md's "
            "quoted figures stand for it."
        )
        pt = {}
    else:
        pytensor_note = (
            f"PyTensor {pt['version']} (numba {pt['numba']}, numba backend, fastmath on by default) in its own "
            f"venv on the same Python; its logp at the check point is {pt['logp']:.10f} (RADON.md: −2447.2341736666)."
        )

    def cell(key: str, text) -> str:
        return text(pt) if key in pt else "not measured"

    def ratio(key: str) -> str:
        return f" ({pt[key] / aot[key]:.2f}×)" if key in pt else ""

    lines = [
        "## Builds: the radon model against PyTensor's numba backend",
        "",
        header,
        pytensor_note,
        "The quoted column is RADON.md's (pytensor 3.3.7 on Python 3.12, numba 0.68): not measured here.",
        "Ratios in parentheses: PyTensor's figure ÷ aotbuild's.",
        "",
        "| radon logp + gradient | aotbuild | PyTensor numba, measured | PyTensor numba, quoted |",
        "|---|---|---|---|",
        f"| cold, empty caches: whole process | {aot['cold']:.1f} s | "
        + cell(
            "cold",
            lambda p: f"{p['cold']:.1f} s{ratio('cold')} (compile + first call: {p['cold_inside']:.1f} s)",
        )
        + f" | {QUOTED['cold']} |",
        f"| warm caches, new process | {aot['warm']:.1f} s (a new package) | "
        + cell("warm", lambda p: f"{p['warm']:.2f} s{ratio('warm')} (compile: {p['warm_inside']:.2f} s)")
        + f" | {QUOTED['warm']} |",
        f"| peak memory, PSS / RSS (process tree) | {aot['peak'][0]:.0f} / {aot['peak'][1]:.0f} MiB | "
        + cell("peak", lambda p: f"{p['peak'][0]:.0f} / {p['peak'][1]:.0f} MiB")
        + f" | {QUOTED['peak']} |",
        f"| cache | {_mb(aot['cache'])} | "
        + cell("cache", lambda p: _mb(p["cache"]))
        + f" | {QUOTED['cache']} |",
        f"| 8 variants, after the base is cached | {aot['variants']:.1f} s (one package, whole process) | "
        + cell("variants", lambda p: f"{p['variants']:.1f} s{ratio('variants')} (in process)")
        + f" | {QUOTED['variants']} |",
        f"| call (median) | {microseconds(aot['call'])} | "
        + cell("call", lambda p: f"{microseconds(p['call'])}{ratio('call')}")
        + f" | {QUOTED['call']} |",
        f"| import the package in a new process, first call | {microseconds(aot['import'])}, "
        f"{microseconds(aot['first_call'])} | (no package: the warm row) | |",
        f"| shared object | {aot['so_bytes'] / 1024:.0f} KB | | |",
        "",
        "The same work on each side, as RADON.md's reference benchmark times it: one function of logp "
        "and gradient (aotbuild: `radon:logp_and_grad`, the gradient written by hand in NumPy; "
        "PyTensor: `pytensor.grad` of the same logp, `bench/pytensor_radon.py`), then the 8 "
        "variants' logp and gradient with the base already cached. aotbuild's times are whole "
        "`aotbuild compile` processes; PyTensor's in-process compile time is given beside its "
        "whole process's. PyTensor's peak memory is one process; aotbuild's is its build's tree.",
    ]
    return "\n".join(lines)


def section(work: Path, repeats: int, header: str) -> str:
    aot = aotbuild_figures(work, repeats)
    try:
        pt, failure = pytensor_figures(work, repeats), None
    except (subprocess.CalledProcessError, OSError, ValueError) as exc:
        stderr = (getattr(exc, "stderr", None) or "").strip()
        pt, failure = None, stderr.splitlines()[-1] if stderr else f"{type(exc).__name__}: {exc}"
    return table(aot, pt, failure, header)
