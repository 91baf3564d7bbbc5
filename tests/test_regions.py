"""Array statements inside kernels' loops and branches, traced (aotbuild/trace/regions).

The fixture project (projects/regions) holds kernels of the shapes that made numba allocate a
temporary per operation: reductions of expressions per row, writes into slices, masked updates,
small arrays per iteration. Each is checked against the function run by NumPy, on contiguous
and strided inputs, and against what must not change: effects in NumPy's order (overlapping
reads and writes, aliased arguments), errors NumPy raises, numba's types where NumPy 2's differ.
"""

from __future__ import annotations

import gc
import json
import sys

import numba
import numpy as np
import pytest

from aotbuild.inspect import describe_graphs

from .conftest import PROJECTS, load_package

sys.path.insert(0, str(PROJECTS / "regions"))
import region_kernels  # noqa: E402


@pytest.fixture(scope="module")
def built(build_project):
    return build_project(PROJECTS / "regions" / "graphs.toml")


@pytest.fixture(scope="module")
def package(built):
    return load_package(built)


@pytest.fixture(scope="module")
def manifest(built):
    return json.loads((built.package_dir / "manifest.json").read_text())


RNG = np.random.default_rng(30)


def test_a_reduction_per_row_writes_into_its_row(package) -> None:
    points = RNG.normal(size=(30, 7))
    np.testing.assert_allclose(package.row_offsets(points), region_kernels.row_offsets(points), atol=1e-12)
    empty = np.zeros((0, 3))
    assert package.row_offsets(empty).shape == (0, 3)


def test_an_argmin_of_an_expression_per_element(package) -> None:
    signal = RNG.normal(size=200) + 1j * RNG.normal(size=200)
    codebook = np.exp(1j * np.linspace(0.0, 6.0, 16))
    got = package.nearest_codeword(signal, codebook)
    np.testing.assert_array_equal(got, region_kernels.nearest_codeword(signal, codebook))
    # |inf + nan j - c| ** 2 is inf (NumPy's hypot), not NaN; a NaN sample is NaN everywhere
    special = np.array([complex(np.inf, np.nan), complex(np.nan, 0.0), complex(-np.inf, 1.0), 0.5 + 0.5j])
    table = np.array([1.0 + 0j, complex(np.inf, 0.0), 0.4 + 0.6j, complex(np.nan, np.inf)])
    with np.errstate(invalid="ignore"):
        want = region_kernels.nearest_codeword(special, table)
    np.testing.assert_array_equal(package.nearest_codeword(special, table), want)


def test_stencils_builtin_max_and_whole_array_updates(package) -> None:
    field = RNG.normal(size=(20, 30))
    for view in (field, field[::2, ::3], field.T):
        got = package.diffuse(view, 5)
        np.testing.assert_allclose(got, region_kernels.diffuse(view, 5), rtol=1e-13)
    before = field.copy()
    package.diffuse(field, 2)
    np.testing.assert_array_equal(field, before)  # its copy was written, not the argument


def test_small_arrays_per_iteration_and_two_writes_into_one_array(package) -> None:
    pos = np.cumsum(RNG.normal(size=(40, 2)), axis=0)
    for view in (pos, pos[::2], np.asfortranarray(pos)):
        np.testing.assert_allclose(
            package.spring_chain(view, 2.0, 0.5), region_kernels.spring_chain(view, 2.0, 0.5), rtol=1e-13
        )


def test_masked_updates(package) -> None:
    xs, ys = np.linspace(-2.0, 1.0, 40), np.linspace(-1.5, 1.5, 30)
    c = xs[np.newaxis, :] + 1j * ys[:, np.newaxis]
    np.testing.assert_array_equal(package.escape_counts(c, 20, 2.0), region_kernels.escape_counts(c, 20, 2.0))


def test_a_write_reading_what_it_overwrites_sees_the_old_values(package) -> None:
    x = np.arange(10.0)
    for view in (x, x[::2], x[::-1]):
        np.testing.assert_array_equal(package.shift_right(view, 3), region_kernels.shift_right(view, 3))


