"""Ufuncs (``ufunc = true``, docs/ufuncs.md) beside numba's ``@vectorize`` of the same functions.

The project is ``bench/ufunc_program`` (docs/ufuncs.md's example, ``target = "host"``), built
from commit HEAD with a cold object cache. Peers, in one process:

* **aotbuild**: the package's ufunc;
* **numba @vectorize**: ``numba.vectorize`` of the same function with the same signatures (a
  numba ``DUFunc``, compiled before timing);
* **NumPy**: the function's NumPy expression (``1 / (1 + np.exp(-k * x))``, ``np.maximum``),
  and ``np.add`` of the same operands: the cost of NumPy's ufunc machinery itself, the floor
  any ufunc call pays.

Each case on 10 values (the call's overhead) and on 10^6 (the loop), float64 unless it says so;
every result checked against NumPy's first. Then the cost of choosing among several signatures
(``norm1``: float64, float32, int64): a call of ``norm1`` beside the same graph declared with the
one signature the call picks, on 4 values, for the first signature and the last. Each round runs one ``timeit`` loop (~20 ms) of each
peer in turn, the order rotating; each figure is the best of 7 rounds. Run from the repository
root:

    python bench/bench_ufuncs.py          # writes its section into BENCHMARKS.md
"""

from __future__ import annotations

import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path

import numpy as np
from common import build_program, measured_by, write_section

ROUNDS = 7
SIZES = (10, 1_000_000)
PEERS = ("aotbuild", "numba @vectorize", "NumPy expression", "np.add")


def _cases(package, numba_ufuncs, size: int) -> dict[str, dict[str, Callable[[], object]]]:
    rng = np.random.default_rng(0)
    x, k = rng.normal(size=size), rng.normal(size=size)
    x32, k32 = x.astype(np.float32), k.astype(np.float32)
    out, out32 = np.empty(size), np.empty(size, dtype=np.float32)
    log, add, relu = (numba_ufuncs[name] for name in ("logistic", "addf", "relu"))
    return {
        "logistic(x, k)": {
            "aotbuild": lambda: package.logistic(x, k, out=out),
            "numba @vectorize": lambda: log(x, k, out=out),
            "NumPy expression": lambda: np.divide(1.0, 1.0 + np.exp(-k * x), out=out),
            "np.add": lambda: np.add(x, k, out=out),
        },
        "logistic(x, 2.0): a broadcast scalar": {
            "aotbuild": lambda: package.logistic(x, 2.0, out=out),
            "numba @vectorize": lambda: log(x, 2.0, out=out),
            "NumPy expression": lambda: np.divide(1.0, 1.0 + np.exp(-2.0 * x), out=out),
            "np.add": lambda: np.add(x, 2.0, out=out),
        },
        "logistic(x, k), float32": {
            "aotbuild": lambda: package.logistic(x32, k32, out=out32),
            "numba @vectorize": lambda: log(x32, k32, out=out32),
            "NumPy expression": lambda: np.divide(1.0, 1.0 + np.exp(-k32 * x32), out=out32),
            "np.add": lambda: np.add(x32, k32, out=out32),
        },
        "relu(x)": {
            "aotbuild": lambda: package.relu(x, out=out),
            "numba @vectorize": lambda: relu(x, out=out),
            "NumPy expression": lambda: np.maximum(x, 0.0, out=out),
            "np.add": lambda: np.add(x, 0.0, out=out),
        },
        "addf.reduce(x)": {
            "aotbuild": lambda: package.addf.reduce(x),
            "numba @vectorize": lambda: add.reduce(x),
            "NumPy expression": lambda: np.add.reduce(x),
        },
    }


def _check(cases: dict[str, dict[str, Callable[[], object]]]) -> None:
    for case, peers in cases.items():
        results = {peer: np.array(call(), copy=True) for peer, call in peers.items() if peer != "np.add"}
        expected = results["NumPy expression"]
        for peer, value in results.items():
            if not np.allclose(value, expected, rtol=1e-6, atol=1e-12):
                raise SystemExit(f"{case}: {peer} differs from NumPy's result")


