"""What compiling the vector math once per process saves (``aotbuild/compile/helpers.py``).

A generated module pastes the source of every vector math function it calls. Compiled as
pasted, numba compiles those functions again for every Op; shared, a process compiles each once
and links it into every Op. One process (as a compile worker is) compiles the same Ops both ways,
in interleaved rounds: pasted (each module's own copies, with numba's C wrappers, as before the
change) and shared (the library flattened, ``aotbuild/compile/flatten.py``). Before anything is
timed, each Op's function is run both ways under numba's JIT, and must give the same bits on
10^5 inputs (the objects differ: the shared library's helpers are pasted into their callers).
Before any round, one Op is compiled once (numba's own first uses). The shared mode's first
round includes compiling the library functions the Ops use, once.

Run from the repository root:

    python bench/bench_helpers.py             # writes its table into BENCHMARKS.md
    python bench/bench_helpers.py --rounds 2  # quicker
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import statistics
import time

from common import measured_by, write_section

#: (ufunc, dtype): Ops of one elementwise loop each, calling the library's function.
OPS = (
    ("sin", "float64"),
    ("exp", "float64"),
    ("log", "float64"),
    ("tanh", "float64"),
    ("arcsinh", "float64"),
    ("exp", "float32"),
    ("tanh", "float32"),
)


def module_text(fn: str, dtype: str) -> str:
    """An elementwise Op's module calling ``<fn>_<dtype>``, the library pasted in as the code
    generator pastes it."""
    from aotbuild.codegen import vecmath

    name = vecmath.vector_function(fn, dtype)
    sources = vecmath.sources([name])
    sources[0] = f"{vecmath.HEADING}\n{sources[0]}"
    body = (
        "def f(x):\n"
        "    out = np.empty_like(x)\n"
        "    for i in range(x.shape[0]):\n"
        f"        out[i] = {name}(x[i]) * {dtype}(2)\n"
        "    return out\n"
    )
    lines = [
        "import numpy as np",
        f"from numpy import {dtype}",
        "from numba.extending import register_jitable",
    ]
    return "\n".join(lines + vecmath.intrinsics_import([name]) + sources + [body]) + "\n"


def requests() -> list:
    from aotbuild.compile.compiler import CompileFlags, CompileRequest
    from aotbuild.compile.keys import toolchain_key
    from aotbuild.compile.target import resolve_target
    from aotbuild.config.signature import parse_signature

    return [
        CompileRequest(
            f"aot_bench_{fn}_{dtype}",
            module_text(fn, dtype),
            "f",
            parse_signature(f"{dtype}[::1]({dtype}[::1])"),
            CompileFlags(wide_vectors=True),
            resolve_target("host"),
            toolchain_key(),
        )
        for fn, dtype in OPS
    ]


@contextlib.contextmanager
def pasted():
    """Compiling as before the change: each module's own copies, with numba's C wrappers."""
    from aotbuild.compile import compiler, helpers

    saved = compiler.share_vector_math, helpers.without_c_wrappers
    compiler.share_vector_math = lambda *args, **kwargs: None
    helpers.without_c_wrappers = contextlib.nullcontext
    try:
        yield
    finally:
        compiler.share_vector_math, helpers.without_c_wrappers = saved


def same_results(batch: list) -> None:
    """Each Op's function, run under numba's JIT for this CPU, gives the same bits with the
    shared library as with its module's own copies; exits before anything is timed if not."""
    import numba
    import numpy as np

    from aotbuild.compile.helpers import exec_generated, share_vector_math
    from aotbuild.compile.intrinsics import native_fma
    from aotbuild.compile.target import target_has_fma

    for request in batch:
        fma = target_has_fma(request.target)
        dtype = np.float64 if "float64" in request.symbol else np.float32
        x = np.random.default_rng(0).uniform(-20.0, 20.0, 100_000).astype(dtype)
        results = []
        for shared in (False, True):
            name = f"aotbuild_generated.{request.symbol}_check_{shared}"
            module = exec_generated(name, f"{name}.py", compile(request.text, f"{name}.py", "exec"))
            if shared:
                share_vector_math(module, request.text, fma)
            with native_fma(fma):
                results.append(numba.njit(error_model="numpy")(module.f)(x))
        if not np.array_equal(*(r.view(np.int64 if dtype == np.float64 else np.int32) for r in results)):
            raise SystemExit(f"{request.symbol}: the shared vector math changed a result: nothing measured")


def compile_all(batch: list, mode: str) -> tuple[float, dict[str, bytes]]:
    from aotbuild.compile.compiler import compile_request

    with pasted() if mode == "pasted" else contextlib.nullcontext():
        started = time.perf_counter()
        objects = {request.symbol: compile_request(request).data for request in batch}
        return time.perf_counter() - started, objects


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    import aotbuild.compile.warm  # noqa: F401  numba's first compile, as a worker's server does

    batch = requests()
    same_results(batch)
    # numba's own first uses (np.empty_like, the loop), paid before either way is timed
    compile_all([dataclasses.replace(batch[0], symbol="aot_bench_warm_up")], "pasted")
    seconds: dict[str, list[float]] = {"pasted": [], "shared": []}
    for round_ in range(args.rounds):
        modes = ("pasted", "shared") if round_ % 2 == 0 else ("shared", "pasted")
        for mode in modes:
            took, _ = compile_all(batch, mode)
            seconds[mode].append(took)
        print(f"round {round_ + 1}: " + ", ".join(f"{m} {seconds[m][-1]:.2f} s" for m in modes), flush=True)

    later = {mode: statistics.median(values[1:] or values) for mode, values in seconds.items()}
    count = len(batch)
    rows = [
        "| mode | first round | later rounds (median) | per Op, later |",
        "|---|---|---|---|",
        *(
            f"| {mode} | {seconds[mode][0]:.2f} s | {later[mode]:.2f} s | {later[mode] / count:.3f} s |"
            for mode in ("pasted", "shared")
        ),
    ]
    text = "\n".join(
        [
            "## Vector math compiled once per process",
            "",
            measured_by("bench_helpers.py"),
            "",
            f"{count} elementwise Ops ({', '.join(f'{fn} {dtype}' for fn, dtype in OPS)}; target host), "
            f"compiled in one process in {args.rounds} interleaved rounds, each way; each Op's function "
            "gives the same bits both ways (run under numba's JIT on 10^5 inputs first). Pasted: each "
            "module's own copies of the library with numba's C wrappers, as before "
            "aotbuild/compile/helpers.py; shared: the library flattened (its helpers pasted into their "
            "callers, aotbuild/compile/flatten.py), compiled once per process (in the first round) and "
            "linked into every Op.",
            "",
            *rows,
            "",
            f"Later rounds, shared ÷ pasted: **{later['shared'] / later['pasted']:.2f}**; "
            f"first round (the library's one compile included): "
            f"**{seconds['shared'][0] / seconds['pasted'][0]:.2f}**.",
        ]
    )
    write_section("bench_helpers", text)
    print(text)


if __name__ == "__main__":
    main()
