"""scipy.special in compiled graphs: traced ufuncs give SciPy's bits (they call its C code),
logsumexp/softmax/log_softmax SciPy's values, and kernels call Cython exports as numba code
does; the package finds the exports again when it runs, and says so when it cannot."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.special

from aotbuild.errors import AotBuildError

from .conftest import PROJECTS, cached_caller_runs, load_package, write_project

sys.path.insert(0, str(PROJECTS / "special"))
import special_graphs  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

#: float32 functions SciPy computes in float32 where aotbuild calls the float64 export and
#: rounds (cython_special exports no float variant): at most 1 ulp apart.
WIDENED_FLOAT32 = {"xlogy", "xlog1py"}


@pytest.fixture(scope="module")
def built(build_project):
    return build_project(PROJECTS / "special" / "graphs.toml")


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


def sample(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n) * 10.0 ** rng.integers(-3, 2, size=n)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, -40.0, 40.0]
    return x


def ulps(got: np.ndarray, expected: np.ndarray) -> int:
    bits = np.int32 if got.dtype == np.float32 else np.int64
    both_nan = np.isnan(got) & np.isnan(expected)
    same = (got == expected) | both_nan
    if same.all():
        return 0
    return int(np.max(np.abs(got[~same].view(bits).astype(np.int64) - expected[~same].view(bits))))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("seed", [0, 1])
def test_traced_special_functions_are_scipys(package, dtype: str, seed: int) -> None:
    x = sample(3000, seed).astype(dtype)
    graph = package.every64 if dtype == "float64" else package.every32
    got = graph(x)
    expected = special_graphs.every_function(x)
    for name, g, e in zip(special_graphs.NAMES, got, expected, strict=True):
        assert g.dtype == e.dtype, name
        bound = 1 if dtype == "float32" and name in WIDENED_FLOAT32 else 0
        assert ulps(g, e) <= bound, f"{name} ({dtype}) differs from SciPy by {ulps(g, e)} ulp"
    strided = sample(600, seed).astype(dtype)[::3]
    for name, g, e in zip(
        special_graphs.NAMES, graph(strided), special_graphs.every_function(strided), strict=True
    ):
        assert ulps(g, e) <= 1, name


def test_special_functions_fuse_with_the_steps_around_them(package, built) -> None:
    rng = np.random.default_rng(2)
    k = rng.poisson(3.0, size=1000).astype(float)
    rate = rng.uniform(0.5, 5.0, size=1000)
    assert package.poisson_logp(k, rate) == special_graphs.poisson_logp(k, rate)
    ops = package.__graphs__["poisson_logp"]["ops"]
    assert len(ops) == 2, ops  # one fused sum (xlogy, subtract, gammaln, add...) and the entry
    manifest = package.manifest()
    assert "special.xlogy" in manifest["ops"][ops[0]]["title"]
    assert manifest["cython"]["graphs"]["poisson_logp"] == [
        "scipy.special.cython_special.__pyx_fuse_1xlogy",
        "scipy.special.cython_special.gammaln",
    ]
    assert manifest["cython"]["modules"] == ["scipy.special.cython_special"]


def test_integer_arguments_take_scipys_float64_loop(package) -> None:
    k = np.arange(-3, 40)
    np.testing.assert_array_equal(package.integer_special(k), scipy.special.gammaln(k))


@pytest.mark.parametrize("shape", [(4, 7), (1, 1), (3, 1), (5, 200)])
def test_logsumexp_and_softmax_match_scipy(package, shape) -> None:
    rng = np.random.default_rng(sum(shape))
    x = rng.normal(size=shape) * 30.0
    w = rng.uniform(0.1, 2.0, size=shape)
    for got, expected in zip(package.mixtures(x, w), special_graphs.mixtures(x, w), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-300)
        assert np.shape(got) == np.shape(expected)
    x[0] = -np.inf  # a row without finite values: shifted by 0, as SciPy does
    x[-1, 0] = np.inf
    for got, expected in zip(package.mixtures(x, w), special_graphs.mixtures(x, w), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-300)


def test_kernels_call_cython_exports(package) -> None:
    p = np.linspace(0.001, 0.999, 101)
    np.testing.assert_array_equal(package.normal_quantiles(p, 1.0, 2.0), 1.0 + 2.0 * scipy.special.ndtri(p))
    x = np.linspace(-5, 5, 41)
    np.testing.assert_array_equal(package.student_t_cdf(x, 3.5), scipy.special.stdtr(3.5, x))
    assert package.log_beta(2.5, 3.5) == scipy.special.betaln(2.5, 3.5) or np.isclose(
        package.log_beta(2.5, 3.5), scipy.special.betaln(2.5, 3.5), rtol=1e-15
    )


def test_the_kernel_object_declares_the_export(built) -> None:
    """Called by declaration: the Op's object holds an undefined symbol, never an address."""
    manifest = load_package(built).manifest()
    (symbol,) = [
        s
        for s in manifest["graphs"]["normal_quantiles"]["ops"]
        if "normal_quantiles" in s and "graph" not in s
    ]
    objects = built.package_dir.parent / ".aotbuild" / "special_ext" / "objects"
    names = subprocess.run(
        ["nm", str(objects / f"{symbol}.o")], capture_output=True, text=True, check=True
    ).stdout
    assert "U aot_cy_scipy_special_cython_special_ndtri" in names


