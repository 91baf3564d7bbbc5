"""Accuracy and speed of templates/vecmath (the vectorisable math library).

Measures every public function-dtype over its whole domain (random bit patterns,
log-uniform over every binade of both signs, uniform over the interesting ranges, special
values and edges; see tests/codegen/vecmath_support.py) against a long double reference,
compiled for the host CPU (FMA: the exact products' path a package built for it takes) in this
process and for NUMBA_CPU_NAME=generic (SSE2, no FMA: Dekker's split) in a subprocess, and
prints a markdown table. Then times each function against
NumPy's ufunc on 1e5 elements (numba JIT loops, interleaved rounds, best of 5).

    python bench/vecmath_accuracy.py                 # 2M points per function-dtype; writes BENCHMARKS.md
    python bench/vecmath_accuracy.py --n 200000 --functions exp,log --no-speed --no-write
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from common import measured_by, write_section  # noqa: E402

from aotbuild.compile.intrinsics import native_fma  # noqa: E402
from aotbuild.compile.target import llvm_tuning, resolve_target, target_has_fma  # noqa: E402
from tests.codegen import vecmath_support as vs  # noqa: E402

SPEED_INPUT = {
    "log": (0.01, 100),
    "log2": (0.01, 100),
    "log10": (0.01, 100),
    "log1p": (-0.5, 100),
    "arccosh": (1, 100),
    "arcsin": (-1, 1),
    "arccos": (-1, 1),
    "arctanh": (-0.99, 0.99),
    "sin": (-100, 100),
    "cos": (-100, 100),
    "tan": (-100, 100),
    "exp": (-50, 50),
    "exp2": (-50, 50),
    "expm1": (-5, 5),
    "sinh": (-50, 50),
    "cosh": (-50, 50),
    "tanh": (-5, 5),
}


def measure(ns, functions, dtypes, n, seed):
    return {f"{fn}-{dt}": vs.measure(ns, fn, dt, n, seed) for fn in functions for dt in dtypes}


def speed(ns, functions, dtypes, size=100_000, rounds=5):
    rng = np.random.default_rng(1)
    rows = []
    for fn in functions:
        for dt in dtypes:
            if fn in vs.BINARY:
                args = [rng.uniform(0.1, 10, size).astype(dt), rng.uniform(-5, 5, size).astype(dt)]
            else:
                lo, hi = SPEED_INPUT.get(fn, (-10, 10))
                args = [rng.uniform(lo, hi, size).astype(dt)]
            loop = vs.vector_loop(ns, f"{fn}_{dt}", len(args))
            out = np.empty(size, dt)
            loop(*args, out)
            ufunc = getattr(np, fn)
            ours, theirs = [], []
            for _ in range(rounds):
                t = time.perf_counter()
                loop(*args, out)
                ours.append(time.perf_counter() - t)
                t = time.perf_counter()
                ufunc(*args, out=out)
                theirs.append(time.perf_counter() - t)
            rows.append((fn, dt, min(ours) * 1e6, min(theirs) * 1e6))
    return rows


def wide_like_packages() -> None:
    """This process's JIT loops at the vector width a host package compiles vector math with
    (512 bits on AVX-512 CPUs, where LLVM's own tuning keeps 256: ``llvm_tuning``)."""
    from numba.core import config

    host = resolve_target("host")
    tuning = llvm_tuning(host, wide_vectors=True)
    if tuning:
        config.CPU_FEATURES = f"{host.features},{tuning}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=2_000_000, help="points per function-dtype")
    p.add_argument("--functions", default=",".join(vs.UNARY + vs.BINARY))
    p.add_argument("--dtypes", default=",".join(vs.DTYPES))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-speed", action="store_true")
    p.add_argument("--no-write", action="store_true", help="print the tables; leave BENCHMARKS.md alone")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    functions, dtypes = a.functions.split(","), a.dtypes.split(",")
    warnings.simplefilter("ignore")
    if not a.worker:
        wide_like_packages()
    ns = vs.load_vecmath()  # one namespace: the accuracy and speed loops are compiled once
    if a.worker:
        print(json.dumps(measure(ns, functions, dtypes, a.n, a.seed)))
        return
    # The host's loops take the FMA path where this CPU has FMA, as a package built for it does;
    # the generic worker's take Dekker's split.
    with native_fma(target_has_fma(resolve_target("host"))):
        report(a, ns, functions, dtypes)


def report(a: argparse.Namespace, ns: dict, functions: list[str], dtypes: list[str]) -> None:
    """Measure the host in this process beside the generic worker; print and write the tables."""
    env = dict(os.environ, NUMBA_CPU_NAME="generic", PYTHONWARNINGS="ignore")
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        "--n",
        str(a.n),
        "--functions",
        a.functions,
        "--dtypes",
        a.dtypes,
        "--seed",
        str(a.seed),
    ]
    t0 = time.time()
    generic = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
    host = measure(ns, functions, dtypes, a.n, a.seed)
    out, _ = generic.communicate()
    generic_results = json.loads(out.strip().splitlines()[-1])
    lines = [
        measured_by("vecmath_accuracy.py"),
        "",
        f"Accuracy: {a.n} points per function and dtype (and special values), seed {a.seed}, "
        f"{time.time() - t0:.0f} s; reference: np.longdouble (x87 80-bit, glibc's *l functions).",
        "",
        "| function | dtype | max ulp (generic) | max ulp (host, FMA) | documented bound "
        "| domain tested | NumPy's documented bound |",
        "|---|---|---|---|---|---|---|",
    ]
    worst = []
    for fn in functions:
        for dt in dtypes:
            k = f"{fn}-{dt}"
            g, h = generic_results[k], host[k]
            flag = "" if not (g["special_mismatches"] or h["special_mismatches"]) else " **special mismatch**"
            dom = vs.domain_description(fn, dt)
            if fn in ("sin", "cos", "tan"):
                dom = f"abs(x) <= {vs.TRIG_LIMIT[fn, dt]:g}: " + dom
            numpy_bound = vs.NUMPY_BOUND[dt] if fn != "tanh" or dt == "float32" else "2 (SVML)"
            lines.append(
                f"| {fn} | {dt} | {g['max_ulp']:.3f} | {h['max_ulp']:.3f} | {vs.DOCUMENTED_BOUND[fn, dt]:g} "
                f"| {dom} | {numpy_bound}{flag} |"
            )
            for which, r in (("generic", g), ("host", h)):
                if r["max_ulp"] > vs.DOCUMENTED_BOUND[fn, dt] or r["special_mismatches"]:
                    worst.append((k, which, r["max_ulp"], r["worst_input"], r["special_mismatches"][:3]))
    if worst:
        lines += ["", "OUT OF BOUND:", *(f"    {w}" for w in worst)]
    if not a.no_speed:
        lines += [
            "",
            "Speed: 1e5 elements, a numba JIT loop over the function (host CPU) against NumPy's ufunc "
            "(`out=` given), in one process, interleaved rounds, best of 5.",
            "",
            "| function | dtype | vector math (µs) | NumPy (µs) | vector math ÷ NumPy |",
            "|---|---|---|---|---|",
        ]
        for fn, dt, ours, theirs in speed(ns, functions, dtypes):
            lines.append(f"| {fn} | {dt} | {ours:.0f} | {theirs:.0f} | {ours / theirs:.2f} |")
    text = "\n".join(lines)
    print(text)
    if not a.no_write:
        write_section("vecmath", "## Vector math: accuracy and speed against NumPy\n\n" + text)
    if worst:
        sys.exit(1)


if __name__ == "__main__":
    main()
