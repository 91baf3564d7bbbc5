"""Stage 8: put the package together in a temporary folder, then swap it into place.

An interrupted build never leaves a half-written package: the previous one stays until the new
one is complete. The staging folder, and the previous package while it is being replaced, live
in the build's own work folder (``<out_dir>/.aotbuild/<name>/``), never beside the user's
files; builds of one package hold a lock (see :mod:`aotbuild.build`), so folders left there by
a build that was killed are removed by the next one.
"""

from __future__ import annotations

import importlib.util
import py_compile
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


def write_bytecode(folder: Path, package: str) -> None:
    """The bytecode of ``folder``'s Python modules, in its ``__pycache__`` as Python would write
    it, but checked against the source's hash rather than its time (so the same build gives the
    same bytes): a package's first import, and every import where Python writes no bytecode
    (``PYTHONDONTWRITEBYTECODE``, a read-only site-packages), need not compile its loader. The
    example's took ~2 ms to compile, of a ~2.4 ms import. Tracebacks name the installed file:
    importlib sets it when it loads the bytecode."""
    for source in sorted(folder.glob("*.py")):
        py_compile.compile(
            str(source),
            cfile=importlib.util.cache_from_source(str(source)),
            dfile=f"{package}/{source.name}",
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
        )


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
    """Whether ``destination`` already holds exactly the files of ``staged``: bytecode Python
    wrote there for itself (another Python's, say) aside."""
    if destination.is_symlink() or not destination.is_dir():
        return False

    def files(root: Path) -> list[Path]:
        return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file())

    names = files(staged)
    ours = set(names)
    if names != [p for p in files(destination) if "__pycache__" not in p.parts or p in ours]:
        return False
    return all((staged / name).read_bytes() == (destination / name).read_bytes() for name in names)
