"""Stage 8: put the package together in a temporary folder, then swap it into place.

An interrupted build never leaves a half-written package: the previous one stays until the new
one is complete. The staging folder, and the previous package while it is being replaced, live
in the build's own work folder (``<out_dir>/.aotbuild/<name>/``), never beside the user's
files; builds of one package hold a lock (see :mod:`aotbuild.build`), so folders left there by
a build that was killed are removed by the next one.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..errors import OutputError
from ..files import atomic_write, public_mode
from .ownership import remove

_STAGING, _REPLACED = "staging-", "replaced-"


def staging_dir(work: Path) -> Path:
    """A new folder in the work folder ``work``, with the mode ``mkdir`` would give it."""
    work.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(dir=work, prefix=_STAGING))
    staged.chmod(public_mode(directory=True))
    return staged


def write_text(folder: Path, name: str, text: str) -> None:
    atomic_write(folder / name, text.encode())


def publish(staged: Path, destination: Path) -> None:
    """Replace ``destination`` with ``staged`` (two renames; the old one is removed after, from
    the work folder it was moved into)."""
    work = staged.parent
    old = None
    try:
        if destination.is_symlink() or destination.exists():
            old = Path(tempfile.mkdtemp(dir=work, prefix=_REPLACED))
            destination.rename(old / destination.name)
        staged.rename(destination)
    except OSError as exc:
        raise OutputError(
            f"cannot move the new package into {destination}: {exc} (the work folder {work} must be "
            "on the same file system)"
        ) from None
    if old is not None:
        remove(old)


def discard(staged: Path) -> None:
    remove(staged)


def remove_leftovers(work: Path) -> None:
    """Staging and replaced folders of killed builds, in the work folder (call under its lock)."""
    if not work.is_dir():
        return
    for prefix in (_STAGING, _REPLACED):
        for leftover in work.glob(prefix + "*"):
            remove(leftover)


def same_tree(staged: Path, destination: Path) -> bool:
    """Whether ``destination`` already holds exactly the files of ``staged``."""
    if destination.is_symlink() or not destination.is_dir():
        return False

    def files(root: Path) -> list[Path]:
        found = (p.relative_to(root) for p in root.rglob("*") if p.is_file())
        return sorted(p for p in found if "__pycache__" not in p.parts)

    names = files(staged)
    if names != files(destination):
        return False
    return all((staged / name).read_bytes() == (destination / name).read_bytes() for name in names)