def test_aliased_arguments_see_each_others_writes_as_in_numpy(package) -> None:
    for make in (lambda: np.arange(10.0), lambda: np.arange(20.0)[::2]):
        got, want = make(), make()
        package.smear(got, got, 3)
        region_kernels.smear(want, want, 3)
        np.testing.assert_array_equal(got, want)
        a, b = make(), np.ones(10)
        want_b = b.copy()
        package.smear(a, b, 2)
        region_kernels.smear(a.copy(), want_b, 2)
        np.testing.assert_array_equal(b, want_b)


def test_writes_into_the_callers_array_of_any_layout(package) -> None:
    for make in (lambda m: m, lambda m: m.T, lambda m: m[::2, ::-1]):
        m = RNG.normal(size=(6, 8))
        want = m.copy()
        package.normalise_rows(make(m))
        region_kernels.normalise_rows(make(want))
        np.testing.assert_allclose(m, want, rtol=1e-14)


def test_masked_updates_under_a_branch_on_a_parameter(package) -> None:
    x = RNG.uniform(0.0, 10.0, 25)
    for wrap in (True, False):
        np.testing.assert_allclose(
            package.folded_offsets(x, 10.0, wrap), region_kernels.folded_offsets(x, 10.0, wrap), atol=1e-12
        )


def test_an_index_out_of_range_is_numpys_index_error(package) -> None:
    with pytest.raises(IndexError, match="out of bounds"):
        package.shifted_rows(np.ones((3, 4)))


def test_what_cannot_be_traced_stays_as_written_beside_what_can(package, manifest) -> None:
    a, w = RNG.normal(size=(4, 6)), np.array([0.25, 0.5, 0.25])
    out, total = package.convolved_rows(a, w)
    want_out, want_total = region_kernels.convolved_rows(a, w)
    np.testing.assert_allclose(out, want_out, rtol=1e-14)
    assert total == pytest.approx(want_total, rel=1e-13)
    entry = manifest["graphs"]["convolved_rows"]
    assert entry["traced_regions"] == ["region_kernels.py:101", "region_kernels.py:102"]
    (note,) = entry["left_to_numba"]
    assert note == "region_kernels.py:100: TraceError: np.convolve is not supported by the tracer"


def test_a_statement_numpy_2_would_type_otherwise_keeps_numbas_types(package, manifest) -> None:
    x = RNG.normal(size=50).astype(np.float32)
    # numba computes x * 2.5 in float64 (NumPy 2: float32); the kernel's sum is numba's
    assert package.float32_scaled(x, 3) == pytest.approx(
        numba.njit(region_kernels.float32_scaled)(x, 3), rel=1e-15
    )
    (note,) = manifest["graphs"]["float32_scaled"]["left_to_numba"]
    assert note == "region_kernels.py:111: `y` traces to float32[::1], numba types it float64[::1]"


def test_the_kernel_module_calls_its_regions_where_the_statements_were(built) -> None:
    modules = built.package_dir.parent / ".aotbuild" / "regions_ext" / "modules"
    (kernel,) = [p for p in modules.glob("aot_row_offsets_*.py")]
    text = kernel.read_text()
    assert "    out = np.empty_like(points)\n" in text  # an allocation alone stays numba's
    assert (
        "        _aot_region_0(points, r, out)  # traced: out[r, :] = np.sum(points - points[r, :], axis=0)\n"
        in text
    )
    (region,) = [p for p in modules.glob("aot_region_row_offsets_region_0_*.py")]
    text = region.read_text()
    assert "def row_offsets_region_0(points, r, out):" in text
    assert "in place" in text  # written into out's row, not copied back
    # its Ops are compiled into it, not called across objects once per row
    assert text.count("= inline_op(") == 3 and "declare(" not in text


def test_regions_are_compiled_into_their_kernels_objects_alone(built, package, manifest) -> None:
    """No region has an object, nor a symbol in the shared object: the kernel's object holds its
    code (no call between objects per iteration); its module is kept, for reading and pictures."""
    regions = {symbol: op for symbol, op in manifest["ops"].items() if op["kind"] == "region"}
    assert len(regions) >= 10
    linked = {symbol for symbol, _ in package._native._symbol_addresses()}
    modules = built.package_dir / "_modules"
    for symbol, op in regions.items():
        assert op["object_sha256"] is None and symbol not in linked
        (kernel,) = op["compiled_into"]
        assert manifest["ops"][kernel]["kind"] == "kernel" and kernel in linked
        assert symbol in manifest["ops"][kernel]["calls"] and (modules / op["module"]).is_file()
        assert (
            f'_aot_compile_in(\n    "{symbol}: ' in (modules / manifest["ops"][kernel]["module"]).read_text()
        )
    assert all(op["object_sha256"] for symbol, op in manifest["ops"].items() if symbol not in regions)


