"""What a build may replace or remove: only what it can show aotbuild wrote.

A build replaces ``<out_dir>/<name>/`` whole. A user who picks a name that is already a folder
of theirs — their sources with ``out_dir = "."``, a data folder, another tool's output — must
get an error, not an empty folder. So a folder is replaced only when it is a package aotbuild
generated: a real folder (not a symbolic link), whose ``manifest.json`` says aotbuild wrote it
for a package of that name, and which holds nothing but the files aotbuild writes (and Python's
``__pycache__``). Anything else stops the build before it does any work; ``--force`` replaces
it anyway.

aotbuild's own folders (``<out_dir>/.aotbuild/<name>/`` and the folders in it) are made here too,
refusing a symbolic link or a file in their place, so no removal in them can reach outside.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
from pathlib import Path

from ..codegen.vecmath import LICENCE_FILE as SLEEF_LICENCE_FILE
from ..errors import OutputError
from .licences import NUMBA_LICENCE_FILE

#: ``manifest.json``'s format; a folder whose manifest says another is not a package we wrote.
MANIFEST_FORMAT = 1

#: The package folder holding every generated Op module, as text to read (``aotbuild inspect``).
MODULES_FOLDER = "_modules"

#: The files a build writes at the top of a package, besides its shared objects.
PACKAGE_FILES = frozenset(
    {
        "manifest.json",
        "__init__.py",
        "__init__.pyi",
        "_exceptions.py",
        "_numba.py",
        "_profile.py",
        "py.typed",
        NUMBA_LICENCE_FILE,
        SLEEF_LICENCE_FILE,  # vector math adapted from SLEEF
    }
)

#: What the manifest of a package can be at most; anything larger is not one we wrote.
_MANIFEST_LIMIT = 64 * 1024 * 1024


def not_ours(folder: Path, name: str) -> str | None:
    """Why ``folder`` is not a package aotbuild generated under ``name`` (None: it is one)."""
    if folder.is_symlink():
        return f"is a symbolic link (to {os.readlink(folder)})"
    if not folder.exists():
        return None
    if not folder.is_dir():
        return "is a file"
    manifest = folder / "manifest.json"
    if manifest.is_symlink() or not manifest.is_file():
        return "has no manifest.json of aotbuild's"
    try:
        if manifest.stat().st_size > _MANIFEST_LIMIT:
            return "has a manifest.json that is not aotbuild's"
        record = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "has a manifest.json that is not aotbuild's"
    if not _is_manifest_of(record, name):
        return "has a manifest.json that is not aotbuild's (or is another package's)"
    foreign = sorted(_foreign_files(folder))
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        return f"holds {shown}, which aotbuild did not write"
    return None


def _is_manifest_of(record: object, name: str) -> bool:
    """Whether ``record`` is the manifest aotbuild writes, for the package ``name``."""
    if not isinstance(record, dict) or record.get("format") != MANIFEST_FORMAT:
        return False
    generator, package = record.get("aotbuild"), record.get("package")
    return (
        isinstance(generator, dict)
        and isinstance(generator.get("version"), str)
        and isinstance(generator.get("codegen"), str)
        and isinstance(package, dict)
        and package.get("name") == name
    )


def _foreign_files(folder: Path) -> list[str]:
    """Everything under ``folder`` that a build does not write (symbolic links included)."""
    foreign = []
    for root, directories, files in os.walk(folder):
        here = Path(root).relative_to(folder)
        for entry in [*directories, *files]:
            relative = here / entry
            if "__pycache__" in relative.parts:
                continue
            if (Path(root) / entry).is_symlink() or not _written_by_aotbuild(relative):
                foreign.append(relative.as_posix())
        directories[:] = [d for d in directories if d != "__pycache__" and not (Path(root) / d).is_symlink()]
    return foreign


def _written_by_aotbuild(relative: Path) -> bool:
    parts = relative.parts
    if len(parts) == 1:
        name = parts[0]
        return name in PACKAGE_FILES or name == MODULES_FOLDER or _is_shared_object(name)
    if len(parts) == 2 and parts[0] == MODULES_FOLDER:
        return parts[1].startswith("aot_") and parts[1].endswith(".py")
    return False


def _is_shared_object(name: str) -> bool:
    """``_native`` or ``_native_<target>``, with an extension module's suffix."""
    return name.startswith("_native") and any(
        name.endswith(suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def check_replaceable(destination: Path, name: str, *, force: bool) -> bool:
    """Refuse to go on when ``destination`` holds something aotbuild did not write, unless
    ``force``; True when it does and ``force`` lets the build replace it."""
    problem = not_ours(destination, name)
    if problem is None:
        return False
    if force:
        return True
    raise OutputError(
        f"{destination} {problem}; aotbuild replaces only a package it built, so nothing was changed. "
        f"Move it away, choose another [package] name or out_dir, or run `aotbuild compile --force` "
        "to replace it"
    )


def owned_folder(path: Path, below: Path) -> Path:
    """``path`` (below ``below``) as a real folder: made where missing; a symbolic link or a file
    at ``path`` or between the two is an error, since aotbuild removes files in its folders."""
    relative = path.relative_to(below)
    current = below
    for part in relative.parts:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            kind = "a symbolic link" if current.is_symlink() else "a file"
            raise OutputError(
                f"{current} is {kind}, where aotbuild keeps its own build files; remove it or "
                "choose another out_dir"
            )
        current.mkdir(exist_ok=True)
    return path


def remove(path: Path) -> None:
    """Remove ``path``: a symbolic link or file itself (never what a link points to), a folder
    with everything in it (links inside are removed, not followed)."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