def _best_times(cases: dict[str, dict[str, Callable[[], object]]]) -> dict[tuple[str, str], float]:
    best: dict[tuple[str, str], float] = {}
    for round_ in range(ROUNDS):
        for case, peers in cases.items():
            names = list(peers)
            shift = round_ % len(names)
            for peer in names[shift:] + names[:shift]:
                timer = timeit.Timer(peers[peer])
                number = max(1, int(0.02 / max(timer.timeit(1), 1e-7)))
                seconds = timer.timeit(number) / number
                best[(case, peer)] = min(best.get((case, peer), seconds), seconds)
    return best


def _dispatch(package) -> list[str]:
    """The time a name's several signatures add to a call: the choice, made in C."""
    floats, ints = np.ones(4), np.ones(4, dtype=np.int64)
    assert package.norm1(floats) == package.norm1_float64(floats) == 4.0
    assert package.norm1(ints) == package.norm1_int64(ints) == 4
    cases = {
        "float64 values (the first signature)": {
            "several": lambda: package.norm1(floats),
            "one": lambda: package.norm1_float64(floats),
        },
        "int64 values (the third)": {
            "several": lambda: package.norm1(ints),
            "one": lambda: package.norm1_int64(ints),
        },
    }
    best = _best_times(cases)
    lines = [
        "Several signatures under one name: `norm1` declared `float64(float64[:])`, "
        "`float32(float32[:])`, `int64(int64[:])`, beside the same function declared with the one "
        "signature the call picks (4 values):",
        "",
        "| arguments | norm1 (several) | one signature | the choice costs |",
        "|---|---|---|---|",
    ]
    for case in cases:
        several, one = best[(case, "several")], best[(case, "one")]
        lines.append(f"| {case} | {_time(several)} | {_time(one)} | {(several - one) * 1e9:+.1f} ns |")
    return lines


def _time(seconds: float) -> str:
    return f"{seconds * 1e9:,.0f} ns" if seconds < 1e-5 else f"{seconds * 1e6:,.1f} µs"


def main() -> None:
    import numba

    with tempfile.TemporaryDirectory(prefix="bench-ufuncs-") as temp:
        project, out = build_program(Path(temp), "ufunc_program")
        sys.path[:0] = [str(out), str(project)]
        import activations
        import activations_ext

        numba_ufuncs = {
            "logistic": numba.vectorize(["float32(float32, float32)", "float64(float64, float64)"])(
                activations.logistic
            ),
            "addf": numba.vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)(
                activations.addf
            ),
            "relu": numba.vectorize(["float64(float64)"])(activations.relu),
        }
        lines = [
            "## Ufuncs",
            "",
            measured_by("bench_ufuncs.py"),
            "",
            "Time per call of each ufunc of `bench/ufunc_program` (docs/ufuncs.md's example), "
            "`out=` given where the result is an array; in brackets, aotbuild's time ÷ the "
            "peer's (below 1: aotbuild is faster). np.add: NumPy's own ufunc on the same "
            "operands, the floor of the ufunc machinery.",
            "",
        ]
        for size in SIZES:
            cases = _cases(activations_ext, numba_ufuncs, size)
            _check(cases)
            best = _best_times(cases)
            lines += [f"{size:,} values:", "", "| call | " + " | ".join(PEERS) + " |", "|---" * 5 + "|"]
            for case, peers in cases.items():
                ours = best[(case, "aotbuild")]
                cells = []
                for peer in PEERS:
                    if peer not in peers:
                        cells.append("—")
                    elif peer == "aotbuild":
                        cells.append(_time(ours))
                    else:
                        theirs = best[(case, peer)]
                        cells.append(f"{_time(theirs)} ({ours / theirs:.2f})")
                lines.append(f"| `{case}` | " + " | ".join(cells) + " |")
            lines.append("")
        lines += _dispatch(activations_ext)
    text = "\n".join(lines).rstrip()
    print(text)
    write_section("ufuncs", text)


if __name__ == "__main__":
    main()
