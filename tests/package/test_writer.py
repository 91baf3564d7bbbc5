"""Staging and publishing a package: readable by everyone the umask allows, swapped in whole."""

from __future__ import annotations

import os
import stat

from aotbuild.package.writer import discard, publish, staging_dir, write_text


def test_published_package_has_the_modes_mkdir_and_open_give(tmp_path) -> None:
    old = os.umask(0o022)
    try:
        destination = tmp_path / "out" / "pkg"
        staged = staging_dir(destination)
        write_text(staged, "__init__.py", "x = 1\n")
        publish(staged, destination)
    finally:
        os.umask(old)
    assert stat.S_IMODE(destination.stat().st_mode) == 0o755
    assert stat.S_IMODE((destination / "__init__.py").stat().st_mode) == 0o644


def test_publish_replaces_the_previous_package_whole(tmp_path) -> None:
    destination = tmp_path / "pkg"
    for version in ("1", "2"):
        staged = staging_dir(destination)
        write_text(staged, f"v{version}.py", "")
        publish(staged, destination)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]
    assert [p.name for p in destination.iterdir()] == ["v2.py"]
    staged = staging_dir(destination)
    discard(staged)
    assert not staged.exists()
