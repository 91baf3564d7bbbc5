"""Render the C entry module (``templates/native/entry.c.j2``) for a package's graphs."""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from ..codegen.module import CODEGEN_VERSION
from ..codegen.plan import BuildPlan, GraphPlan
from ..codegen.profile import timer_id
from ..codegen.templates import render
from ..compile.adapter import ADAPTER_SUFFIX
from ..types import Array, NoneType, TupleOf, Value, exported_symbol
from .c_names import F_TRANSPOSED, NPY_TYPES, ORDERS, c_string
from .cython import all_exports, forwarder, graph_exports
from .gufunc_entry import gufunc_entry
from .linalg import PROVIDERS
from .overloads import overload_tests
from .ufunc_entry import ufunc_entry


def _param(name: str, value: Value, writes: bool, cast: bool, transposed: bool = False) -> dict[str, object]:
    """``transposed``: a Fortran-ordered array of a traced graph (``GraphConfig.fortran``),
    declared as its transpose in ``value``."""
    typenum, ctype = NPY_TYPES[value.dtype]
    declared = value.with_layout("F") if transposed and isinstance(value, Array) else value
    param: dict[str, object] = {
        "name": name,
        "declared": str(declared),
        "typenum": typenum,
        "ctype": ctype,
        "suffix": "",
        "cast": 0,
    }
    if isinstance(value, Array):
        param.update(
            kind="array",
            ctype=f"aot_array{value.ndim}",
            ndim=value.ndim,
            dtype=value.dtype,
            order=F_TRANSPOSED if transposed else ORDERS[value.layout],
            writes=int(writes),
            cast=int(cast),
        )
        return param
    kind = np.dtype(value.dtype).kind
    if kind == "b":
        param["kind"] = "bool"
    elif kind == "f":
        param["kind"] = "real"
    elif kind == "c":
        param.update(kind="complex", suffix="[2]")
    else:
        info = np.iinfo(value.dtype)
        # Written as (MIN + 1) - 1: C has no literal for the minimum of a 64-bit integer.
        low = f"({int(info.min) + 1}LL - 1)" if info.min < 0 else "0LL"
        param.update(kind="integer", low=low, high=f"{int(info.max)}ULL", unsigned=int(kind == "u"))
    return param


def _result(index: int, value: Value) -> dict[str, object]:
    typenum, ctype = NPY_TYPES[value.dtype]
    if isinstance(value, Array):
        return {
            "kind": "array",
            "ctype": f"aot_array{value.ndim}",
            "suffix": "",
            "ndim": value.ndim,
            "dtype": value.dtype,
            "typenum": typenum,
            "box": f"aot_box_array(&result{index}.head, {value.ndim}, {typenum})",
        }
    if np.dtype(value.dtype).kind == "c":
        box = f"aot_box_scalar(result{index}, {typenum})"
        return {"kind": "scalar", "ctype": ctype, "suffix": "[2]", "box": box}
    box = f"aot_box_scalar(&result{index}, {typenum})"
    return {"kind": "scalar", "ctype": ctype, "suffix": "", "box": box}


def graph_doc(plan: GraphPlan, linalg: bool = False) -> str:
    """The docstring: a text signature (for ``inspect.signature``), then what the graph is."""
    config = plan.graph.config
    params = ", ".join([*plan.graph.params, *(["*", "out=None"] if config.out else [])])
    lines = [
        f"{config.name}({params})",
        "--",
        "",
        f"{config.name}{config.signature_text[config.signature_text.index('(') :]} -> "
        f"{config.signature.result}",
        "",
        f"Compiled by aotbuild from {config.function} (mode = {config.mode!r}"
        + (", chosen by mode = 'auto')" if config.auto else ")")
        + (f", defined at {plan.graph.source}." if plan.graph.source else "."),
        f"Signature: {config.signature_text}",
    ]
    if plan.contiguous is not None:
        lines.append("When every array passed is C-contiguous, runs a variant compiled for such arrays.")
    if config.nogil:
        lines.append("Releases the GIL while it runs.")
    if config.out:
        lines.append(
            "out= (an array, or a tuple with one entry per result: an array or None) receives the "
            "result, which is then returned."
        )
    if linalg:
        lines.append("Uses BLAS/LAPACK, which SciPy provides at run time (imported on the first call).")
    return "\n".join(lines)


