"""Writing files so that no reader ever sees half of one."""

from __future__ import annotations

import os
import tempfile
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def public_mode(directory: bool = False) -> int:
    """The mode ``open``/``mkdir`` would give: tempfile's are private (0600/0700), and a
    package written through them would be unreadable by anyone else who installs it."""
    return (0o777 if directory else 0o666) & ~_umask()


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(handle, public_mode())
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_if_changed(path: Path, data: bytes) -> bool:
    """Atomically write ``data`` unless ``path`` already holds exactly it; True if written."""
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    atomic_write(path, data)
    return True
