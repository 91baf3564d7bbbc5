"""Kernels built for real: numba's answers, writes into arguments, helpers compiled once."""

from __future__ import annotations

import gc
import subprocess
import sys

import numpy as np
import pytest

from .conftest import PROJECTS, load_package

sys.path.insert(0, str(PROJECTS / "kernels"))
import kernel_graphs  # noqa: E402


@pytest.fixture(scope="module")
def built(kernels_build):
    return kernels_build


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


def test_lu_determinant_matches_numpy(example_build) -> None:
    det = load_package(example_build).det
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 8, 25):
        a = rng.normal(size=(n, n))
        np.testing.assert_allclose(det(a), np.linalg.det(a), rtol=1e-9)
        np.testing.assert_allclose(det(a.T), np.linalg.det(a), rtol=1e-9)
        np.testing.assert_allclose(det(np.asfortranarray(a)[:, ::-1]), np.linalg.det(a[:, ::-1]), rtol=1e-9)
    assert det(np.zeros((3, 3))) == 0.0
    with pytest.raises(ValueError, match="the matrix must be square"):
        det(np.ones((2, 3)))


def test_writes_land_in_strided_arguments(package) -> None:
    x = np.linspace(-3, 3, 13)
    original = x.copy()
    assert package.clip_inplace(x[::2], -1.0, 1.0) is None
    np.testing.assert_array_equal(x[::2], np.clip(original[::2], -1, 1))
    np.testing.assert_array_equal(x[1::2], original[1::2])

    a = np.arange(12.0).reshape(3, 4)
    view = a.T[::2]  # (2, 3), non-contiguous both ways
    package.scale_rows(view, np.array([10.0, -1.0]))
    expected = np.arange(12.0).reshape(3, 4)
    expected.T[::2] *= np.array([10.0, -1.0])[:, None]
    np.testing.assert_array_equal(a, expected)


def test_kernels_give_numbas_answers(package) -> None:
    x = np.array([0.5, -2.0, 3.0, 10.0])
    assert package.count_clipped(x, -1.0, 1.0) == kernel_graphs.count_clipped(x, -1.0, 1.0) == 3
    mean, norm = package.mean_and_norm(x)
    assert mean == np.mean(x) and norm == pytest.approx(np.linalg.norm(x), rel=1e-15)
    assert package.norm2(x[::-1]) == pytest.approx(np.linalg.norm(x), rel=1e-15)
    np.testing.assert_allclose(package.polyval(x), np.minimum(np.polyval(kernel_graphs.COEFFS, x), 1e6))
    assert package.checked_sqrt(2.25) == 1.5
    np.testing.assert_allclose(package.row_sums(np.ones((3, 5), np.float32)), np.full(3, 5.0))
    values, scaled = package.mixed(np.array([True, False, True]), 7, np.float32(1.25))
    np.testing.assert_array_equal(values, [7, -7, 7])
    assert values.dtype == np.int32 and scaled == np.float32(2.5) and isinstance(scaled, np.float32)


def test_kernel_exceptions_keep_their_type_and_message(package) -> None:
    with pytest.raises(ValueError, match="^checked_sqrt: negative input$"):
        package.checked_sqrt(-1.0)


def test_returned_views_keep_their_input_alive(package) -> None:
    x = np.arange(6.0)
    rest = package.tail(x)
    assert rest.base is x
    del x
    gc.collect()
    np.testing.assert_array_equal(rest, [1.0, 2.0, 3.0, 4.0, 5.0])
    rest[0] = 42.0  # writing through the view is allowed: the input is writeable
    a = np.ones((2, 2))
    assert package.identity(a) is a


def test_kernels_refuse_read_only_arrays(package) -> None:
    x = np.zeros(4)
    x.flags.writeable = False
    with pytest.raises(TypeError, match="argument 'x' must be writeable"):
        package.clip_inplace(x, 0.0, 1.0)


def test_kernels_accept_read_only_arrays_declared_readonly(package) -> None:
    x = np.array([-1.0, 0.5, 2.0, 0.25])
    x.flags.writeable = False
    assert package.count_clipped_readonly(x, 0.0, 1.0) == package.count_clipped(x.copy(), 0.0, 1.0) == 2
    assert package.mean_and_norm_numba(x) == package.mean_and_norm(x.copy())
    assert "readonly=True" in package.__graphs__["count_clipped_readonly"]["signature"]


def test_a_helper_called_by_several_kernels_is_compiled_once(built) -> None:
    manifest = load_package(built).manifest()
    clamp = [symbol for symbol, op in manifest["ops"].items() if "kernel_graphs.clamp" in op["title"]]
    assert len(clamp) == 1
    (clamp_symbol,) = clamp
    users = [symbol for symbol, op in manifest["ops"].items() if clamp_symbol in op["calls"]]
    assert len(users) == 3  # clip_inplace, and count_clipped for a writeable and a read-only x
    objects = built.package_dir.parent / ".aotbuild" / "kernels_ext" / "objects"
    for user in users:
        symbols = subprocess.run(
            ["nm", str(objects / f"{user}.o")], capture_output=True, text=True, check=True
        ).stdout
        assert f"U {clamp_symbol}" in symbols
        assert f"T {clamp_symbol}" not in symbols
    linked = subprocess.run(["nm", str(built.native)], capture_output=True, text=True, check=True).stdout
    definitions = [
        line for line in linked.splitlines() if line.endswith(f" {clamp_symbol}") and " U " not in line
    ]
    assert len(definitions) == 1
    # norm2 is both a helper (of mean_and_norm) and a graph's kernel: one Op for the same code
    # and types (mean_and_norm_numba calls it with a read-only array: another variant).
    norm2_ops = [s for s, op in manifest["ops"].items() if "kernel_graphs.norm2" in op["title"]]
    (norm2,) = [s for s in norm2_ops if "readonly" not in manifest["ops"][s]["title"]]
    assert len(norm2_ops) == 2
    (dot,) = [
        s
        for s, op in manifest["ops"].items()
        if "kernel_graphs.dot" in op["title"] and "readonly" not in op["title"]
    ]
    assert manifest["ops"][norm2]["calls"] == [dot]
    assert norm2 in manifest["ops"][manifest["graphs"]["norm2"]["entry"]]["calls"]