def test_successive_updates_of_one_array_are_all_in_place(built, manifest) -> None:
    modules = built.package_dir.parent / ".aotbuild" / "regions_ext" / "modules"
    (region,) = [p for p in modules.glob("aot_region_spring_chain_region_0_*.py")]
    text = region.read_text()
    # force[i - 1] += f; force[i] -= f: both write into the caller's force, no copy of it
    assert " = setitem_0(force, " in text and " = setitem_1(v" in text and "copy_" not in text
    # each computes f's sum (difference) with force's row into the row itself: no temporary
    assert (
        "# float64[:, ::1][?, :] = fused add(float64[::1], float64[::1]) -> float64[:, ::1], in place\n"
        in text
    )
    assert "= fused subtract(float64[::1], float64[::1]) -> float64[:, ::1], in place\n" in text
    symbol = next(s for s, op in manifest["ops"].items() if op["module"] == region.name)
    assert manifest["ops"][symbol]["calls"] == []
    # f = np.array([magnitude * dx, magnitude * dy]) never leaves the region: on its stack
    assert "    v4 = scratch(2, 0, np.float64)  # on the stack\n" in text and "pack_" not in text


def test_regions_borrow_the_kernels_arrays_unless_they_return_an_array(built, package) -> None:
    """A region returning no array counts no references to the kernel's arrays (each view of them
    took and dropped one with an atomic instruction, once per iteration); views the kernel makes
    and returns keep theirs."""
    modules = built.package_dir.parent / ".aotbuild" / "regions_ext" / "modules"
    (spring,) = modules.glob("aot_region_spring_chain_region_0_*.py")
    assert "    force = borrowed(force)  # the kernel holds it: no references counted\n" in spring.read_text()
    (last,) = modules.glob("aot_region_last_pair_region_0_*.py")
    assert "borrowed" not in last.read_text()  # it returns the small array it made
    (trailing,) = modules.glob("aot_region_trailing_view_region_0_*.py")
    assert "    tail = borrowed(tail)" in trailing.read_text()
    x = RNG.normal(size=50)
    want = region_kernels.trailing_view(x, 6)
    got = package.trailing_view(x, 6)
    del x  # the copy's memory is the result's alone now
    gc.collect()
    overwrite = [np.full(44, -1.0) for _ in range(100)]  # memory freed too early would be reused
    np.testing.assert_array_equal(got, want)
    assert len(overwrite) == 100


def test_a_small_array_leaving_its_region_is_on_the_heap(built, package) -> None:
    modules = built.package_dir.parent / ".aotbuild" / "regions_ext" / "modules"
    (region,) = [p for p in modules.glob("aot_region_last_pair_region_0_*.py")]
    assert "scratch(" not in region.read_text() and "pack_0 = inline_op(" in region.read_text()
    x = RNG.normal(size=7)
    np.testing.assert_array_equal(package.last_pair(x), region_kernels.last_pair(x))
    np.testing.assert_array_equal(package.last_pair(x[:0]), [1.0, 1.0])


def test_inspect_lists_traced_and_untraced_statements(built) -> None:
    text = describe_graphs(built.package_dir, "convolved_rows")
    assert "  array statements traced at region_kernels.py:101" in text
    assert "  left to numba: region_kernels.py:100: TraceError: np.convolve is not supported" in text


def test_python_builtins_on_traced_scalars_trace(package) -> None:
    x = np.array([0.5, -3.0, 2.0])
    for n, s in [(5.7, -2.5), (3.0, 2.5), (4.0, 3.5), (6.0, -0.5), (0.0, 1.0)]:
        np.testing.assert_allclose(package.python_scalars(x, n, s), region_kernels.python_scalars(x, n, s))


