"""BLAS and LAPACK: which numba runtime functions reach them, and how they are resolved.

numba's linear algebra calls helpers such as ``numba_xxgemm`` (in ``numba/_lapack.c``), which
take the actual BLAS/LAPACK functions from SciPy's Cython exports the first time they run — and
abort the process if that fails. A package whose Ops need these helpers therefore resolves every
function at import (``_native._resolve_linalg``), after checking SciPy imports, so a missing
SciPy is an ImportError naming the graphs that need it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .toolchain import numba_source_dir

_GETTER = re.compile(r"^EMIT_GET_(CBLAS|CLAPACK)_FUNC\((\w+)\)", re.M)
_EXPORTED = re.compile(r"NUMBA_EXPORT_FUNC\([^)]*\)\s*\n\s*(numba_\w+)\s*\(")


@lru_cache(maxsize=1)
def _lapack_source() -> str:
    return (numba_source_dir() / "_lapack.c").read_text()


@lru_cache(maxsize=1)
def getters() -> tuple[tuple[str, str], ...]:
    """(BLAS/LAPACK function, the numba getter resolving it), in _lapack.c's order."""
    return tuple((name, f"get_{kind.lower()}_{name}") for kind, name in _GETTER.findall(_lapack_source()))


@lru_cache(maxsize=1)
def entry_points() -> frozenset[str]:
    """The numba runtime functions that call BLAS or LAPACK."""
    return frozenset(_EXPORTED.findall(_lapack_source()))
