"""The generated package's Python files: the loader ``__init__.py``, its ``.pyi`` stub,
``_exceptions.py``, which rebuilds exceptions raised by compiled code without numba, and
``_numba.py``, which makes the graphs callable from numba's JIT where numba is imported."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from ..codegen.plan import BuildPlan, GraphPlan
from ..codegen.templates import render
from ..compile.target import Target
from ..config import GraphConfig, ProjectConfig
from ..graph import Graph
from ..link.cython import graph_exports
from ..link.entry import overloads_doc
from ..link.gufunc_entry import gufunc_doc
from ..link.ufunc_entry import ufunc_doc
from ..trace.used import UsedGraph
from ..types import Array, NoneType, Result, Scalar, TupleOf, Value, exported_symbol


def render_loader(
    project: ProjectConfig,
    plan: BuildPlan,
    natives: Sequence[tuple[Target, str]],
    linalg_graphs: Collection[str] = (),
    uses: Sequence[UsedGraph] = (),
) -> str:
    """The package's ``__init__.py``; ``natives``: each target and its shared object's file name
    (the first the default); ``uses``: other packages' graphs it calls."""
    from .. import __version__
    from ..compile.target import required_features

    # Most demanding first: the loader takes the first target the CPU runs.
    choices = sorted(
        (
            {
                "module": native.partition(".")[0],
                "name": target.name,
                "cpu": target.cpu,
                "requires": required_features(target),
            }
            for target, native in natives
        ),
        key=lambda choice: -len(choice["requires"]),
    )

    return render(
        "package/__init__.py.j2",
        package=project.package.name,
        version=project.package.version,
        aotbuild_version=__version__,
        config_name=project.path.name,
        target=", ".join(target.name for target, _ in natives),
        natives=choices,
        graphs=[g.graph.name for g in plan.graphs],
        linalg=list(linalg_graphs),
        ops=[module.symbol for module in plan.compiled],
        profiled=bool(plan.timers),
        uses=[
            {
                "package": package,
                "version": next(g.version for g in uses if g.package == package),
                "graphs": [g for g in uses if g.package == package],
            }
            for package in sorted({g.package for g in uses})
        ],
    )


def _annotation(value: Value, argument: bool) -> str:
    scalar = f"np.{np.dtype(value.dtype).type.__name__}"
    if isinstance(value, Array):
        return f"npt.NDArray[{scalar}]"
    if not argument:
        return scalar
    kind = np.dtype(value.dtype).kind
    python = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[kind]
    base = {
        "b": "np.bool_",
        "i": "np.integer[Any]",
        "u": "np.integer[Any]",
        "f": "np.floating[Any]",
        "c": "np.number[Any]",
    }[kind]
    return f"{python} | {base}"


def _result_annotation(result: Result) -> str:
    if isinstance(result, TupleOf):
        return "tuple[" + ", ".join(_annotation(item, False) for item in result.items) + "]"
    if isinstance(result, NoneType):
        return "None"
    assert isinstance(result, (Scalar, Array))
    return _annotation(result, False)


def _out_annotation(result: Result) -> str:
    """What ``out=`` takes: an array for an array result, a tuple with one entry per result."""
    if isinstance(result, TupleOf):
        items = [
            f"{_annotation(item, False)} | None" if isinstance(item, Array) else "None"
            for item in result.items
        ]
        return f"tuple[{', '.join(items)}] | None"
    assert isinstance(result, Array)
    return f"{_annotation(result, False)} | None"


