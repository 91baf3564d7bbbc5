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
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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
