"""Support for testing and measuring ``templates/vecmath``: load the sources, jit loops
over the public functions, sample each function's domain, and measure errors in ulps
against a long double reference (x87 80-bit ``np.longdouble``, glibc ``expl``, ``sinl``...).

Used by ``tests/codegen/test_vecmath.py`` and ``bench/vecmath_accuracy.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

VECMATH_DIR = Path(__file__).resolve().parents[2] / "templates" / "vecmath"

UNARY = [
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "cbrt",
]
BINARY = ["arctan2", "power", "hypot"]
DTYPES = ["float64", "float32"]


#: NumPy's documented bound on this machine (float64 mostly SVML "ha", float32 SVML).
NUMPY_BOUND = {"float64": "1 (SVML ha)", "float32": "4 (SVML)"}

#: |x| above which sin/cos/tan vector paths are not valid (see *_in_range).
TRIG_LIMIT = {
    ("sin", "float64"): 1e14,
    ("cos", "float64"): 1e14,
    ("tan", "float64"): 1e14,
    ("sin", "float32"): 25000.0,
    ("cos", "float32"): 25000.0,
    ("tan", "float32"): 1e6,
}


def load_vecmath() -> dict:
    """exec every vecmath source file into one namespace, as the code generator pastes
    them into one module."""
    namespace: dict = {}
    for path in sorted(VECMATH_DIR.glob("*.py")):
        exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


def defined_functions() -> dict[str, tuple[str, ast.FunctionDef]]:
    """Every module-level def in the vecmath files: name -> (file name, node)."""
    out: dict[str, tuple[str, ast.FunctionDef]] = {}
    for path in sorted(VECMATH_DIR.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef):
                if node.name in out:
                    raise AssertionError(f"{node.name} defined twice ({out[node.name][0]}, {path.name})")
                out[node.name] = (path.name, node)
    return out


_LOOPS: dict = {}


def vector_loop(ns: dict, name: str, nargs: int):
    """A numba loop ``out[i] = f(a[i])`` (or ``f(a[i], b[i])``) over public function name."""
    import numba

    key = (id(ns), name)
    if key in _LOOPS:
        return _LOOPS[key]
    f = ns[name]
    if nargs == 1:

        @numba.njit
        def loop1(a, out):  # noqa: E306
            for i in range(a.shape[0]):
                out[i] = f(a[i])

        loop = loop1
    else:

        @numba.njit
        def loop2(a, b, out):
            for i in range(a.shape[0]):
                out[i] = f(a[i], b[i])

        loop = loop2
    _LOOPS[key] = loop
    return loop


def evaluate(ns: dict, fn: str, dtype: str, *args: np.ndarray) -> np.ndarray:
    loop = vector_loop(ns, f"{fn}_{dtype}", len(args))
    out = np.empty(args[0].shape, dtype=dtype)
    loop(*args, out)
    return out


# --- reference and ulps -----------------------------------------------------------------


def reference(fn: str, *args: np.ndarray) -> np.ndarray:
    ld = [np.asarray(a, dtype=np.longdouble) for a in args]
    with np.errstate(all="ignore"):
        return getattr(np, fn)(*ld)


def ulp_errors(got: np.ndarray, ref: np.ndarray, dtype: str) -> np.ndarray:
    """|got - ref| in units of the dtype's spacing at the true result ref (long double):
    2**(exponent(ref) - precision), never below the smallest subnormal. Where ref rounds
    to inf (or is inf/nan) the error is 0 if got is that same value, else inf."""
    info = np.finfo(dtype)
    prec = info.nmant + 1
    tiny_exp = int(np.log2(float(info.smallest_subnormal)))
    with np.errstate(all="ignore"):
        ref_d = ref.astype(dtype)
        _, e = np.frexp(ref)
        ulp = np.ldexp(np.longdouble(1), np.maximum(e.astype(np.int64) - prec, tiny_exp))
        err = np.abs(got.astype(np.longdouble) - ref) / ulp
    special = ~np.isfinite(ref_d)
    same = (got == ref_d) | (np.isnan(got) & np.isnan(ref_d))
    err = np.where(special, np.where(same, 0.0, np.inf), err)
    err = np.where(np.isfinite(ref_d) & ~np.isfinite(got), np.inf, err)
    return err.astype(np.float64)


def same_as_numpy(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Exact agreement on special results: same NaN-ness, same infinities, same zeros
    with the same sign; finite non-zero results count as agreeing (checked in ulps)."""
    nan_ok = np.isnan(got) == np.isnan(want)
    inf_ok = np.where(np.isinf(want) | np.isinf(got), got == want, True)
    zero_ok = np.where((want == 0) | (got == 0), (got == want) & (np.signbit(got) == np.signbit(want)), True)
    return nan_ok & inf_ok & zero_ok


