"""Stage 8: put the package together in a temporary folder, then swap it into place.

An interrupted build never leaves a half-written package: the previous one stays until the new
one is complete. Builds of one package hold a lock (see :mod:`aotbuild.build`), so folders left
beside it by a build that was killed are removed by the next one.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ..files import atomic_write, public_mode

#: The package folder holding every generated Op module, as text to read (``aotbuild inspect``).
MODULES_FOLDER = "_modules"


def staging_dir(destination: Path) -> Path:
    """A new folder beside ``destination``, with the mode ``mkdir`` would give it."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(dir=destination.parent, prefix=f".{destination.name}.building-"))
    staged.chmod(public_mode(directory=True))
    return staged


def write_text(folder: Path, name: str, text: str) -> None:
    atomic_write(folder / name, text.encode())


def publish(staged: Path, destination: Path) -> None:
    """Replace ``destination`` with ``staged`` (two renames; the old one is removed after)."""
    old = None
    if destination.exists():
        old = Path(tempfile.mkdtemp(dir=destination.parent, prefix=f".{destination.name}.old-"))
        destination.rename(old / destination.name)
    staged.rename(destination)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def discard(staged: Path) -> None:
    shutil.rmtree(staged, ignore_errors=True)


def remove_leftovers(destination: Path) -> None:
    """Staging and old folders of killed builds of ``destination`` (call under its lock)."""
    if not destination.parent.is_dir():
        return
    for pattern in (f".{destination.name}.building-*", f".{destination.name}.old-*"):
        for leftover in destination.parent.glob(pattern):
            shutil.rmtree(leftover, ignore_errors=True)


def same_tree(staged: Path, destination: Path) -> bool:
    """Whether ``destination`` already holds exactly the files of ``staged``."""
    if not destination.is_dir():
        return False

    def files(root: Path) -> list[Path]:
        found = (p.relative_to(root) for p in root.rglob("*") if p.is_file())
        return sorted(p for p in found if "__pycache__" not in p.parts)

    names = files(staged)
    if names != files(destination):
        return False
    return all((staged / name).read_bytes() == (destination / name).read_bytes() for name in names)
