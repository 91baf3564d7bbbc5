"""One package calling another's graphs by declaration (``[package] uses``): the library's
entries exported under package-qualified names, the user's shared object holding them undefined,
resolved at import from the library's loaded shared object after a check of the library's Ops."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from aotbuild.build import build
from aotbuild.errors import ConfigError, TraceError
from aotbuild.link.linker import undefined_symbols
from aotbuild.pictures.dataflow import graph_picture
from aotbuild.progress import Progress

from .conftest import load_package, write_project

LIBRARY = """
import numpy as np


def center(x):
    return x - x.mean()


def norm(x):
    return np.sqrt(np.sum(x * x))


def rowsum(m):
    return m.sum(axis=1)


def moments(x):
    mean = x.mean()
    return mean, ((x - mean) ** 2).mean()


def normalize(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
    for i in range(x.shape[0]):
        x[i] /= total
    return total


def scaled(x, s):
    return x * s


def bounded_sum(x, limit):
    total = 0.0
    for value in x:
        if value > limit:
            raise ValueError("a value is above the limit")
        total += value
    return total


def row_offsets(points):
    out = np.empty_like(points)
    for r in range(points.shape[0]):
        out[r, :] = np.sum(points - points[r, :], axis=0)
    return out
"""

LIBRARY_TOML = """
[package]
name = "library_ext"

[graphs.center]
function = "library:center"
signature = "float64[:](float64[:])"

[graphs.norm]
function = "library:norm"
signature = "float64(float64[:])"

[graphs.rowsum]
function = "library:rowsum"
signature = "float64[:](float64[:, :])"

[graphs.moments]
function = "library:moments"
signature = "Tuple(float64, float64)(float64[::1])"

[graphs.normalize]
function = "library:normalize"
signature = "float64(float64[:])"
mode = "kernel"

[graphs.bounded_sum]
function = "library:bounded_sum"
signature = "float64(float64[:], float64)"
mode = "kernel"

[graphs.scaled]
function = "library:scaled"
signature = ["float32[:](float32[:], float32)", "float64[:](float64[:], float64)"]

[graphs.row_offsets]
function = "library:row_offsets"
signature = "float64[:, ::1](float64[:, ::1])"
mode = "kernel"
"""

USER = """
import numpy as np

import library
import library_ext
from library_ext import norm


def standardized(x):
    c = library_ext.center(x)
    return c / norm(c)


def via_python(x):
    return library.center(x) * 2.0


def row_sums(m):
    return library_ext.rowsum(m) * 2.0


def spread(x):
    mean, variance = library_ext.moments(x)
    return mean + variance


def checked(x):
    return library_ext.bounded_sum(x, 10.0) + norm(x)


def scaled_both(x, y):
    return library_ext.scaled(x, 2.0), library_ext.scaled(y, 3.0)


def offsets_doubled(points):
    return library_ext.row_offsets(points) * 2.0


def scaled_in_a_loop(x):
    total = 0.0
    for _ in range(2):
        total += library_ext.scaled(x, np.float32(0.5)).sum()
    return total
"""

USER_TOML = """
[package]
name = "user_ext"
uses = ["library_ext"]

[graphs.standardized]
function = "user:standardized"
signature = "float64[:](float64[:])"

[graphs.via_python]
function = "user:via_python"
signature = "float64[:](float64[:])"

[graphs.row_sums]
function = "user:row_sums"
signature = "float64[:](float64[:, :])"

[graphs.spread]
function = "user:spread"
signature = "float64(float64[:])"

[graphs.checked]
function = "user:checked"
signature = "float64(float64[:])"
mode = "kernel"

[graphs.scaled_both]
function = "user:scaled_both"
signature = "Tuple(float32[:], float64[:])(float32[:], float64[:])"

[graphs.scaled_in_a_loop]
function = "user:scaled_in_a_loop"
signature = "float64(float32[:])"
mode = "kernel"
[graphs.offsets_doubled]
function = "user:offsets_doubled"
signature = "float64[:, :](float64[:, ::1])"
"""


def _build(graphs_toml: Path, out: Path):
    return build(graphs_toml, out_dir=str(out), progress=Progress(quiet=True))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    """The library, the user built against it, and the library rebuilt with another `center`."""
    root = tmp_path_factory.mktemp("packages")
    library_toml = write_project(root / "library", LIBRARY_TOML, {"library.py": LIBRARY})
    library = _build(library_toml, root / "library-build")
    changed_toml = write_project(
        root / "changed",
        LIBRARY_TOML,
        {"library.py": LIBRARY.replace("x - x.mean()", "x - np.sum(x) / x.size")},
    )
    changed = _build(changed_toml, root / "changed-build")
    sys.path[:0] = [str(root / "library-build"), str(root / "library")]
    try:
        user = _build(write_project(root / "user", USER_TOML, {"user.py": USER}), root / "user-build")
    finally:
        sys.path.remove(str(root / "library"))
    return root, library, user, changed


@pytest.fixture(scope="module")
def user_ext(built):
    return load_package(built[2])


def test_graphs_of_the_used_package_give_its_results(built, user_ext) -> None:
    root = built[0]
    sys.path.insert(0, str(root / "library"))
    try:
        import library
    finally:
        sys.path.remove(str(root / "library"))
    x = np.array([3.0, -1.0, 4.0, 1.5, 9.0, 2.0])
    m = np.arange(12.0).reshape(3, 4)
    centered = x - x.mean()
    for given in (x, x[::2]):  # contiguous and strided
        expected = (given - given.mean()) / np.sqrt(np.sum((given - given.mean()) ** 2))
        np.testing.assert_allclose(user_ext.standardized(given), expected, rtol=1e-14)
    np.testing.assert_allclose(user_ext.via_python(x), 2.0 * library.center(x), rtol=1e-14)
    for given in (m, m[:, ::2], m.T):  # the library's entry for C arrays, and its general one
        np.testing.assert_allclose(user_ext.row_sums(given), 2.0 * given.sum(axis=1))
    np.testing.assert_allclose(user_ext.spread(x[::2]), x[::2].mean() + x[::2].var(), rtol=1e-14)
    assert user_ext.checked(x) == pytest.approx(x.sum() + np.sqrt((x * x).sum()), rel=1e-14)
    with pytest.raises(ValueError, match="a value is above the limit"):  # raised in the library
        user_ext.checked(np.array([1.0, 20.0]))
    # a kernel whose traced region is compiled into it: the region has no object to check
    points = np.arange(12.0).reshape(4, 3) ** 1.5
    expected = 2.0 * np.stack([np.sum(points - points[r, :], axis=0) for r in range(4)])
    np.testing.assert_allclose(user_ext.offsets_doubled(points), expected, rtol=1e-14)
    np.testing.assert_allclose(centered, library.center(x))


def test_a_graph_of_several_signatures_is_called_by_the_one_the_types_pick(user_ext) -> None:
    x32 = np.arange(4, dtype=np.float32)
    first, second = user_ext.scaled_both(x32, np.arange(4.0))
    assert first.dtype == np.float32 and second.dtype == np.float64
    np.testing.assert_array_equal(first, x32 * 2)
    np.testing.assert_array_equal(second, np.arange(4.0) * 3)
    assert user_ext.scaled_in_a_loop(x32) == 6.0  # the float32 signature's result, summed


def test_calls_are_declarations_resolved_from_the_library(built) -> None:
    _, library, user, _ = built
    library_ext = load_package(library)
    manifest = json.loads(user.package_dir.joinpath("manifest.json").read_text())
    uses = manifest["uses"]["library_ext"]
    assert sorted(uses["graphs"]) == [
        "bounded_sum",
        "center",
        "moments",
        "norm",
        "row_offsets",
        "rowsum",
        "scaled",
    ]
    # the kernel's region is compiled into the kernel's object: the kernel's object is what is checked
    regions = [s for s in library_ext.__graphs__["row_offsets"]["ops"] if s.startswith("aot_region_")]
    checked = [symbol for symbol, _ in uses["graphs"]["row_offsets"]["ops"]]
    assert regions and not set(regions) & set(checked) and len(checked) == 2  # the kernel, the entry
    library_ops = {symbol for graph in library_ext.__graphs__.values() for symbol in graph["ops"]}
    assert not library_ops & set(manifest["ops"])  # none of the library's code is in the user
    names = undefined_symbols(user.native)
    if names is None:
        pytest.skip("nm is not available")
    # `U aotbuild.library_ext.center.<digest>`...; rowsum's entry for C arrays and its general one
    exported = {symbol for graph in uses["graphs"].values() for symbol in graph["symbols"]}
    assert exported == {name for name in names if name.startswith("aotbuild.library_ext.")}
    assert len(uses["graphs"]["rowsum"]["symbols"]) == 2
    listing = subprocess.run(
        ["nm", "-D", "--defined-only", str(library.native)], capture_output=True, text=True, check=True
    ).stdout
    assert exported <= {line.split()[-1] for line in listing.splitlines()}  # the library's exports


def _import_in_new_process(path: list[Path], code: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=environment
    )


def test_a_new_process_imports_the_library_first_and_never_numba(built) -> None:
    root = built[0]
    done = _import_in_new_process(
        [root / "user-build", root / "library-build"],
        """
        import sys
        import numpy as np
        import user_ext
        assert "library_ext" in sys.modules and "numba" not in sys.modules
        print(user_ext.spread(np.arange(4.0)))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == pytest.approx(1.5 + 1.25)


def test_a_library_with_other_ops_or_none_is_an_import_error(built) -> None:
    root = built[0]
    changed = _import_in_new_process([root / "user-build", root / "changed-build"], "import user_ext")
    assert changed.returncode != 0
    message = changed.stderr.strip().splitlines()[-1]
    assert message.startswith("ImportError: user_ext was built against library_ext 0.1.0")
    assert "library_ext.center differ" in message and "rebuild user_ext" in message
    missing = _import_in_new_process([root / "user-build"], "import user_ext")
    assert (
        missing.stderr.strip()
        .splitlines()[-1]
        .startswith("ImportError: user_ext calls graphs of library_ext 0.1.0, which cannot be imported")
    )


def test_wrong_arguments_and_unknown_packages_fail_the_build(built, tmp_path: Path) -> None:
    root = built[0]
    modules = {
        "wrong.py": "import numpy as np\nimport library_ext\n\n\ndef f(x):\n"
        "    return library_ext.center(x.astype(np.float32))\n"
    }
    toml = '[package]\nname = "wrong_ext"\nuses = [{}]\n\n[graphs.f]\nfunction = "wrong:f"\nsignature = "float64[:](float64[:])"\n'
    sys.path.insert(0, str(root / "library-build"))
    try:
        project = write_project(tmp_path / "wrong", toml.format('"library_ext"'), modules)
        with pytest.raises(
            TraceError, match=r"library_ext\.center takes x as float64\[:\]; it is given float32"
        ):
            _build(project, tmp_path / "out")
        writer = {"wrong.py": "import library_ext\n\n\ndef f(x):\n    return x / library_ext.normalize(x)\n"}
        project = write_project(tmp_path / "wrong", toml.format('"library_ext"'), writer)
        with pytest.raises(
            TraceError, match=r"library_ext\.normalize writes into x: .* call it from a kernel"
        ):
            _build(project, tmp_path / "out")
        for uses, message in (
            ('"no_such_ext"', "cannot import 'no_such_ext'"),
            ('"numpy"', "'numpy' .* is not a package built by aotbuild"),
            ('"wrong_ext"', "'wrong_ext' is this package itself"),
        ):
            project = write_project(tmp_path / "wrong", toml.format(uses), modules)
            with pytest.raises(ConfigError, match=message):
                _build(project, tmp_path / "out")
        without = write_project(tmp_path / "wrong", toml.replace("uses = [{}]\n", ""), modules)
        with pytest.raises(TraceError, match=r"\[package\] uses lists it"):
            _build(without, tmp_path / "out")
    finally:
        sys.path.remove(str(root / "library-build"))
    assert not (tmp_path / "out" / "wrong_ext").exists()


def test_a_project_function_of_the_same_name_is_the_projects(built, tmp_path: Path) -> None:
    """Only the function the used graph was built from is routed: a module of the project with
    the same name and function (`library.center`, here tripling) is the project's own."""
    root = built[0]
    modules = {
        "library.py": "def center(x):\n    return x * 3.0\n",
        "mine.py": "import library\n\n\ndef f(x):\n    return library.center(x)\n",
    }
    toml = '[package]\nname = "mine_ext"\nuses = ["library_ext"]\n\n[graphs.f]\nfunction = "mine:f"\nsignature = "float64[:](float64[:])"\n'
    sys.path[:0] = [str(root / "library-build"), str(root / "library")]
    imported = sys.modules.pop("library", None)  # as in a new process: `library` is the project's
    try:
        result = _build(write_project(tmp_path / "mine", toml, modules), tmp_path / "out")
    finally:
        sys.path.remove(str(root / "library-build"))
        sys.path.remove(str(root / "library"))
        if imported is not None:
            sys.modules["library"] = imported
    mine_ext = load_package(result)
    np.testing.assert_array_equal(mine_ext.f(np.arange(3.0)), [0.0, 3.0, 6.0])
    assert (
        json.loads((result.package_dir / "manifest.json").read_text())["uses"]["library_ext"]["graphs"] == {}
    )


def test_wheels_must_require_the_used_package() -> None:
    from types import SimpleNamespace

    from aotbuild.plugin.commands import AotBuildError
    from aotbuild.plugin.wheel import check_requirements

    manifest = {
        "toolchain": {"numpy": "2.1.0"},
        "linalg": {"graphs": []},
        "uses": {"library_ext": {"version": "0.1.0", "graphs": {"center": {}}}},
    }
    with pytest.raises(AotBuildError, match='calling library_ext.center.*add "library-ext"'):
        check_requirements(SimpleNamespace(install_requires=["numpy"]), manifest, Path("graphs.toml"))
    check_requirements(
        SimpleNamespace(install_requires=["numpy", "library-ext>=0.1"]), manifest, Path("graphs.toml")
    )


def test_a_picture_draws_the_used_packages_graphs_as_such(built) -> None:
    """`aotbuild inspect --graph` shows another package's graph as a box of its own kind, from
    a traced graph and from a kernel."""
    user = built[2].package_dir
    manifest = json.loads((user / "manifest.json").read_text())
    traced = graph_picture(user, manifest, "standardized")
    external = [box for box in traced.boxes if box.kind == "external"]
    assert sorted(box.heading for box in external) == ["graph library_ext.center (in library_ext)"] + [
        "graph library_ext.norm (in library_ext)"
    ]
    assert not {box.symbol for box in external} & set(traced.symbols), "not an Op of this package"
    kernel = graph_picture(user, manifest, "checked")
    calls = [edge for edge in kernel.edges if edge.calls]
    boxes = {box.id: box for box in kernel.boxes}
    assert sorted(boxes[edge.target].heading for edge in calls) == [
        "graph library_ext.bounded_sum (in library_ext)",
        "graph library_ext.norm (in library_ext)",
    ]
