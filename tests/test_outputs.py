"""A build never loses a user's files: it replaces ``<out_dir>/<name>/`` only when aotbuild
wrote it, keeps its own work inside ``.aotbuild/``, follows no symbolic link out of it, and
refuses package names that would shadow a module the user imports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aotbuild.cli import main
from aotbuild.package.ownership import not_ours

from .conftest import write_project

MODEL = "def twice(x):\n    return x * 2.0\n"
GRAPHS = """\
[package]
name = "{name}"
out_dir = "{out_dir}"

[graphs.twice]
function = "model:twice"
signature = "float64[:](float64[:])"
"""


def project(folder: Path, name: str = "mypkg", out_dir: str = "build") -> Path:
    return write_project(folder, GRAPHS.format(name=name, out_dir=out_dir), {"model.py": MODEL})


def compile_(path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    code = main(["compile", str(path), "-q", "-j", "1", *flags])
    return code, capsys.readouterr().err


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry below ``folder``: file bytes, and where each symbolic link points."""
    found: dict[str, bytes | str] = {}
    for root, directories, files in os.walk(folder):
        for name in [*directories, *files]:
            path = Path(root) / name
            key = str(path.relative_to(folder))
            if path.is_symlink():
                found[key] = "-> " + os.readlink(path)
            elif path.is_file():
                found[key] = path.read_bytes()
            else:
                found[key] = "dir"
    return found


def test_a_folder_aotbuild_did_not_write_is_kept_byte_for_byte(tmp_path: Path, capsys) -> None:
    path = project(tmp_path)
    mine = tmp_path / "build" / "mypkg"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("precious\n")
    (mine / "sub").mkdir()
    (mine / "sub" / "data.bin").write_bytes(bytes(range(256)))
    before = snapshot(tmp_path)
    code, err = compile_(path, capsys)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"aotbuild: error: {mine} has no manifest.json of aotbuild's")
    assert "--force" in lines[0] and "another [package] name or out_dir" in lines[0]
    assert snapshot(tmp_path) == before, "nothing written, moved or removed: not even .aotbuild/"


@pytest.mark.parametrize("kind", ["file", "symlink", "foreign manifest", "another package's manifest"])
def test_anything_else_at_the_package_path_stops_the_build(tmp_path: Path, capsys, kind: str) -> None:
    path = project(tmp_path)
    (tmp_path / "build").mkdir()
    mine = tmp_path / "build" / "mypkg"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep")
    expected = {
        "file": "is a file",
        "symlink": "is a symbolic link (to",
        "foreign manifest": "has a manifest.json that is not aotbuild's",
        "another package's manifest": "has a manifest.json that is not aotbuild's (or is another package's)",
    }[kind]
    if kind == "file":
        mine.write_text("a file")
    elif kind == "symlink":
        mine.symlink_to(elsewhere)
    else:
        mine.mkdir()
        manifest = '{"name": "mypkg", "version": "1"}'
        if kind == "another package's manifest":
            manifest = '{"format": 1, "aotbuild": {"version": "0.1.0", "codegen": "4"}, "package": {"name": "other"}}'
        (mine / "manifest.json").write_text(manifest)
    before = snapshot(tmp_path)
    code, err = compile_(path, capsys)
    assert code == 1
    assert f"aotbuild: error: {mine} {expected}" in err
    assert snapshot(tmp_path) == before


def test_a_built_package_is_replaced_and_a_file_added_to_it_is_not_lost(tmp_path: Path, capsys) -> None:
    path = project(tmp_path)
    assert compile_(path, capsys)[0] == 0
    package = tmp_path / "build" / "mypkg"
    assert not_ours(package, "mypkg") is None
    (tmp_path / "model.py").write_text(MODEL.replace("2.0", "3.0"))
    assert compile_(path, capsys)[0] == 0, "a package aotbuild built is replaced"
    assert "3.0" in "".join(p.read_text() for p in (package / "_modules").glob("*.py"))
    assert sorted(p.name for p in (tmp_path / "build").iterdir()) == [".aotbuild", "mypkg"]

    (package / "my_notes.txt").write_text("mine")
    (tmp_path / "model.py").write_text(MODEL)
    code, err = compile_(path, capsys)
    assert code == 1
    assert "holds my_notes.txt, which aotbuild did not write" in err
    assert (package / "my_notes.txt").read_text() == "mine"


def test_force_replaces_what_is_there_and_says_so(tmp_path: Path, capsys) -> None:
    path = project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "mypkg").symlink_to(elsewhere)
    code, err = compile_(path, capsys, "--force")
    assert code == 0, err
    package = tmp_path / "build" / "mypkg"
    assert f"aotbuild: warning: {package} was not written by aotbuild; --force replaces it" in err
    assert not package.is_symlink() and not_ours(package, "mypkg") is None
    assert (elsewhere / "keep.txt").read_text() == "keep", "a link is replaced, not followed"


@pytest.mark.parametrize("where", [".aotbuild", ".aotbuild/mypkg", ".aotbuild/mypkg/modules"])
def test_aotbuilds_own_folders_may_not_be_symlinks(tmp_path: Path, capsys, where: str) -> None:
    path = project(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "aot_keep.py").write_text("# the user's\n")
    link = tmp_path / "build" / where
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    code, err = compile_(path, capsys)
    assert code == 1
    assert f"{link} is a symbolic link, where aotbuild keeps its own build files" in err
    assert sorted(p.name for p in outside.iterdir()) == ["aot_keep.py"]


@pytest.mark.parametrize(
    ("name", "files", "expected"),
    [
        ("numpy", {}, "'numpy' would shadow numpy, which aotbuild and the packages it builds import"),
        ("scipy", {}, "'scipy' would shadow scipy"),
        ("json", {}, "'json' would shadow the standard library's module json"),
        ("model", {}, "'model' would shadow the module model that [graphs.twice] function comes from"),
        ("helpers", {"helpers.py": ""}, "'helpers' would shadow the project's module"),
        ("tools", {"tools/__init__.py": ""}, "'tools' would shadow the project's module"),
    ],
)
def test_a_name_that_shadows_a_module_the_user_imports_is_refused(
    tmp_path: Path, capsys, name: str, files: dict[str, str], expected: str
) -> None:
    path = project(tmp_path, name=name)
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    code, err = compile_(path, capsys)
    assert code == 1
    assert f"[package] name: {expected}" in err
    assert not (tmp_path / "build").exists()


def test_a_package_built_next_to_graphs_toml_is_rebuilt(tmp_path: Path, capsys) -> None:
    """out_dir = "." puts the package beside the project's modules; its own folder is not a
    module of the project that it would shadow."""
    path = project(tmp_path, out_dir=".")
    assert compile_(path, capsys)[0] == 0
    (tmp_path / "model.py").write_text(MODEL.replace("2.0", "4.0"))
    code, err = compile_(path, capsys)
    assert code == 0, err
