"""Cython exports in the shared object: a forwarding function per export, resolved on first use.

A compiled Op calls an export by a symbol of its own (:func:`~aotbuild.types.cython_symbol`);
``_native.c`` defines that symbol as a function forwarding to a pointer, which the first call of
a graph needing it fills from the Cython module's ``__pyx_capi__`` (importing the module: SciPy's
``cython_special`` takes ~100 ms, a hundred times the package's own import). A missing module or
export is an ImportError naming the graph.
"""

from __future__ import annotations

from ..codegen.plan import BuildPlan, GraphPlan
from ..errors import LinkError
from ..types import CythonExport

#: dtype -> the C type of the forwarding function's argument or result.
_C_TYPES = {"float64": "double", "float32": "float", "int64": "long", "int32": "int"}


def graph_exports(plan: BuildPlan, graph: GraphPlan) -> tuple[CythonExport, ...]:
    """The exports the Ops of ``graph`` (its own and every callee's) call, by symbol."""
    symbols = set(graph.symbols)
    found = {e.symbol: e for m in plan.modules if m.symbol in symbols for e in m.externals}
    return tuple(found[symbol] for symbol in sorted(found))


def all_exports(plan: BuildPlan) -> tuple[CythonExport, ...]:
    """Every export the package calls, by symbol; two exports under one symbol are an error."""
    found: dict[str, CythonExport] = {}
    for export in (e for m in plan.modules for e in m.externals):
        seen = found.setdefault(export.symbol, export)
        if (seen.module, seen.export) != (export.module, export.export):
            raise LinkError(f"{seen} and {export} would both be called {export.symbol}")
    return tuple(found[symbol] for symbol in sorted(found))


def forwarder(export: CythonExport, index: int) -> dict[str, str]:
    """What ``entry.c.j2`` needs to define ``export``'s symbol as a call through pointer ``index``."""
    params = ", ".join(f"{_C_TYPES[dtype]} a{k}" for k, dtype in enumerate(export.args)) or "void"
    c_args = [_C_TYPES[dtype] for dtype in export.args] + (["int"] if export.skip_dispatch else [])
    values = [f"a{k}" for k in range(len(export.args))] + (["0"] if export.skip_dispatch else [])
    result = _C_TYPES[export.result]
    return {
        "symbol": export.symbol,
        "module": export.module,
        "export": export.export,
        "c_signature": export.c_signature,
        "definition": (
            f"{result}\n{export.symbol}({params})\n{{\n"
            f"    return (({result} (*)({', '.join(c_args) or 'void'}))aot_cython_pointers[{index}])"
            f"({', '.join(values)});\n}}"
        ),
    }
