"""BLAS and LAPACK: which numba runtime functions reach them, and how they are resolved.

numba's linear algebra calls helpers such as ``numba_xxgemm`` (in ``numba/_lapack.c``), which
take the actual BLAS/LAPACK functions from SciPy's Cython exports the first time they run — and
abort the process if that fails. So the loader only checks that SciPy is installed (an
ImportError naming the graphs that need it, at import), and the entry function of such a graph
imports SciPy's BLAS/LAPACK and resolves every function on its first call, before the graph runs
(an ImportError naming the graph if that fails): importing them takes ~180 ms, a hundred times
the package's own import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from ..codegen.plan import BuildPlan
from ..compile.compiler import CompiledObject
from .toolchain import numba_source_dir

#: Where numba's helpers take BLAS and LAPACK from at run time.
PROVIDERS = ("scipy.linalg.cython_blas", "scipy.linalg.cython_lapack")

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


def graphs_needing_linalg(plan: BuildPlan, objects: Mapping[str, CompiledObject]) -> tuple[str, ...]:
    """The graphs one of whose Ops (their own or a callee's) calls BLAS or LAPACK (an Op compiled
    into another has no object: its calls are its caller's)."""
    helpers = entry_points()
    return tuple(
        graph.graph.name
        for graph in plan.graphs
        if any(helpers.intersection(objects[symbol].needed) for symbol in graph.symbols if symbol in objects)
    )
