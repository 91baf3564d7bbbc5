"""Calls from compiled code to C functions the package resolves at run time, by declaration.

A kernel's generated module binds a Cython export (SciPy's ``ndtri``, say) with
:func:`cython_export`: numba sees a function it may call by name, ``aot_cy_..._ndtri``, and emits
a ``declare`` of it; the package's shared object defines that symbol, forwarding to the export it
looks up in the Cython module's ``__pyx_capi__`` on the first call of a graph needing it.
"""

from __future__ import annotations

from typing import Any

from ..config.signature import parse_signature
from ..types import cython_symbol
from .numba_types import signature_to_numba


def cython_export(module: str, export: str, signature: str) -> Any:
    """``module``'s export ``export``, of ``signature`` (``"float64(float64)"``), as numba's
    ``ExternalFunction``: called by symbol, never by address."""
    from llvmlite import binding
    from numba.core import types

    from ..trace.cython import export_address

    symbol = cython_symbol(module, export)
    # numba compiles the helpers a module's functions call (@register_jitable) for its JIT,
    # which must resolve every symbol they name: here, the export itself. The object aotbuild
    # emits only declares the symbol; the package defines it.
    binding.add_symbol(symbol, export_address(module, export))
    args, result = signature_to_numba(parse_signature(signature))
    return types.ExternalFunction(symbol, result(*args))