def test_no_regions_leaves_every_statement_to_numba() -> None:
    from aotbuild.config import load_config
    from aotbuild.graph import Kernel
    from aotbuild.trace.driver import project_imports, trace_project

    project = load_config(PROJECTS / "regions" / "graphs.toml")
    with project_imports(project.root):
        graphs = {graph.name: graph for graph in trace_project(project, regions=False)}
    unit = graphs["row_offsets"].outputs[0].op.unit
    assert isinstance(graphs["row_offsets"].outputs[0].op, Kernel)
    assert unit.regions == () and "_aot_region" not in unit.source


def test_slices_assigned_elementwise_values_in_traced_graphs(package) -> None:
    x, y, col = RNG.normal(size=(6, 5)), RNG.normal(size=(6, 5)), RNG.normal(size=(6, 1))
    for args in [(x, y, col), (x.T.copy().T, y[::-1], col), (x[::1, ::1], y, col[::-1])]:
        np.testing.assert_array_equal(package.slice_updates(*args), region_kernels.slice_updates(*args))
    with pytest.raises(ValueError, match="could not broadcast"):
        package.slice_updates(x, y, np.ones((6, 2)))


def test_argmin_and_argmax_of_expressions_are_numpys(package) -> None:
    x, y, k = RNG.normal(size=150), RNG.normal(size=150), RNG.integers(-9, 9, 150)
    cases = [(x, y, k), (x[::-3], y[::-3], k[::-3]), (np.round(x, 1), np.round(y, 1), k % 3)]
    nans = x.copy()
    nans[[40, 90]] = np.nan
    cases += [(nans, y, k), (x[:1], y[:1], k[:1])]
    # from 16 values on, two chains scan the even and the odd values: ties between them, the
    # first least on either side, and lengths about where the chains start
    ties = np.full(20, 1.5)
    ties[[5, 12]] = 0.5
    cases += [(ties, ties, k[:20]), (ties[1:], ties[1:], k[1:20]), (ties[::-1], ties, k[:20])]
    cases += [(np.round(x[:n], 1), np.round(y[:n], 1), k[:n] % 3) for n in (15, 16, 17, 33)]
    # a NaN is noticed from the sum of the values: one only in the odd chain; infinities (their
    # sum no NaN); inf * 0, a NaN of the expression's own
    odd_nan, infs, zero_y = x.copy(), x.copy(), y.copy()
    odd_nan[41], infs[[7, 30, 31]], zero_y[31] = np.nan, np.inf, 0.0
    cases += [(odd_nan, y, k), (infs, y, k), (infs, zero_y, k), (infs[:15], zero_y[:15], k[:15])]
    for args in cases:
        assert package.arg_extremes(*args) == region_kernels.arg_extremes(*args)
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        package.arg_extremes(x[:0], y[:0], k[:0])


def test_tuples_of_numbers_and_boolean_operators_trace(package, manifest) -> None:
    db = RNG.integers(-2, 8, (300, 4))
    for view in (db, db[::-2], np.asfortranarray(db)):
        np.testing.assert_array_equal(package.matching_rows(view), region_kernels.matching_rows(view))
    assert manifest["graphs"]["matching_rows"]["traced_regions"] == ["region_kernels.py:162"]


def test_masked_updates_in_traced_graphs_are_numpys(package) -> None:
    x, y, m = RNG.normal(size=(9, 14)), RNG.normal(size=(9, 14)), RNG.random((9, 14)) < 0.5
    x[4, 5], y[2, 3] = np.nan, np.nan  # NaN > s is False, ~(NaN <= s) True: as NumPy
    cases = [(x, y, m), (x[::2, ::3], y[::2, ::3], m[::2, ::3]), (x.T, y.T, m.T), (x[:, ::-1], y, m)]
    cases += [(x, y[:1], m), (x, y[:, :1], m)]  # y broadcast in the mask's comparison
    cases += [(x[:0], y[:0], m[:0]), (x[:0], y[:1], m[:0]), (x[:1], y[:1], m[:1])]
    for args in cases:
        np.testing.assert_array_equal(
            package.masked_updates(*args, 0.3), region_kernels.masked_updates(*args, 0.3)
        )
    for args, error, match in [
        ((x, y, m[:8]), IndexError, "boolean index did not match indexed array along axis 0"),
        ((x, y, m[:, :13]), IndexError, "boolean index did not match indexed array along axis 1"),
        ((x[:1], y, m[:1]), IndexError, "boolean index did not match indexed array along axis 0"),
        ((x, y[:, :13], m), ValueError, "operands could not be broadcast together"),
    ]:
        with pytest.raises(error, match=match):
            region_kernels.masked_updates(*args, 0.3)
        with pytest.raises(error, match=match):
            package.masked_updates(*args, 0.3)


