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
    loaded = [name for name in sys.modules if name.split(".")[0] in ("numba", "llvmlite") and sys.modules[name] is not None]
    assert not loaded, loaded
    print("ok")
    """
)


def test_packages_run_without_numba(example_build, kernels_build) -> None:
    paths = [str(example_build.package_dir.parent), str(kernels_build.package_dir.parent)]
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(paths=paths)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