def _graph(plan: GraphPlan, linalg: bool, profile: bool, cython: list[int]) -> dict[str, object]:
    graph = plan.graph
    config = graph.config
    signature = config.signature
    kernel = config.mode == "kernel"
    cast = config.cast == "same_kind"  # kernels writing into an array were refused at build time
    params = [
        # A kernel may write into an array, unless declared readonly (numba refused the writes).
        _param(
            name,
            value,
            kernel and not (isinstance(value, Array) and value.readonly),
            cast,
            transposed=position in config.fortran,
        )
        for position, (name, value) in enumerate(zip(graph.params, signature.args, strict=True))
    ]
    result = signature.result
    returns = "tuple" if isinstance(result, TupleOf) else "none" if isinstance(result, NoneType) else "single"
    return {
        "name": config.name,
        "signature": config.signature_text,
        "adapter": plan.entry.symbol + ADAPTER_SUFFIX,
        "contiguous_adapter": plan.contiguous.symbol + ADAPTER_SUFFIX if plan.contiguous else None,
        "contiguity_checks": _contiguity_checks(plan),
        "params": params,
        "results": [_result(i, item) for i, item in enumerate(signature.results)],
        "returns": returns,
        "nogil": config.nogil,
        "out": config.out,
        "timer": timer_id(f"graph {config.name}", plan.entry.symbol) if profile else None,
        "linalg": linalg,
        "cython": cython,
    }


def _contiguity_checks(plan: GraphPlan) -> list[dict[str, int]]:
    """The arguments the contiguous variant declares C-contiguous and the graph does not."""
    if plan.graph.contiguous is None:
        return []
    declared = plan.graph.config.signature.args
    variant = plan.graph.contiguous.config.signature.args
    return [
        {"arg": index, "ndim": value.ndim}
        for index, (value, fast) in enumerate(zip(declared, variant, strict=True))
        if value != fast
    ]


