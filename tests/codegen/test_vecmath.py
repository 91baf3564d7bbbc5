"""templates/vecmath: the vectorisable math library the code generator pastes into
generated modules instead of per-element libm calls.

Checks the template rules (self-sufficient sources, decorators), the accuracy contract
against a long double reference on a sample of each function's domain, NumPy's results on
special values, the trig range guards, and the same bounds on the 'generic' CPU (no FMA:
Dekker's products) in a subprocess started at the beginning so it runs beside the
in-process tests (which take the FMA path where this machine has FMA, as its packages do: with
the suite's JIT set to generic, through the C library's fma, which gives the same bits).
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from aotbuild.codegen.vecmath import INTRINSICS
from aotbuild.compile.intrinsics import native_fma
from aotbuild.compile.target import resolve_target, target_has_fma
from tests.codegen import vecmath_support as vs

N = 40_000
CASES = [(fn, dt) for fn in vs.UNARY + vs.BINARY for dt in vs.DTYPES]
REPO = vs.VECMATH_DIR.parents[1]


@pytest.fixture(scope="module", autouse=True)
def generic_cpu_run():
    """The whole measurement under NUMBA_CPU_NAME=generic (SSE2, no FMA), started first."""
    code = (
        "import json, warnings; warnings.simplefilter('ignore');"
        "from tests.codegen import vecmath_support as vs;"
        f"print(json.dumps(vs.measure_all(vs.load_vecmath(), {N})))"
    )
    env = dict(os.environ, NUMBA_CPU_NAME="generic", PYTHONWARNINGS="ignore")
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


#: Whether this machine has FMA: packages built for it take the library's FMA path, as the
#: in-process measurements here do (the generic subprocess takes the path without).
HOST_FMA = target_has_fma(resolve_target("host"))


@pytest.fixture(scope="module")
def ns():
    with native_fma(HOST_FMA):  # numba compiles each loop at its first call, within
        yield vs.load_vecmath()


def test_products_without_fma_are_within_2_to_the_minus_103_of_the_exact_ones():
    """_dd_mul_d_d's double-double product: by one FMA, exact; by Dekker's split (targets
    without FMA), exact unless the two low halves' product needs 54 bits (SLEEF's split by
    masking leaves 27 bits in each: about 4% of products of normal numbers), and within 2^-103
    of the product there (the functions' bounds hold on both paths: the generic subprocess
    measures them). Where the product and its error are normal."""
    import numba

    rng = np.random.default_rng(7)
    n = 100_000
    a, b = (rng.integers(0, 2**63, n, dtype=np.uint64).view(np.float64) for _ in range(2))
    a, b = np.where(np.isfinite(a), a, 1.5), np.where(np.isfinite(b), b, -0.75)
    results = []
    for available in (False, True):
        with native_fma(available):
            product = vs.load_vecmath()["_dd_mul_d_d"]

            @numba.njit
            def run(x, y, hi, lo):
                for i in range(x.shape[0]):
                    hi[i], lo[i] = product(x[i], y[i])  # noqa: B023 (compiled and called here)

            hi, lo = np.empty(n), np.empty(n)
            run(a, b, hi, lo)
        results.append((hi, lo))
    with np.errstate(all="ignore"):
        exact = np.isfinite(a * b) & (np.abs(a * b) > 2.0**-960)
        assert exact.sum() > n // 3
        (split_hi, split_lo), (fused_hi, fused_lo) = results
        np.testing.assert_array_equal(split_hi[exact], fused_hi[exact])
        error = np.abs(split_lo - fused_lo)[exact] / np.abs(a * b)[exact]
    assert error.max() <= 2.0**-103
    assert np.count_nonzero(error) < 0.1 * exact.sum()


def test_sources_follow_the_template_rules():
    """Every function is a module-level def with the exact decorator, referencing only
    np, builtins and other vecmath functions; names are unique; every public function
    and range guard exists."""
    defs = vs.defined_functions()
    allowed = set(defs) | {"np"} | set(dir(builtins)) | set(INTRINSICS)
    for name, (_fname, node) in defs.items():
        (dec,) = node.decorator_list
        text = ast.unparse(dec)
        want = "register_jitable(forceinline=True, fastmath={'contract'}, error_model='numpy')"
        assert text == want, (name, text)
        names = [n for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Name)]
        assigned = {n.id for n in names if isinstance(n.ctx, ast.Store)}
        params = {a.arg for a in node.args.args}
        loaded = {n.id for n in names if isinstance(n.ctx, ast.Load)}
        free = loaded - assigned - params
        assert free <= allowed, (name, free - allowed)
        assert ast.get_docstring(node), name
    for path in vs.VECMATH_DIR.glob("*.py"):
        module = ast.parse(path.read_text())
        for node in module.body:
            assert isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.Expr)), (
                path.name,
                ast.dump(node)[:80],
            )
        assert "SLEEF" in ast.get_docstring(module), path.name
    assert (vs.VECMATH_DIR / "LICENSE.sleef").read_text().count("Boost Software License") >= 2
    for fn, dt in CASES:
        assert f"{fn}_{dt}" in defs
    for fn in ("sin", "cos", "tan"):
        for dt in vs.DTYPES:
            assert f"{fn}_{dt}_in_range" in defs


@pytest.mark.parametrize("fn,dtype", CASES, ids=[f"{fn}-{dt}" for fn, dt in CASES])
def test_accuracy_and_special_values(ns, fn, dtype):
    r = vs.measure(ns, fn, dtype, N)
    assert r["special_mismatches"] == []
    bound = vs.DOCUMENTED_BOUND[fn, dtype]
    assert r["max_ulp"] <= bound, r


@pytest.mark.parametrize("fma", [False, True], ids=["split", "fma"])
@pytest.mark.parametrize("dtype", vs.DTYPES)
def test_integer_powers(dtype, fma):
    """x ** n for n = 3 .. 8 and -8 .. -2 (a scalar exponent's fast path): within the power's bound over
    random bits, every binade where the result neither overflows nor underflows, and the special
    values, which are NumPy's; within half an ulp and a hair away from the subnormals."""
    import numba

    library = vs.load_vecmath()
    positive, negative = library[f"power_integer_{dtype}"], library[f"power_negative_integer_{dtype}"]

    @numba.njit
    def run(x, n, out):
        for i in range(x.shape[0]):
            out[i] = positive(x[i], n) if n > 0 else negative(x[i], -n)

    rng = np.random.default_rng(3)
    top = np.log(float(np.finfo(dtype).max))
    for n in [*range(3, 9), *range(-8, -1)]:
        bound = np.exp(top / abs(n)) * 0.999
        x = np.concatenate(
            [
                vs.random_bits(rng, 20_000, dtype),
                vs.log_uniform(rng, 1 / bound, bound, 20_000, dtype, signs=(1, -1)),
                vs.special_values(dtype),
            ]
        )
        got = np.empty_like(x)
        with native_fma(fma):  # numba compiles run (for this n's type) at its first call
            run(x, n, got)
        with np.errstate(all="ignore"):
            want = np.power(x, np.dtype(dtype).type(n))
        ref = vs.reference("power", x, np.full_like(x, n))
        errors = vs.ulp_errors(got, ref, dtype)
        assert errors.max() <= vs.DOCUMENTED_BOUND["power", dtype], (n, x[errors.argmax()], errors.max())
        assert not vs.special_disagreements(got, want, ref, dtype).any(), n
        # the double-double's low part stays normal (exact) above ~2**-969
        normal = np.isfinite(ref) & (np.abs(ref) > (2.0**-960 if dtype == "float64" else 2.0**-120))
        assert errors[normal].max() <= 0.501, (n, x[normal][errors[normal].argmax()], errors[normal].max())


SPECIAL_CASES = [
    ("exp", (-np.inf,)),
    ("exp", (np.inf,)),
    ("exp", (800.0,)),
    ("exp", (-800.0,)),
    ("log", (-1.0,)),
    ("log", (0.0,)),
    ("log", (-0.0,)),
    ("log", (np.inf,)),
    ("log", (1.0,)),
    ("tanh", (np.inf,)),
    ("tanh", (-np.inf,)),
    ("tanh", (-0.0,)),
    ("expm1", (-0.0,)),
    ("expm1", (-np.inf,)),
    ("log1p", (-0.0,)),
    ("log1p", (-1.0,)),
    ("log1p", (-2.0,)),
    ("cbrt", (-0.0,)),
    ("cbrt", (-np.inf,)),
    ("sinh", (-0.0,)),
    ("arcsinh", (-0.0,)),
    ("arctanh", (-1.0,)),
    ("arcsin", (1.5,)),
    ("arccos", (-1.0,)),
    ("arctan", (-np.inf,)),
    ("sin", (-0.0,)),
    ("tan", (-0.0,)),
    ("sin", (np.inf,)),
    ("cos", (-np.inf,)),
    ("tan", (np.nan,)),
    ("arccosh", (0.5,)),
    ("arccosh", (1.0,)),
    ("hypot", (np.inf, np.nan)),
    ("hypot", (np.nan, -np.inf)),
    ("hypot", (1e300, 1e300)),
    ("hypot", (-0.0, 0.0)),
    ("power", (np.nan, 0.0)),
    ("power", (np.nan, -0.0)),
    ("power", (1.0, np.nan)),
    ("power", (-1.0, np.inf)),
    ("power", (-1.0, -np.inf)),
    ("power", (-8.0, 1.0 / 3.0)),
    ("power", (-2.0, 3.0)),
    ("power", (0.0, -1.0)),
    ("power", (-0.0, -1.0)),
    ("power", (-0.0, -2.0)),
    ("power", (-0.0, 3.0)),
    ("power", (-np.inf, 3.0)),
    ("power", (-np.inf, -3.0)),
    ("power", (-np.inf, 2.0)),
    ("power", (0.5, np.inf)),
    ("power", (2.0, -np.inf)),
    ("power", (10.0, 400.0)),
    ("power", (10.0, -400.0)),
    ("power", (-10.0, 309.0)),
] + [
    ("arctan2", (y, x))
    for y in (0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan)
    for x in (0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan)
]


@pytest.mark.parametrize("dtype", vs.DTYPES)
def test_special_values_are_numpys(ns, dtype):
    """Listed special cases give NumPy's result exactly (NaN-ness, infinities, zero signs;
    finite values equal)."""
    for fn, args in SPECIAL_CASES:
        with np.errstate(over="ignore"):  # float64 cases past float32's range: infinities
            arrays = [np.array([a], dtype=dtype) for a in args]
        got = vs.evaluate(ns, fn, dtype, *arrays)[0]
        with np.errstate(all="ignore"):
            want = getattr(np, fn)(*arrays)[0]
        same = (np.isnan(got) and np.isnan(want)) or (got == want and np.signbit(got) == np.signbit(want))
        if not same and np.isfinite(want) and want != 0:
            same = abs(float(got) - float(want)) <= 2 * float(np.spacing(np.abs(want)))
        assert same, (fn, args, dtype, got, want)


@pytest.mark.parametrize("dtype", vs.DTYPES)
def test_trig_range_guards(ns, dtype):
    import numba

    for fn in ("sin", "cos", "tan"):
        lim = vs.TRIG_LIMIT[fn, dtype]
        values = np.array(
            [
                0.0,
                1.0,
                -lim * 0.9999999,
                lim * 0.9999999,
                lim * 1.0000001,
                -lim * 10,
                1e300 if dtype == "float64" else 3e38,
                np.inf,
                -np.inf,
                np.nan,
            ],
            dtype=dtype,
        )
        want = [True, True, True, True, False, False, False, True, True, True]
        guard = ns[f"{fn}_{dtype}_in_range"]

        @numba.njit
        def run(a):
            out = np.empty(a.shape[0], dtype=np.bool_)
            for i in range(a.shape[0]):
                out[i] = guard(a[i])  # noqa: B023 (compiled and called in this iteration)
            return out

        assert list(run(values)) == want, fn


def test_generic_cpu_meets_the_bounds(generic_cpu_run):
    """The same measurement compiled for NUMBA_CPU_NAME=generic (no FMA contraction)."""
    out, err = generic_cpu_run.communicate(timeout=600)
    assert generic_cpu_run.returncode == 0, err[-3000:]
    results = json.loads(out.strip().splitlines()[-1])
    bad = {
        k: (r["max_ulp"], r["worst_input"], r["special_mismatches"][:3])
        for k, r in results.items()
        if r["max_ulp"] > vs.DOCUMENTED_BOUND[tuple(k.split("-"))] or r["special_mismatches"]
    }
    assert not bad