def special_disagreements(got: np.ndarray, want: np.ndarray, ref: np.ndarray, dtype: str) -> np.ndarray:
    """Where special results (NaN, infinities, signed zeros) differ from NumPy's ``want`` in a
    way the long double reference ``ref`` does not explain: NumPy itself may round a finite
    result to 0 or inf differently from the true value (float32 ``exp2(-149.95)`` is the
    smallest subnormal, correctly rounded; NumPy says 0)."""
    with np.errstate(all="ignore"):
        rounded = ref.astype(dtype)
    explained = same_as_numpy(got, rounded) & (np.isnan(got) == np.isnan(want))
    return ~same_as_numpy(got, want) & ~explained


# --- sampling ---------------------------------------------------------------------------


def _f(dtype):
    return np.dtype(dtype).type


def random_bits(rng, n, dtype):
    if dtype == "float64":
        x = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False).view(np.float64)
    else:
        x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return x[np.isfinite(x)]


def uniform(rng, lo, hi, n, dtype):
    return rng.uniform(lo, hi, n).astype(dtype)


def log_uniform(rng, lo, hi, n, dtype, signs=(1,)):
    """|x| log-uniform on [lo, hi] (lo > 0): every binade gets its share."""
    mag = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    sign = rng.choice(np.array(signs, dtype=float), n)
    with np.errstate(over="ignore"):
        return (sign * mag).astype(dtype)


def special_values(dtype) -> np.ndarray:
    info = np.finfo(dtype)
    f = _f(dtype)
    base = [
        0.0,
        np.inf,
        np.nan,
        float(info.smallest_subnormal),
        float(info.smallest_normal),
        float(info.smallest_normal) - float(info.smallest_subnormal),
        float(info.max),
        1.0,
        0.5,
        2.0,
        3.0,
        10.0,
        100.0,
        1e-300 if dtype == "float64" else 1e-38,
    ]
    vals = np.array(base, dtype=dtype)
    vals = np.concatenate([vals, -vals, np.array([-0.0], dtype=dtype)])
    return vals.astype(dtype) if f is not None else vals


def near(values, dtype, k=8):
    """values and their k nearest neighbours on each side."""
    out = []
    with np.errstate(over="ignore"):  # float64 edges past float32's range become infinities
        values = np.asarray(values, dtype=dtype)
    for v in values:
        a = v
        b = v
        out.append(v)
        for _ in range(k):
            a = np.nextafter(a, _f(dtype)(np.inf))
            b = np.nextafter(b, _f(dtype)(-np.inf))
            out += [a, b]
    return np.array(out, dtype=dtype)


