"""The wheel's copy of the package: an earlier copy is replaced, anything else stops the build."""

from __future__ import annotations

from pathlib import Path

import pytest

from aotbuild.plugin.commands import AotBuildError
from aotbuild.plugin.wheel import copy_package

from ..package.test_ownership import generated


def test_an_earlier_copy_is_replaced(tmp_path: Path) -> None:
    package = generated(tmp_path / "built" / "pkg")
    build_lib = tmp_path / "lib"
    generated(build_lib / "pkg")
    (build_lib / "pkg" / "_modules" / "aot_stale_1.py").write_text("")
    copied = copy_package(package, build_lib)
    assert not (build_lib / "pkg" / "_modules" / "aot_stale_1.py").exists()
    assert build_lib / "pkg" / "manifest.json" in copied


def test_a_package_of_the_project_with_that_name_is_not_overwritten(tmp_path: Path) -> None:
    package = generated(tmp_path / "built" / "pkg")
    theirs = tmp_path / "lib" / "pkg"
    theirs.mkdir(parents=True)
    (theirs / "__init__.py").write_text("# the project's own\n")
    with pytest.raises(
        AotBuildError, match=r"has no manifest.json of aotbuild's; it would be lost in the wheel"
    ):
        copy_package(package, tmp_path / "lib")
    assert (theirs / "__init__.py").read_text() == "# the project's own\n"


def test_graphs_calling_cython_exports_need_their_distribution_listed(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from aotbuild.plugin.wheel import check_requirements

    manifest = {
        "toolchain": {"numpy": "2.4.6"},
        "linalg": {"graphs": []},
        "cython": {
            "graphs": {"t_cdf": ["scipy.special.cython_special.__pyx_fuse_0stdtr"]},
            "modules": ["scipy.special.cython_special"],
        },
    }
    with pytest.raises(
        AotBuildError,
        match=r"graph\(s\) t_cdf of graphs.toml call functions scipy.special.cython_special exports, "
        r'found at run time: add "scipy" to \[project\] dependencies',
    ):
        check_requirements(SimpleNamespace(install_requires=["numpy>=2"]), manifest, tmp_path / "graphs.toml")
    check_requirements(
        SimpleNamespace(install_requires=["numpy>=2", "SciPy>=1.10"]), manifest, tmp_path / "graphs.toml"
    )
