"""A generated package imports and runs with NumPy alone: numba and llvmlite are blocked.

Every graph kind is called — traced elementwise and reductions, kernels returning scalars,
tuples, views and nothing, kernels writing into arguments and raising — so that nothing can
hide behind a lazy import.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.modules["numba"] = None
    sys.modules["llvmlite"] = None
    sys.path[:0] = {paths!r}
    import numpy as np
    import example_ext, kernels_ext
    assert "scipy" not in sys.modules  # only looked for: mlp imports it on its first call

    rng = np.random.default_rng(0)
    x = rng.normal(size=500)
    z = (x - 0.5) / 1.5
    expected = np.sum(-0.5 * z**2 - np.log(1.5) - 0.5 * np.log(2 * np.pi))
    assert abs(example_ext.normal_logp(x, 0.5, 1.5) - expected) < 1e-9 * abs(expected)
    images = rng.random((2, 5, 6), dtype=np.float32)
    assert example_ext.normalize_channels(images).dtype == np.float32
    a = rng.normal(size=(6, 6))
    assert abs(example_ext.det(a) - np.linalg.det(a)) < 1e-9 * abs(np.linalg.det(a))
    sign, logdet = example_ext.slogdet(a)
    assert (sign, round(logdet, 9)) == (np.linalg.slogdet(a)[0], round(np.linalg.slogdet(a)[1], 9))

    v = np.linspace(-2, 2, 9)
    assert kernels_ext.clip_inplace(v, -1.0, 1.0) is None and v.max() == 1.0
    assert kernels_ext.count_clipped(np.array([5.0, 0.0]), -1.0, 1.0) == 1
    assert np.shares_memory(kernels_ext.tail(v), v) and kernels_ext.tail(v)[0] == v[1]
    mean, norm = kernels_ext.mean_and_norm(np.array([3.0, 4.0]))
    assert (mean, norm) == (3.5, 5.0)
    assert kernels_ext.polyval(np.zeros(3)).tolist() == [3.0, 3.0, 3.0]
    for call, kind in ((lambda: example_ext.det(np.ones((2, 3))), ValueError),
                       (lambda: kernels_ext.checked_sqrt(-1.0), ValueError),
                       (lambda: example_ext.normal_logp(x.astype(np.float32), 0.0, 1.0), TypeError)):
        try:
            call()
        except kind as exc:
            assert str(exc)
        else:
            raise AssertionError("expected " + kind.__name__)
    sys.path.append({example!r})
    import mlp
    layers = mlp.make_weights(0)
    batch = rng.normal(size=(3, 16)).astype(np.float32)
    assert np.allclose(example_ext.mlp(batch, *layers), mlp.mlp(batch, *layers), rtol=1e-5, atol=1e-6)
    assert "scipy.linalg.cython_blas" in sys.modules
    loaded = [name for name in sys.modules if name.split(".")[0] in ("numba", "llvmlite") and sys.modules[name] is not None]
    assert not loaded, loaded
    print("ok")
    """
)


def test_packages_run_without_numba(example_build, kernels_build) -> None:
    paths = [str(example_build.package_dir.parent), str(kernels_build.package_dir.parent)]
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(paths=paths, example=str(example_build.project.root))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


SCIPY_MISSING = textwrap.dedent(
    """
    import sys
    sys.modules["scipy"] = None
    sys.path[:0] = {paths!r}
    import numpy as np
    import kernels_ext
    assert kernels_ext.polyval(np.zeros(2)).tolist() == [3.0, 3.0]
    try:
        import example_ext
    except ImportError as exc:
        print(exc)
    else:
        raise AssertionError("example_ext needs SciPy for mlp")
    """
)

SCIPY_BROKEN = textwrap.dedent(
    """
    import sys
    sys.modules["scipy.linalg.cython_blas"] = None  # SciPy is there, its BLAS does not import
    sys.path[:0] = {paths!r}
    import numpy as np
    import example_ext
    weights = [np.eye(16, dtype=np.float32) if k % 2 == 0 else np.zeros(16, np.float32) for k in range(16)]
    batch = np.full((2, 16), 0.5, np.float32)
    try:
        example_ext.mlp(batch, *weights)
    except ImportError as exc:
        print(type(exc.__cause__).__name__, exc)
    else:
        raise AssertionError("mlp cannot run without SciPy's BLAS")
    assert abs(example_ext.normal_logp(np.zeros(3), 0.0, 1.0) + 1.5 * np.log(2 * np.pi)) < 1e-12
    del sys.modules["scipy.linalg.cython_blas"]
    expected = np.tanh(np.tanh(np.tanh(np.tanh(np.tanh(np.tanh(np.tanh(np.tanh(0.5))))))))
    assert np.allclose(example_ext.mlp(batch, *weights), expected)  # resolved once it can be
    print("recovered")
    """
)


def test_missing_scipy_fails_the_import_of_packages_that_need_it(example_build, kernels_build) -> None:
    paths = [str(example_build.package_dir.parent), str(kernels_build.package_dir.parent)]
    result = subprocess.run(
        [sys.executable, "-c", SCIPY_MISSING.format(paths=paths)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "example_ext: graph(s) mlp, mlp_loss_and_grad, dense use BLAS/LAPACK, which SciPy provides at "
        "run time; install scipy"
    )


def test_scipy_without_blas_is_an_import_error_on_first_call(example_build) -> None:
    paths = [str(example_build.package_dir.parent)]
    result = subprocess.run(
        [sys.executable, "-c", SCIPY_BROKEN.format(paths=paths)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    first, last = result.stdout.strip().splitlines()
    assert first.startswith(
        "ModuleNotFoundError example_ext.mlp() uses BLAS/LAPACK, which SciPy provides at run time: "
        "install scipy (import of scipy.linalg.cython_blas halted"
    ), first
    assert last == "recovered"


def test_a_native_module_lacking_ops_is_an_import_error_naming_them(
    example_build, kernels_build, tmp_path
) -> None:
    """The loader checks _native against the Ops it was built with: a mismatched copy fails clearly."""
    import shutil

    copy = tmp_path / "example_ext"
    shutil.copytree(example_build.package_dir, copy)
    shutil.copy(kernels_build.native, copy / example_build.native.name)
    script = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import example_ext"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: example_ext: compiled Op aot_"), result.stderr
    assert "needed by graph(s) " in last and last.endswith("; rebuild the package")


def test_importing_a_package_loads_neither_numba_nor_its_interop(example_build) -> None:
    """Where numba is installed but not imported, the package imports neither numba, llvmlite,
    its numba interop (``_numba.py``) nor its exception rebuilder; importing numba afterwards
    makes the graphs callable from numba's JIT all the same."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{str(example_build.package_dir.parent)!r}]
        import numpy as np
        import example_ext
        loaded = [n for n in ("numba", "llvmlite", "example_ext._numba", "example_ext._exceptions") if n in sys.modules]
        assert not loaded, loaded
        import numba
        assert "example_ext._numba" in sys.modules
        normal_logp = example_ext.normal_logp
        caller = numba.njit(lambda x: normal_logp(x, 0.0, 1.0))
        x = np.linspace(-1.0, 1.0, 5)
        assert caller(x) == example_ext.normal_logp(x, 0.0, 1.0)
        try:
            example_ext.det(np.ones((2, 3)))
        except ValueError:
            assert "example_ext._exceptions" in sys.modules  # loaded for the first exception
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