RUN = """
import sys
sys.path.insert(0, {folder!r})
{block}
import numpy as np
import special_ext
assert sys.modules.get("numba") is None and "scipy" not in sys.modules  # neither imported
{call}
"""


def run_package(built, block: str, call: str) -> subprocess.CompletedProcess:
    code = RUN.format(folder=str(built.package_dir.parent), block=block, call=textwrap.dedent(call))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_exports_are_resolved_on_the_first_call_with_numba_blocked(built) -> None:
    done = run_package(
        built,
        "sys.modules['numba'] = None",
        """
        print(special_ext.normal_quantiles(np.array([0.025, 0.5]), 0.0, 1.0))
        assert "scipy.special.cython_special" in sys.modules
        """,
    )
    assert done.returncode == 0, done.stderr
    assert "[-1.95996398  0.        ]" in done.stdout


def test_a_cached_jitted_caller_finds_the_exports_resolved(built, tmp_path) -> None:
    """A caller numba loads from its cache calls the graph without typing a call first: the
    exports the graph calls are resolved when the package registers its graphs with numba."""
    (tmp_path / "jit_caller.py").write_text(
        "import numba\nimport special_ext\n\n\n@numba.njit(cache=True)\ndef caller(k, mu):\n"
        "    return special_ext.poisson_logp(k, mu)\n"
    )
    call = "jit_caller.caller(np.array([0.0, 2.0]), np.array([1.0, 3.0]))"
    value, again = cached_caller_runs(tmp_path, built.package_dir.parent, call)
    k, rate = np.array([0.0, 2.0]), np.array([1.0, 3.0])
    expected = scipy.special.xlogy(k, rate) - rate - scipy.special.gammaln(k + 1.0)
    assert float(value) == float(again) == pytest.approx(expected.sum(), rel=1e-12)


def test_a_missing_export_module_is_an_import_error_naming_the_graph(built) -> None:
    done = run_package(
        built,
        "sys.modules['scipy.special.cython_special'] = None",
        """
        try:
            special_ext.log_beta(1.0, 2.0)
        except ImportError as error:
            print("ImportError:", error)
        print(special_ext.every64.__name__)
        """,
    )
    assert done.returncode == 0, done.stderr
    assert (
        "ImportError: special_ext.log_beta() calls scipy.special.cython_special.gammaln "
        "(double (double, int __pyx_skip_dispatch)), found at run time: install the package providing it"
    ) in done.stdout


ERRORS = [
    (
        "import ctypes\nlib = ctypes.CDLL(None)\n_cos = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)"
        "(ctypes.cast(lib.cos, ctypes.c_void_p).value)\n\ndef f(x):\n    return _cos(x)\n",
        "float64(float64)",
        "kernel",
        "uses the global `_cos`, a C function at 0x",
    ),
    (
        "import ctypes\nfrom numba.extending import get_cython_function_address\n"
        "_ndtri = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(get_cython_function_address("
        "'scipy.special.cython_special', 'ndtri'))\n\ndef f(x):\n    return _ndtri(x)\n",
        "float32(float32)",
        "kernel",
        "declares the global `_ndtri` as float32(float32), but it is scipy.special.cython_special.ndtri",
    ),
    (
        "import numpy as np\nfrom scipy import special\n\ndef f(z):\n    return special.erf(z)\n",
        "complex128[:](complex128[:])",
        "trace",
        "scipy.special.erf in its complex128 loop is not supported while tracing",
    ),
    (
        "from scipy.special import logsumexp\n\ndef f(x):\n    return logsumexp(x, return_sign=True)\n",
        "Tuple(float64, float64)(float64[:])",
        "trace",
        "logsumexp(..., return_sign=True) is not supported while tracing",
    ),
]


@pytest.mark.parametrize(("source", "signature", "mode", "message"), ERRORS)
def test_errors_name_what_cannot_be_compiled(tmp_path, source, signature, mode, message) -> None:
    from aotbuild.build import build
    from aotbuild.progress import Progress

    config = f'[package]\nname = "bad_ext"\n\n[graphs.f]\nfunction = "bad:f"\nsignature = "{signature}"\nmode = "{mode}"\n'
    graphs = write_project(tmp_path, config, {"bad.py": source})
    with pytest.raises(AotBuildError, match=re.escape(message)):
        build(graphs, out_dir=str(tmp_path / "out"), progress=Progress(quiet=True))
