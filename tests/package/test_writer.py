"""Staging and publishing a package: readable by everyone the umask allows, swapped in whole,
staged in the build's own work folder."""

from __future__ import annotations

import os
import stat

from aotbuild.package.writer import discard, publish, remove_leftovers, staging_dir, write_text


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