def render_entry(
    package: str,
    plan: BuildPlan,
    linalg_graphs: Collection[str] = (),
    environments: Collection[str] = (),
    module: str = "_native",
) -> dict[str, str]:
    """The C sources of the extension module ``module`` (``_native``, or ``_native_x86_64_v3``
    for one target of several), by file name: the module (``_native.c``) and one file per graph
    (``graph_<name>.c``), so a changed graph recompiles its own file and the module only; each
    graph's file includes ``aot_entry.h`` first.
    ``linalg_graphs`` resolve BLAS/LAPACK on their first call; ``environments`` are the Ops'
    environment pointers (``<symbol>.env``) the module fills when it loads."""
    exports = all_exports(plan)
    index = {export.symbol: k for k, export in enumerate(exports)}
    functions = [g for g in plan.graphs if not g.loops]
    # One C function per signature: a name's several signatures are <name>__<k>, and <name>
    # dispatches among them (entry_overloads.c.j2).
    callables = [
        (each, f"{g.graph.name}__{k}" if g.overloads else g.graph.name)
        for g in functions
        for k, each in enumerate(g.overloads or (g,))
    ]
    graphs = [
        {
            **_graph(
                graph,
                graph.graph.name in linalg_graphs,
                bool(plan.timers),
                [index[export.symbol] for export in graph_exports(plan, graph)],
            ),
            "c_name": c_name,
        }
        for graph, c_name in callables
    ]
    methods = [
        {"name": g.graph.name, "doc": c_string(overloads_doc(g, g.graph.name in linalg_graphs))}
        for g in functions
    ]
    ufuncs = [ufunc_entry(graph) for graph in plan.graphs if graph.loops and not graph.graph.config.gufunc]
    gufuncs = [gufunc_entry(graph) for graph in plan.graphs if graph.graph.config.gufunc]
    symbols = [{"name": m.symbol, "c_name": f"aot_symbol_{i}"} for i, m in enumerate(plan.compiled)]
    # Exported for numba's JIT and other packages: a ufunc's loops are NumPy's to call only.
    # (nor a traced graph taking Fortran-ordered arrays as their transposes: not by declaration yet)
    entries = [
        (g.graph.name, e)
        for g, _ in callables
        if not g.graph.config.fortran
        for e in (g.entry, g.contiguous)
        if e is not None
    ]
    exported = [
        {"name": exported_symbol(package, graph, entry.signature), "target": entry.symbol}
        for graph, entry in entries
    ]
    sources = {
        "_native.c": render(
            "native/entry.c.j2",
            package=package,
            module=module,
            codegen_version=CODEGEN_VERSION,
            graphs=graphs,
            methods=methods,
            ufuncs=[*ufuncs, *gufuncs],  # numpy.ufunc objects the module makes at import
            symbols=symbols,
            exports=exported,
            timers=plan.timers,
            environments=[{"name": name, "c_name": f"aot_env_{i}"} for i, name in enumerate(environments)],
            linalg_providers=PROVIDERS,
            cython_exports=[forwarder(export, k) for k, export in enumerate(exports)],
        )
    }
    # what every graph's unit includes first: precompiled when many compile (link/precompiled.py)
    sources["aot_entry.h"] = render("native/aot_entry.h.j2", codegen_version=CODEGEN_VERSION)
    for ufunc in ufuncs:
        sources[f"graph_{ufunc['name']}.c"] = render(
            "native/entry_ufunc.c.j2", codegen_version=CODEGEN_VERSION, ufunc=ufunc
        )
    for gufunc in gufuncs:
        sources[f"graph_{gufunc['name']}.c"] = render(
            "native/entry_gufunc.c.j2", codegen_version=CODEGEN_VERSION, gufunc=gufunc
        )
    for (graph_plan, _), graph in zip(callables, graphs, strict=True):
        signature = graph_plan.graph.config.signature
        ndims = sorted({v.ndim for v in (*signature.args, *signature.results) if isinstance(v, Array)})
        sources[f"graph_{graph['c_name']}.c"] = render(
            "native/entry_graph.c.j2", codegen_version=CODEGEN_VERSION, graph=graph, ndims=ndims
        )
    for graph_plan in functions:
        if graph_plan.overloads:
            sources[f"graph_{graph_plan.graph.name}.c"] = _dispatcher(graph_plan)
    return sources


def _dispatcher(plan: GraphPlan) -> str:
    """The C function picking among a name's several signatures (entry_overloads.c.j2)."""
    config = plan.graph.config
    cast = config.cast == "same_kind"
    return render(
        "native/entry_overloads.c.j2",
        codegen_version=CODEGEN_VERSION,
        name=config.name,
        params=plan.graph.params,
        nparams=len(plan.graph.params),
        nkwonly=int(config.out),
        cast=cast,
        declared="; ".join(config.signature_texts),
        overloads=[
            {
                "c_name": f"{config.name}__{k}",
                "signature": each.graph.config.signature_text,
                **overload_tests(each.graph.config.signatures[each.graph.config.signature_index], cast),
            }
            for k, each in enumerate(plan.overloads)
        ],
    )


def overloads_doc(plan: GraphPlan, linalg: bool = False) -> str:
    """The docstring of a graph, listing every signature of a name that has several."""
    doc = graph_doc(plan, linalg)
    if not plan.overloads:
        return doc
    config = plan.graph.config
    lines = doc.splitlines()
    heads = [graph_doc(each, linalg).splitlines()[3] for each in plan.overloads]
    body = [
        "Signatures (the first the arguments match exactly, else the first they convert to): "
        + "; ".join(config.signature_texts)
        if line.startswith("Signature: ")
        else line
        for line in lines[5:]
    ]
    return "\n".join([*lines[:3], *heads, "", *body])
