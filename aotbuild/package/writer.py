"""Stage 8: put the package together in a temporary folder, then swap it into place.

An interrupted build never leaves a half-written package: the previous one stays until the new
one is complete.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ..files import atomic_write, public_mode


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