def render_stub(project: ProjectConfig, plan: BuildPlan, linalg_graphs: Collection[str] = ()) -> str:
    graphs = []
    for graph_plan in plan.graphs:
        graph = graph_plan.graph
        if graph_plan.loops:
            doc = (gufunc_doc if graph.config.gufunc else ufunc_doc)(graph_plan).replace('"""', "'''")
            graphs.append({"name": graph.name, "ufunc": True, "doc": doc})
            continue
        doc = overloads_doc(graph_plan, graph.name in linalg_graphs).split("--\n\n", 1)[1]
        doc = "\n".join(("    " + line).rstrip() for line in doc.replace('"""', "'''").splitlines()).lstrip()
        graphs.append(
            {
                "name": graph.name,
                "ufunc": False,
                # one @overload per signature of a name that has several
                "overloads": [_stub_signature(each.graph) for each in graph_plan.overloads or (graph_plan,)],
                "doc": doc,
            }
        )
    return render("package/__init__.pyi.j2", package=project.package.name, graphs=graphs)


def _refused_by_numba(plan: GraphPlan) -> str:
    """Why numba's JIT cannot call the graph by declaration, or "" (it can)."""
    for each in plan.overloads or (plan,):
        for position in each.graph.config.fortran:
            return (
                f"its parameter {each.graph.params[position]!r} is Fortran-ordered, which a call "
                "from numba's JIT does not pass yet (the graph takes its transpose); declare it "
                "[:, :] (any layout) to call the graph from numba"
            )
    return ""


def _signatures_text(config: GraphConfig) -> str:
    """The signature messages name: several are listed."""
    texts = config.signature_texts
    return "; ".join(texts) if len(texts) > 1 else config.signature_text


def _stub_signature(graph: Graph) -> dict[str, object]:
    signature = graph.config.signature
    params = [
        f"{name}: {_annotation(value, True)}"
        for name, value in zip(graph.params, signature.args, strict=True)
    ]
    if graph.config.out:
        params += ["*", f"out: {_out_annotation(signature.result)} = None"]
    return {"params": params, "result": _result_annotation(signature.result)}


def numba_type_text(value: Result) -> str:
    """``value`` as a numba type expression in ``numba.core.types``' names (``_numba.py`` evaluates
    it where numba is imported: the package never needs aotbuild)."""
    if isinstance(value, Scalar):
        return "boolean" if value.dtype == "bool" else np.dtype(value.dtype).name
    if isinstance(value, Array):
        readonly = ", readonly=True" if value.readonly else ""
        return f"Array({numba_type_text(Scalar(value.dtype))}, {value.ndim}, {value.layout!r}{readonly})"
    if isinstance(value, TupleOf):
        return "Tuple((" + "".join(f"{numba_type_text(item)}, " for item in value.items) + "))"
    return "none"


def render_numba_interop(project: ProjectConfig, plan: BuildPlan) -> str:
    """``_numba.py``: each graph's entries (the contiguous one first) as numba types."""
    from ..compile.keys import toolchain_versions

    graphs = []
    for graph_plan in plan.graphs:
        if graph_plan.loops:
            continue  # a numpy.ufunc: numba calls its own kind of ufunc only
        # Each signature's entries, in the declared order, the contiguous one first.
        entries = [
            e for each in graph_plan.overloads or (graph_plan,) for e in (each.contiguous, each.entry) if e
        ]
        graphs.append(
            {
                "name": graph_plan.graph.name,
                "signature": repr(_signatures_text(graph_plan.graph.config)),
                "params": graph_plan.graph.params,
                "refused": repr(_refused_by_numba(graph_plan)),
                "entries": [
                    {
                        "symbol": entry.symbol,
                        "alias": exported_symbol(
                            project.package.name, graph_plan.graph.name, entry.signature
                        ),
                        "result": repr(numba_type_text(entry.signature.result)),
                        "args": [repr(numba_type_text(arg)) for arg in entry.signature.args],
                    }
                    for entry in entries
                ],
            }
        )
    return render(
        "package/_numba.py.j2",
        package=project.package.name,
        graphs=graphs,
        cython=[g.graph.name for g in plan.graphs if graph_exports(plan, g)],
        numba_version=toolchain_versions()["numba"],
    )


def render_exceptions(project: ProjectConfig) -> str:
    return render("package/_exceptions.py.j2", package=project.package.name)


def render_profile(project: ProjectConfig) -> str:
    return render("package/_profile.py.j2", package=project.package.name)
