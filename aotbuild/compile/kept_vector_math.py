"""The shared vector math's compiled functions kept in the object cache, so that a machine compiles
each once, not once in every process.

Every process that compiles Ops (the build's own, each compile worker, a rebuild's) compiled
the vector math functions its Ops call again: on a 2-core EPYC the ``log(float64[:])`` Op took
1.9 s to compile in a fresh process (``log_float64`` and its 12 callees through numba's
pipeline), 0.7 s with the kept functions loaded; ``tanh`` on float32 1.8 -> 1.2 s.

numba's own cache (``cache=True``) keeps what an Op needs: its entries carry, besides the object
code numba's JIT runs, the function's LLVM bitcode, which numba links into a caller and LLVM
inlines there as it does a function compiled now. So the functions of the shared vector math
module (:func:`aotbuild.compile.helpers.vector_math_module`) are declared with ``cache=True``
where the build has a cache, and numba is told where their entries live: a locator of
numba's caching (:class:`KeptLocator`) claims the module's functions, and only them, for a folder
of the object cache named by the library's text and the toolchain (numba, llvmlite, NumPy,
Python, ``NUMBA_OPT``); numba's index keys each entry by signature and CPU (name and features),
so each target has its own. An entry loaded is the IR numba made when it compiled the function,
so the Op's object is byte for byte the same (``tests/compile/test_kept_vector_math.py``).

numba's cache files are not safe for concurrent writers of different entries (each process
reads the function's index, adds its entry and writes it back, numbering its data file by the
entries it saw: two processes compiling one function for two CPUs, or two signatures, could
leave the index naming the other's data, which numba loads unchecked). So reading and writing
the files of a kept folder holds an exclusive lock on the folder's ``lock`` file
(:func:`_locked`); where the system has no such locks (Windows), nothing is kept. A folder that
cannot be written, or numba told to use other locators (``NUMBA_CACHE_LOCATOR_CLASSES``), only
loses the saving: the functions are then compiled as before.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from numba.core import caching, config

from ..files import exclusive_lock

_KEPT: dict[str, tuple[str, str]] = {}
"""The file name numba sees for each kept module's functions -> (folder, stamp)."""

_FOLDERS: set[str] = set()
"""The kept folders, whose files numba reads and writes only under their lock."""


class KeptLocator(caching._CacheLocator):
    """Where numba keeps the compiled functions of a shared vector math module: the folder it
    was registered with (:func:`keep`), whatever the process."""

    def __init__(self, folder: str, stamp: str, lineno: int) -> None:
        self._folder = folder
        self._stamp = stamp
        self._lineno = lineno

    def get_cache_path(self) -> str:
        return self._folder

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> KeptLocator | None:
        kept = _KEPT.get(py_file)
        return None if kept is None else cls(*kept, py_func.__code__.co_firstlineno)


def folder_for(root: Path, text: str, toolchain: str) -> Path:
    """The folder under ``root`` keeping the functions of the library module ``text``."""
    return root / hashlib.sha256(f"{toolchain}\n{text}".encode()).hexdigest()[:24]


def keep(filename: str, folder: Path) -> bool:
    """Have numba keep the functions compiled from ``filename`` in ``folder``; False (nothing
    kept: declare them without ``cache=True``) where it cannot."""
    if getattr(config, "CACHE_LOCATOR_CLASSES", None):  # numba would ask only the user's locators
        return False
    try:
        import fcntl  # noqa: F401 (the lock's, see the module docstring)
    except ImportError:
        return False
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()  # as numba checks it, before each function
    except OSError:
        return False
    locators: list[Any] = caching.CacheImpl._locator_classes
    if KeptLocator not in locators:
        locators.insert(0, KeptLocator)
    for name in ("save", "load"):
        method = getattr(caching.IndexDataCacheFile, name)
        if not getattr(method, "locks_kept_folders", False):
            setattr(caching.IndexDataCacheFile, name, _locked(method))
    _KEPT[filename] = (os.fspath(folder), folder.name)
    _FOLDERS.add(os.fspath(folder))
    return True


def _locked(method: Callable[..., Any]) -> Callable[..., Any]:
    """numba's ``IndexDataCacheFile`` ``method`` (``save``: read the index, add an entry, write
    the index and the data; ``load``: read both), under the lock of a kept folder, where a file
    that cannot be read or written (damaged, a full disk) is only a miss: compiled again, and
    written over; as it was in any other folder."""

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self._cache_path not in _FOLDERS:
            return method(self, *args, **kwargs)
        try:
            with exclusive_lock(Path(self._cache_path) / "lock"):
                return method(self, *args, **kwargs)
        except Exception:  # pickle's errors on a damaged file are of many kinds
            return None

    run.locks_kept_folders = True  # type: ignore[attr-defined]
    return run