def test_masked_updates_of_aliased_arguments_read_before_they_write(package) -> None:
    for make in (lambda: np.arange(12.0), lambda: np.arange(24.0)[::2], lambda: np.arange(12.0)[::-1]):
        m = RNG.random(11) < 0.6
        for split in (lambda u: (u[:-1], u[1:]), lambda u: (u[1:], u[:-1])):  # overlapping views
            got, want = make(), make()
            package.masked_blend(*split(got), m, 3)
            region_kernels.masked_blend(*split(want), m, 3)
            np.testing.assert_array_equal(got, want)
        m = RNG.random(12) < 0.5
        a, b = make(), make() * 2.0
        want_a, want_b = a.copy(), b.copy()
        package.masked_blend(a, a, m, 2)  # the same array twice
        region_kernels.masked_blend(want_a, want_a, m, 2)
        package.masked_blend(a, b, m, 2)
        region_kernels.masked_blend(want_a, want_b, m, 2)
        np.testing.assert_array_equal(a, want_a)
        np.testing.assert_array_equal(b, want_b)
    with pytest.raises(IndexError, match="boolean index did not match indexed array along axis 0"):
        package.masked_blend(np.ones(5), np.ones(5), np.ones(4, dtype=bool), 1)


def test_masked_updates_compute_their_masks_in_place_of_a_boolean_array(built) -> None:
    modules = built.package_dir.parent / ".aotbuild" / "regions_ext" / "modules"
    (region,) = [p for p in modules.glob("aot_region_folded_offsets_region_1_*.py")]
    text = region.read_text()
    # d[d > half] -= length; d[d < -half] += length: each one pass over the caller's d
    assert "= value, fused greater·subtract(float64, float64) -> float64[:, ::1], in place\n" in text
    assert "= value, fused less·add(float64, float64) -> float64[:, ::1], in place\n" in text
    assert "mask_0 = inline_op(" not in text and "greater_0 = inline_op(" not in text
    assert "rv[j] = np.subtract(x0, a2) if t0 else x0" in text


def test_squared_moduli_are_sums_of_squares_within_an_ulp(package) -> None:
    """abs(z) ** 2 is re * re + im * im (aotbuild/rewrite/norms.py): within 1 ulp of the exact
    square of the modulus (NumPy's hypot then square: 2.5), NumPy's special values."""
    rng = np.random.default_rng(5)
    parts = rng.normal(size=(2, 4000)) * np.exp(rng.uniform(-300, 300, size=(2, 4000)))
    z = parts[0] + 1j * parts[1]
    w = (rng.normal(size=4000) + 1j * rng.normal(size=4000)).astype(np.complex64)
    first, second, third, total = package.squared_moduli(z, w)
    np.testing.assert_array_equal(first, second)
    exact = z.real.astype(np.longdouble) ** 2 + z.imag.astype(np.longdouble) ** 2
    finite = np.isfinite(first) & (exact > np.finfo(np.float64).tiny) & (exact < np.finfo(np.float64).max)
    ulps = np.abs(first[finite] - exact[finite]) / np.spacing(exact[finite].astype(np.float64))
    assert ulps.max() <= 1.0
    np.testing.assert_allclose(third, np.abs(w) ** 2, rtol=4e-7)
    assert total == pytest.approx(np.sum(np.abs(z) ** 2), rel=1e-12)
    special = np.array(
        [complex(np.inf, np.nan), complex(np.nan, -np.inf), complex(np.nan, 1.0), 0j, complex(-0.0, 3.0)]
    )
    got = package.squared_moduli(special, special.astype(np.complex64))
    np.testing.assert_array_equal(got[0], np.abs(special) ** 2)
    np.testing.assert_array_equal(got[2], np.abs(special.astype(np.complex64)) ** 2)
