"""Staging and publishing a package: readable by everyone the umask allows, swapped in whole,
staged in the build's own work folder, its modules' bytecode shipped with it."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

from aotbuild.package.writer import (
    discard,
    publish,
    remove_leftovers,
    same_tree,
    staging_dir,
    write_bytecode,
    write_text,
)


def test_published_package_has_the_modes_mkdir_and_open_give(tmp_path) -> None:
    old = os.umask(0o022)
    try:
        destination = tmp_path / "out" / "pkg"
        staged = staging_dir(tmp_path / "out" / ".aotbuild" / "pkg")
        write_text(staged, "__init__.py", "x = 1\n")
        publish(staged, destination)
    finally:
        os.umask(old)
    assert stat.S_IMODE(destination.stat().st_mode) == 0o755
    assert stat.S_IMODE((destination / "__init__.py").stat().st_mode) == 0o644


def test_publish_replaces_the_previous_package_whole(tmp_path) -> None:
    destination = tmp_path / "pkg"
    work = tmp_path / ".aotbuild" / "pkg"
    for version in ("1", "2"):
        staged = staging_dir(work)
        write_text(staged, f"v{version}.py", "")
        publish(staged, destination)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".aotbuild", "pkg"]
    assert [p.name for p in destination.iterdir()] == ["v2.py"]
    assert list(work.iterdir()) == [], "nothing is left in the work folder"
    staged = staging_dir(work)
    discard(staged)
    assert not staged.exists()


def test_leftovers_of_a_killed_build_are_removed_from_the_work_folder_only(tmp_path) -> None:
    work = tmp_path / ".aotbuild" / "pkg"
    killed = staging_dir(work)
    write_text(killed, "__init__.py", "")
    beside = tmp_path / ".pkg.building-user"  # the user's, though named as older builds named theirs
    beside.mkdir()
    (work / "notes.txt").write_text("kept")
    remove_leftovers(work)
    assert not killed.exists()
    assert beside.is_dir() and (work / "notes.txt").read_text() == "kept"


def test_publishing_over_a_symlink_replaces_the_link_not_what_it_points_to(tmp_path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "data.txt").write_text("precious")
    destination = tmp_path / "pkg"
    destination.symlink_to(target)
    staged = staging_dir(tmp_path / ".aotbuild" / "pkg")
    write_text(staged, "__init__.py", "")
    publish(staged, destination)  # the build asks first; this is what --force then does
    assert not destination.is_symlink() and (destination / "__init__.py").is_file()
    assert (target / "data.txt").read_text() == "precious"


def _package(folder, loader: str):
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(loader)
    (folder / "_helpers.py").write_text("def twice(x):\n    return 2 * x\n")
    write_bytecode(folder, "pkg")
    return folder


def test_the_modules_bytecode_is_shipped_checked_by_hash_and_the_same_every_build(tmp_path) -> None:
    first = _package(tmp_path / "a" / "pkg", "VALUE = 1\n")
    second = _package(tmp_path / "b" / "pkg", "VALUE = 1\n")
    compiled = sorted(p.name for p in (first / "__pycache__").iterdir())
    assert compiled == [
        f"__init__.{sys.implementation.cache_tag}.pyc",
        f"_helpers.{sys.implementation.cache_tag}.pyc",
    ]
    for name in compiled:
        data = (first / "__pycache__" / name).read_bytes()
        assert int.from_bytes(data[4:8], "little") == 0b11  # hash-based, checked on import
        assert data == (second / "__pycache__" / name).read_bytes()
    # imported with no bytecode writing: loaded, not compiled, and named as installed
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import pkg, pkg._helpers; "
        "print(pkg.VALUE, pkg.__spec__.cached is not None, pkg._helpers.twice.__code__.co_filename)"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", script, str(first.parent)], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["1", "True", str(first / "_helpers.py")]
    (first / "__init__.py").write_text(
        "VALUE = 2\n"
    )  # an edited source is compiled again, not its old bytecode run
    out = subprocess.run(
        [sys.executable, "-c", script, str(first.parent)], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split()[0] == "2"


def test_a_package_is_the_same_whatever_bytecode_python_wrote_beside_ours(tmp_path) -> None:
    staged = _package(tmp_path / "staged" / "pkg", "VALUE = 1\n")
    destination = tmp_path / "out" / "pkg"
    shutil.copytree(staged, destination)
    (destination / "__pycache__" / "__init__.cpython-399.pyc").write_bytes(b"another Python's")
    assert same_tree(staged, destination)
    (destination / "__pycache__" / f"__init__.{sys.implementation.cache_tag}.pyc").write_bytes(b"stale")
    assert not same_tree(staged, destination)
