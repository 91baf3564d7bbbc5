"""The contiguous fast path: a traced graph with any-layout arrays is compiled twice, and each call
runs the variant its arrays allow — with NumPy's results whatever their layout."""

from __future__ import annotations

import json
from contextlib import nullcontext

import numpy as np
import pytest

from .conftest import load_package


@pytest.fixture(scope="module")
def package(runtime_build):
    return load_package(runtime_build)


def layouts() -> dict[str, np.ndarray]:
    base = np.arange(1.0, 61.0).reshape(6, 10) ** 1.5
    single_row = np.ones((3, 10))[::3]  # shape (1, 10): C-contiguous by NumPy's rule, any stride
    return {
        "c": base,
        "fortran": np.asfortranarray(base),
        "transposed": base.T,
        "every_other_column": base[:, ::2],
        "reversed_rows": base[::-1],
        "reversed_columns": base[:, ::-1],
        "single_row_odd_stride": single_row,
        "single_column": base[:, 3:4],
        "empty": np.ones((0, 4)),
        "empty_strided": np.ones((4, 8))[:, 3:3],
    }


@pytest.mark.parametrize("name", sorted(layouts()))
def test_every_layout_gives_numpys_result(package, name: str) -> None:
    m = layouts()[name]
    with np.errstate(all="ignore"), pytest.warns() if m.shape[1] == 0 else nullcontext():
        expected = m - m.mean(axis=1, keepdims=True)  # NumPy warns of the empty rows' mean
    result = package.centred_rows(m)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-13, atol=1e-12)


def test_only_traced_graphs_with_any_layout_matrices_have_a_variant(package, runtime_build) -> None:
    graphs = json.loads((runtime_build.package_dir / "manifest.json").read_text())["graphs"]
    assert graphs["centred_rows"]["contiguous_entry"] is not None
    assert (
        package.__graphs__["centred_rows"]["contiguous_symbol"] == graphs["centred_rows"]["contiguous_entry"]
    )
    assert graphs["runtime_values"]["contiguous_entry"] is None  # a kernel: compiled as declared
    assert graphs["broadcast_add"]["contiguous_entry"] is not None
    assert graphs["scaled"]["contiguous_entry"] is None  # 1-d: as fast with any strides
    assert "C-contiguous, runs a variant" in package.centred_rows.__doc__
