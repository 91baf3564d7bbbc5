"""Exception data that a package can turn back into exceptions without numba or llvmlite.

numba pickles an exception raised in compiled code as ``(class, args, location)``. When some
args are only known at run time (``raise ValueError("bad", i)``), numba puts llvmlite ``ir.Value``
objects where they go and merges the real values in at run time with
``numba.core.serialize.runtime_build_excinfo_struct`` — so unpickling needs llvmlite and the
merge needs numba. While aotbuild compiles, those exceptions are pickled instead as

    (class, args with None for each run-time value, location, positions of the run-time values)

which plain ``pickle`` reads; the package's ``_exceptions.rebuild`` (templates/package) puts the
run-time values, which the compiled code boxes itself, at those positions. Exceptions without
run-time values keep numba's three-item form.

The location numba records, ``(function, file, line)``, names the file of the code that raises;
where that is a library's (numba's own ``ZeroDivisionError`` for ``i % 0``, say), the file is
recorded relative to its site-packages folder (``numba/cpython/numbers.py``), so no path of the
building machine reaches the package.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def portable_exception_data() -> Iterator[None]:
    """Within: numba pickles run-time exception args as above. Hold numba's compiler lock: the
    patch is on numba's calling convention, which a JIT compile in this process also uses."""
    from llvmlite import ir
    from numba.core.callconv import CPUCallConv

    numba_build = CPUCallConv.build_excinfo_struct

    def build_excinfo_struct(self: Any, exc: Any, exc_args: Any, loc: Any, func_name: Any) -> Any:
        record = numba_build(self, exc, exc_args, loc, func_name)
        args = tuple(_portable_text(a) if isinstance(a, str) else a for a in record[1] or ())
        record = (record[0], args if record[1] is not None else None, _portable(record[2]), *record[3:])
        args = record[1] or ()
        positions = tuple(i for i, arg in enumerate(args) if isinstance(arg, ir.Value))
        if not positions:
            return record
        static = tuple(None if i in positions else arg for i, arg in enumerate(args))
        return (record[0], static, record[2], positions)

    CPUCallConv.build_excinfo_struct = build_excinfo_struct  # type: ignore[method-assign]
    try:
        yield
    finally:
        CPUCallConv.build_excinfo_struct = numba_build  # type: ignore[method-assign]


def _portable(location: Any) -> Any:
    """``(function, file, line)`` with a library file relative to the folder it is installed in."""
    if location is None:
        return None
    function, filename, line = location
    return (function, _portable_path(filename), line)


def _portable_path(filename: str) -> str:
    path = Path(filename)
    if path.is_absolute():
        inside = [Path(f) for f in sys.path if f and Path(f).is_absolute() and path.is_relative_to(f)]
        deepest = max(inside, key=lambda folder: len(folder.parts), default=None)
        path = path.relative_to(deepest) if deepest is not None else Path(path.name)
    return path.as_posix()


_FILE_IN_MESSAGE = re.compile(r'File "(/[^"]+)"')


def _portable_text(message: str) -> str:
    """A message numba wrote a location into (``File "/.../npyimpl.py", line 373``), portable."""
    return _FILE_IN_MESSAGE.sub(lambda m: f'File "{_portable_path(m.group(1))}"', message)
