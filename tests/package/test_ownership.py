"""What counts as a package aotbuild wrote: its manifest, for that name, and only its files."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pytest

from aotbuild.errors import OutputError
from aotbuild.package.ownership import MANIFEST_FORMAT, not_ours, owned_folder, remove


def generated(folder: Path, name: str = "pkg") -> Path:
    """A folder shaped as a build writes one (its manifest and files; no real code)."""
    folder.mkdir(parents=True)
    manifest = {
        "format": MANIFEST_FORMAT,
        "package": {"name": name},
        "aotbuild": {"version": "0", "codegen": "4"},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    for name_ in ("__init__.py", "__init__.pyi", "py.typed", "LICENSE.numba", "_exceptions.py"):
        (folder / name_).write_text("")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    (folder / f"_native{suffix}").write_bytes(b"\x7fELF")
    (folder / f"_native_x86_64_v3{suffix}").write_bytes(b"\x7fELF")
    (folder / "_modules").mkdir()
    (folder / "_modules" / "aot_add_0123.py").write_text("")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"")
    return folder


def test_a_generated_package_is_ours(tmp_path: Path) -> None:
    assert not_ours(generated(tmp_path / "pkg"), "pkg") is None
    assert not_ours(tmp_path / "missing", "missing") is None, "nothing there: nothing to lose"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda p: (p / "notes.txt").write_text("x"), "holds notes.txt, which aotbuild did not write"),
        (lambda p: (p / "_modules" / "readme.md").write_text("x"), "holds _modules/readme.md"),
        (lambda p: (p / "data").mkdir(), "holds data, which"),
        (lambda p: (p / "link.py").symlink_to(p / "__init__.py"), "holds link.py, which"),
        (lambda p: (p / "manifest.json").write_text("{}"), "has a manifest.json that is not aotbuild's"),
        (
            lambda p: (p / "manifest.json").write_text("not json"),
            "has a manifest.json that is not aotbuild's",
        ),
        (lambda p: (p / "manifest.json").unlink(), "has no manifest.json of aotbuild's"),
    ],
)
def test_anything_else_is_not(tmp_path: Path, change, expected: str) -> None:
    package = generated(tmp_path / "pkg")
    change(package)
    assert expected in (not_ours(package, "pkg") or "")


def test_the_manifest_must_name_this_package(tmp_path: Path) -> None:
    package = generated(tmp_path / "pkg", name="other")
    assert "another package's" in (not_ours(package, "pkg") or "")


def test_many_foreign_files_are_counted(tmp_path: Path) -> None:
    package = generated(tmp_path / "pkg")
    for index in range(5):
        (package / f"mine{index}.txt").write_text("")
    assert "holds mine0.txt, mine1.txt, mine2.txt and 2 more" in (not_ours(package, "pkg") or "")


def test_owned_folders_are_made_and_links_refused(tmp_path: Path) -> None:
    work = owned_folder(tmp_path / ".aotbuild" / "pkg", tmp_path)
    assert work.is_dir()
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match="is a file, where aotbuild keeps its own build files"):
        owned_folder(tmp_path / "file" / "pkg", tmp_path)


def test_remove_does_not_follow_links(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "a.txt").write_text("a")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "inside").symlink_to(kept)
    (tree / "b.txt").write_text("b")
    link = tmp_path / "link"
    link.symlink_to(kept)
    remove(link)
    remove(tree)
    assert not link.exists() and not tree.exists()
    assert (kept / "a.txt").read_text() == "a"