def unary_samples(fn: str, dtype: str, n: int, seed: int = 0) -> np.ndarray:
    """Inputs over fn's whole domain: random bit patterns, log-uniform over every binade
    of both signs, uniform over the interesting range(s), and special values."""
    rng = np.random.default_rng(seed)
    is64 = dtype == "float64"
    big = 1.7976931348623157e308 if is64 else 3.4028234e38
    tiny = 5e-324 if is64 else 1.4e-45
    parts = [
        random_bits(rng, n // 5, dtype),
        log_uniform(rng, tiny, big, n // 5, dtype, signs=(1, -1)),
        special_values(dtype),
    ]
    m = n - 2 * (n // 5)
    ranges = DOMAINS[fn](dtype)
    for lo, hi, kind in ranges:
        k = m // len(ranges)
        if kind == "u":
            parts.append(uniform(rng, lo, hi, k, dtype))
        elif kind == "l":
            parts.append(log_uniform(rng, lo, hi, k, dtype, signs=(1,)))
        elif kind == "l-":
            parts.append(log_uniform(rng, lo, hi, k, dtype, signs=(-1,)))
        elif kind == "l+-":
            parts.append(log_uniform(rng, lo, hi, k, dtype, signs=(1, -1)))
    parts.append(near(EDGES[fn](dtype), dtype))
    return np.concatenate([np.asarray(p, dtype=dtype) for p in parts])


def _trig_ranges(dtype, fn="sin"):
    lim = TRIG_LIMIT[fn, dtype]
    return [
        (-10, 10, "u"),
        (-min(1e5, lim), min(1e5, lim), "u"),
        (1e-30, lim, "l+-"),
        (lim / 100, lim, "l+-"),
    ]


def _trig_edges(dtype, fn="sin"):
    lim = TRIG_LIMIT[fn, dtype]
    k = np.arange(-40, 41)
    pts = list(k * (np.pi / 2)) + list(k * np.pi) + [lim, -lim]
    big = np.array([1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e12, 1e13, 3e13, 9e13], dtype=float)
    big = big[big < lim]
    pts += list(np.round(big / (np.pi / 2)) * (np.pi / 2))
    return np.array(pts)


DOMAINS = {
    "exp": lambda d: [(-750, 710, "u"), (-104, 89, "u"), (1e-20, 750, "l+-")],
    "exp2": lambda d: [(-1080, 1025, "u"), (-150, 129, "u"), (1e-20, 1100, "l+-")],
    "expm1": lambda d: [(-40, 710, "u"), (-1, 1, "u"), (1e-300 if d == "float64" else 1e-38, 750, "l+-")],
    "log": lambda d: [(0, 10, "u"), (0.5, 2, "u"), (1e-300, 1e300, "l")],
    "log2": lambda d: [(0, 10, "u"), (0.5, 2, "u"), (1e-300, 1e300, "l")],
    "log10": lambda d: [(0, 10, "u"), (0.5, 2, "u"), (1e-300, 1e300, "l")],
    "log1p": lambda d: [(-1, 10, "u"), (-0.5, 1, "u"), (1e-300, 1e300, "l+-")],
    "sin": lambda d: _trig_ranges(d, "sin"),
    "cos": lambda d: _trig_ranges(d, "cos"),
    "tan": lambda d: _trig_ranges(d, "tan"),
    "arcsin": lambda d: [(-1, 1, "u"), (1e-300, 1, "l+-")],
    "arccos": lambda d: [(-1, 1, "u"), (1e-300, 1, "l+-")],
    "arctan": lambda d: [(-10, 10, "u"), (1e-300, 1e300, "l+-")],
    "sinh": lambda d: [(-712, 712, "u"), (-90, 90, "u"), (1e-300, 720, "l+-")],
    "cosh": lambda d: [(-712, 712, "u"), (-90, 90, "u"), (1e-300, 720, "l+-")],
    "tanh": lambda d: [(-20, 20, "u"), (-1, 1, "u"), (1e-300, 30, "l+-")],
    "arcsinh": lambda d: [(-10, 10, "u"), (1e-300, 1e300, "l+-")],
    "arccosh": lambda d: [(1, 10, "u"), (1, 1e300, "l")],
    "arctanh": lambda d: [(-1, 1, "u"), (1e-300, 1, "l+-")],
    "cbrt": lambda d: [(-10, 10, "u"), (1e-300, 1e300, "l+-")],
}


def _exp_edges(d):
    if d == "float64":
        return [
            709.782712893384,
            709.78,
            -708.39641853226408,
            -745.1332191019411,
            -745.13321910194122,
            -744.44007192138122,
            0.0,
            1e-300,
        ]
    return [88.72283, 88.7228, -87.33654, -103.97208, -103.27893, 1e-30]


EDGES = {
    "exp": _exp_edges,
    "exp2": lambda d: (
        [1024.0, 1023.9999999999999, -1022.0, -1074.0, -1075.0, -1075.5]
        if d == "float64"
        else [128.0, 127.99999, -126.0, -149.0, -150.0]
    ),
    "expm1": lambda d: _exp_edges(d) + [-36.7368, 1e-10, -1e-10, 1e-300],
    "log": lambda d: [1.0, 2.0, 0.5, np.e],
    "log2": lambda d: [1.0, 2.0, 0.5, 1024.0, 2.0**-1074 if d == "float64" else 2.0**-149],
    "log10": lambda d: [1.0, 10.0, 100.0, 1e-10, 1e10],
    "log1p": lambda d: [-1.0, -0.5, 0.0, 1e-300, 1.0, 1e300 if d == "float64" else 1e38],
    "sin": lambda d: _trig_edges(d, "sin"),
    "cos": lambda d: _trig_edges(d, "cos"),
    "tan": lambda d: _trig_edges(d, "tan"),
    "arcsin": lambda d: [1.0, -1.0, 0.5, -0.5, 0.0],
    "arccos": lambda d: [1.0, -1.0, 0.5, -0.5, 0.0],
    "arctan": lambda d: [1.0, -1.0, 1e300, -1e300],
    "sinh": lambda d: [710.4758600739439, 709.78, 89.4159, 88.7228, 1e-300],
    "cosh": lambda d: [710.4758600739439, 709.78, 89.4159, 88.7228, 0.0],
    "tanh": lambda d: [18.714973875, 19.06, 9.01, 0.55, 0.625, 1e-300],
    "arcsinh": lambda d: [1.0, 1e154, 1.3407807929942596e154, 1e300],
    "arccosh": lambda d: [1.0, 2.0, 1e154, 1.3407807929942596e154, 1e300],
    "arctanh": lambda d: [1.0, -1.0, 0.5, -0.5],
    "cbrt": lambda d: [1.0, 8.0, 27.0, -8.0, 1e-300],
}


def binary_samples(fn: str, dtype: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    is64 = dtype == "float64"
    big = 1.7976931348623157e308 if is64 else 3.4028234e38
    tiny = 5e-324 if is64 else 1.4e-45
    specials = special_values(dtype)
    # every pair of special values
    sx, sy = np.meshgrid(specials, specials)
    xs = [sx.ravel(), random_bits(rng, n // 6, dtype)]
    ys = [sy.ravel(), random_bits(rng, n // 6, dtype)]
    xs[1], ys[1] = xs[1][: min(len(xs[1]), len(ys[1]))], ys[1][: min(len(xs[1]), len(ys[1]))]
    k = n // 6
    if fn == "arctan2":
        for (xlo, xhi), (ylo, yhi) in [((-10, 10), (-10, 10)), ((-1, 1), (-1, 1))]:
            xs.append(uniform(rng, xlo, xhi, k, dtype))
            ys.append(uniform(rng, ylo, yhi, k, dtype))
        xs.append(log_uniform(rng, tiny, big, k, dtype, (1, -1)))
        ys.append(log_uniform(rng, tiny, big, k, dtype, (1, -1)))
    elif fn == "hypot":
        xs.append(log_uniform(rng, tiny, big, k, dtype, (1, -1)))
        ys.append(log_uniform(rng, tiny, big, k, dtype, (1, -1)))
        x = log_uniform(rng, 1e-5, 1e5, k, dtype, (1, -1))
        xs.append(x)
        ys.append((x * log_uniform(rng, 1e-10, 1e10, k, dtype)).astype(dtype))
        xs.append(
            np.array([1e300, 1e-300, 3e-320, 1e308], dtype=dtype)
            if is64
            else np.array([1e38, 1e-38, 1e-44], dtype=dtype)
        )
        ys.append(
            np.array([1e300, 1e-300, 4e-320, 1e308], dtype=dtype)
            if is64
            else np.array([1e38, 1e-38, 1e-44], dtype=dtype)
        )
    elif fn == "power":
        # (x, y) over log ranges with a finite, non-zero result: |y * log2|x|| < 1000
        lim = 1000.0 if is64 else 120.0
        x = log_uniform(rng, 1e-300 if is64 else 1e-37, 1e300 if is64 else 1e37, k, dtype)
        lx = np.log2(np.abs(x.astype(np.float64)))
        y = (rng.uniform(-1, 1, k) * lim / np.maximum(np.abs(lx), 1e-3)).astype(dtype)
        xs.append(x), ys.append(y)
        x = uniform(rng, 0, 4, k, dtype)
        xs.append(x), ys.append(uniform(rng, -60 if is64 else -30, 60 if is64 else 30, k, dtype))
        # negative bases with integer exponents, near-1 bases with huge exponents
        x = -log_uniform(rng, 1e-3, 1e3, k, dtype)
        xs.append(x), ys.append(rng.integers(-50, 50, k).astype(dtype))
        x = (1 + rng.uniform(-1e-6, 1e-6, k)).astype(dtype)
        xs.append(x), ys.append(uniform(rng, -1e7, 1e7, k, dtype))
        ex = np.array(
            [
                0.5,
                2.0,
                3.0,
                -1.0,
                1.0 / 3.0,
                -0.5,
                -2.0,
                0.0,
                -0.0,
                1.0,
                1e10,
                -1e10,
                np.inf,
                -np.inf,
                np.nan,
            ],
            dtype=dtype,
        )
        bases = np.concatenate(
            [
                specials,
                np.array([-8.0, -2.0, -1.0, 1.0, 8.0, 0.9, 1.1, -0.9, -1.1], dtype=dtype),
                log_uniform(rng, 1e-3, 1e3, 60, dtype, (1, -1)),
            ]
        )
        bx, by = np.meshgrid(bases, ex)
        xs.append(bx.ravel()), ys.append(by.ravel())
    return (
        np.concatenate([np.asarray(a, dtype=dtype) for a in xs]),
        np.concatenate([np.asarray(a, dtype=dtype) for a in ys]),
    )


def in_trig_range(x: np.ndarray, fn: str, dtype: str) -> np.ndarray:
    a = np.abs(x)
    return ~((a > TRIG_LIMIT[fn, dtype]) & (a < np.inf))


def measure(ns: dict, fn: str, dtype: str, n: int, seed: int = 0) -> dict:
    """Max ulp error of fn_dtype over n sampled inputs, and the inputs where special
    results differ from NumPy's."""
    args = binary_samples(fn, dtype, n, seed) if fn in BINARY else (unary_samples(fn, dtype, n, seed),)
    if fn in ("sin", "cos", "tan"):
        keep = in_trig_range(args[0], fn, dtype)
        args = (args[0][keep],)
    return score(fn, dtype, args, evaluate(ns, fn, dtype, *args))


def score(fn: str, dtype: str, args: tuple[np.ndarray, ...], got: np.ndarray) -> dict:
    """``got`` (fn_dtype of ``args``, by the library or a compiled graph) against the long double
    reference and NumPy's special results: the max ulp error, its input, and up to 10 inputs
    where special results differ from NumPy's in a way the reference does not explain."""
    with np.errstate(all="ignore"):
        want = getattr(np, fn)(*args)
    ref = reference(fn, *args)
    err = ulp_errors(got, ref, dtype)
    bad_special = special_disagreements(got, want, ref, dtype)
    worst = int(np.argmax(err)) if err.size else 0
    return {
        "n": int(args[0].size),
        "max_ulp": float(err.max()) if err.size else 0.0,
        "worst_input": tuple(float(a[worst]) for a in args),
        "worst_got": float(got[worst]),
        "worst_ref": float(ref[worst]),
        "special_mismatches": [
            (tuple(float(a[i]) for a in args), float(got[i]), float(want[i]))
            for i in np.flatnonzero(bad_special)[:10]
        ],
    }


#: The documented max ulp error of each public function (checked by the tests).
#: float32 functions computed in float64 and rounded are within 0.5 ulp + a double
#: rounding; native float32 implementations have their own bounds.
DOCUMENTED_BOUND: dict[tuple[str, str], float] = {
    **{(fn, "float64"): 1.0 for fn in UNARY + BINARY},
    **{(fn, "float32"): 1.0 for fn in UNARY + BINARY},
    # native float32 implementations (float32 arithmetic, twice the lanes)
    ("sin", "float32"): 1.5,
    ("cos", "float32"): 1.5,
    ("expm1", "float32"): 1.5,
    ("tanh", "float32"): 2.0,
}


def domain_description(fn: str, dtype: str) -> str:
    if fn in BINARY:
        return {
            "arctan2": "all special pairs, random bits, [-10,10]^2, [-1,1]^2, log-uniform pairs",
            "hypot": "all special pairs, random bits, log-uniform pairs, ratios 1e-10..1e10, huge/tiny",
            "power": "special pairs, random bits, log-uniform x with abs(y log2 x) < 1000, [0,4]x[-60,60], "
            "x<0 with integer y, x near 1 with |y|<1e7, exponents 0.5 2 3 -1 1/3 +-inf nan",
        }[fn]
    parts = ["random bits", "log-uniform ±[tiny, max]"]
    for lo, hi, kind in DOMAINS[fn](dtype):
        sign = {"u": "", "l": "log ", "l-": "log -", "l+-": "log ±"}[kind]
        parts.append(f"{sign}[{lo:g}, {hi:g}]")
    return ", ".join(parts) + ", specials, edges"


def measure_all(ns: dict, n: int, functions=None, dtypes=None) -> dict:
    out = {}
    for fn in functions or UNARY + BINARY:
        for dtype in dtypes or DTYPES:
            out[f"{fn}-{dtype}"] = measure(ns, fn, dtype, n)
    return out