EWMA = """import numpy as np


def ewma(x, alpha=0.25, start=None):
    out = np.empty_like(x)
    acc = x[0] if start is None else start
    for i in range(x.shape[0]):
        acc = alpha * x[i] + (1.0 - alpha) * acc
        out[i] = acc
    return out
"""


def test_defaulted_parameters_the_signature_leaves_out_are_compiled_in(tmp_path) -> None:
    """docs/graphs-toml.md: further parameters must have defaults; a kernel takes them as numba takes an
    omitted argument (this crashed with "Signature mismatch" inside numba)."""
    from aotbuild.build import build
    from aotbuild.progress import Progress

    from .conftest import write_project

    path = write_project(
        tmp_path,
        '[package]\nname = "ewma_ext"\n\n[graphs.ewma]\nfunction = "smooth:ewma"\n'
        'signature = "float64[:](float64[:])"\nmode = "kernel"\n',
        {"smooth.py": EWMA},
    )
    result = build(path, jobs=1, progress=Progress(quiet=True))
    namespace: dict = {}
    exec(EWMA, namespace)
    x = np.linspace(-1.0, 2.0, 9)
    np.testing.assert_allclose(load_package(result).ewma(x), namespace["ewma"](x), rtol=1e-15)
    with pytest.raises(TypeError):
        load_package(result).ewma(x, 0.5)


def test_helpers_reached_through_a_module_of_the_project(package, built) -> None:
    x = np.array([0.1, -1.0, 3.0])
    np.testing.assert_array_equal(package.scaled_clip(x, 5.0), kernel_graphs.scaled_clip(x, 5.0))
    manifest = package.manifest()
    (symbol,) = [s for s, op in manifest["ops"].items() if "kernel_graphs.scaled_clip" in op["title"]]
    text = (built.package_dir / "_modules" / f"{symbol}.py").read_text()
    assert 'kernel_helpers = _aot_module("kernel_helpers")' in text
    assert "kernel_helpers.SCALE = 2.5" in text
    assert "kernel_helpers.clamp_scaled = _aot_declare(" in text


def test_python_as_users_write_it(package, built) -> None:
    """Defaulted and keyword arguments, function-valued defaults, module-level dicts and
    recursion, as the same code gives in Python."""
    x = np.linspace(-1.0, 2.0, 11)
    np.testing.assert_allclose(package.smoothed(x), kernel_graphs.smoothed(x), rtol=1e-15)
    for k in (-3, 0, 4, 30):
        np.testing.assert_array_equal(package.rolled(x, k), kernel_graphs.rolled(x, k))
    assert package.weighted(x, 2) == kernel_graphs.weighted(x, 2)
    with pytest.raises(KeyError):
        package.weighted(x, 5)
    for n in (0, 1, 7, 20):
        np.testing.assert_array_equal(package.pascal_row(n), kernel_graphs.pascal_row(n))
    assert package.gcd(1071, 462) == kernel_graphs.gcd(1071, 462) == 21

    manifest = package.manifest()
    texts = {
        op["title"].split(":")[0]: (built.package_dir / "_modules" / f"{symbol}.py").read_text()
        for symbol, op in manifest["ops"].items()
    }
    # one helper Op per argument types, whatever the call left out or named
    assert sum(title.startswith("kernel kernel_helpers.smooth") for title in texts) == 1
    assert texts["kernel kernel_graphs.smoothed"].count("parameters='x, width=3, weight=1.0',") == 2
    shifted = texts["kernel kernel_helpers.shifted"]
    assert "wrap = _aot_declare(" in shifted and "def shifted(x, k, mode=wrap):" in shifted
    assert (
        "WEIGHTS = constant_dict({'trend': 0.75, 'noise': 0.25, 2: 10.0})"
        in texts["kernel kernel_graphs.weighted"]
    )
    assert 'binomial = _aot_itself(binomial, "int64(int64, int64)"' in texts["kernel kernel_helpers.binomial"]
    assert "gcd = _aot_itself(gcd," in texts["kernel kernel_graphs.gcd"]


def test_a_module_used_other_than_for_its_attributes_is_refused(tmp_path) -> None:
    from aotbuild.build import build
    from aotbuild.errors import KernelError
    from aotbuild.progress import Progress

    from .conftest import write_project

    path = write_project(
        tmp_path,
        '[package]\nname = "mod_ext"\n\n[graphs.f]\nfunction = "model:f"\n'
        'signature = "float64(float64)"\nmode = "kernel"\n',
        {
            "tools.py": "def twice(v):\n    return 2.0 * v\n",
            "model.py": "import tools\n\ndef f(v):\n    t = tools\n    return t.twice(v)\n",
        },
    )
    with pytest.raises(
        KernelError, match=r"uses the module `tools` \(tools\) other than as `tools.function\(...\)`"
    ):
        build(path, out_dir=str(tmp_path / "out"), progress=Progress(quiet=True))
