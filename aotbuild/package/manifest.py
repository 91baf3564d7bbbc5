"""``manifest.json``: what a package was built from and with, written deterministically."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..codegen.module import CODEGEN_VERSION
from ..codegen.plan import BuildPlan, GraphPlan
from ..compile.compiler import CompiledObject
from ..compile.keys import toolchain_versions
from ..compile.target import Target
from ..config import ProjectConfig
from ..link.linalg import PROVIDERS
from ..link.ufunc_entry import in_order_loop
from ..trace.used import UsedGraph
from .ownership import MANIFEST_FORMAT
from .records import entry_symbols


def build_manifest(
    project: ProjectConfig,
    plan: BuildPlan,
    objects: Mapping[str, CompiledObject],
    linalg_graphs: Sequence[str],
    natives: Sequence[tuple[Target, str]],
    uses: Sequence[UsedGraph] = (),
) -> dict[str, Any]:
    """The build record. ``natives``: each target and its shared object's file name, the first
    the one ``target``, ``native`` and the Ops' ``object_sha256`` describe; ``uses``: the other
    packages' graphs the package calls, with the compiled Ops they reached at build time."""
    from .. import __version__

    graphs = {}
    for graph_plan in plan.graphs:
        config = graph_plan.graph.config
        graphs[config.name] = {
            "function": config.function,
            "source": graph_plan.graph.source,
            "mode": config.mode,
            "auto": config.auto,
            "signature": config.shown_signature,
            "signatures": list(config.signature_texts or (config.signature_text,)),
            **_ufunc(graph_plan),
            **_overloads(graph_plan),
            # (a ufunc's loops take the output last: not a parameter of the ufunc's function)
            "parameters": list(graph_plan.graph.params[: -1 if config.ufunc else None]),
            "fortran_parameters": [graph_plan.graph.params[k] for k in graph_plan.graph.config.fortran],
            "nogil": config.nogil,
            "entry": graph_plan.entry.symbol,
            "contiguous_entry": graph_plan.contiguous.symbol if graph_plan.contiguous else None,
            "ops": list(graph_plan.symbols),
            "writes": _written(graph_plan),
            **_regions(graph_plan),
        }
        graphs[config.name]["entries"] = sorted(entry_symbols(graphs[config.name]))
    ops = {}
    for module in plan.modules:
        obj = objects.get(module.symbol)
        ops[module.symbol] = {
            "kind": module.kind,
            "title": module.title,
            "signature": str(module.signature),
            "module": module.filename,
            "module_sha256": module.sha256,
            # a kernel's region has no object: its code is compiled into the kernel's
            "object_sha256": hashlib.sha256(obj.data).hexdigest() if obj is not None else None,
            **(
                {"compiled_into": [m.symbol for m in plan.modules if module.symbol in m.compiled_in]}
                if obj is None
                else {}
            ),
            "calls": list(module.calls),
            "flags": {
                "error_model": module.flags.error_model,
                "fastmath": module.flags.fastmath,
                "boundscheck": module.flags.boundscheck,
                "wide_vectors": module.flags.wide_vectors,
            },
        }
    return {
        "format": MANIFEST_FORMAT,
        "package": {"name": project.package.name, "version": project.package.version},
        "aotbuild": {"version": __version__, "codegen": CODEGEN_VERSION},
        "target": _target(natives[0][0]),
        "targets": [{**_target(target), "native": native} for target, native in natives],
        "toolchain": toolchain_versions(),
        "graphs": graphs,
        "ops": ops,
        "order": [module.symbol for module in plan.modules],
        "profile": bool(plan.timers),
        "native": natives[0][1],
        "linalg": {
            "graphs": list(linalg_graphs),
            "provider": ", ".join(PROVIDERS) if linalg_graphs else None,
        },
        "cython": _cython_needs(plan),
        "uses": _uses(project, uses),
    }


def _regions(graph_plan: Any) -> dict[str, list[str]]:
    """A kernel's traced array statements (where each run starts) and the statements left to
    numba, with why (see aotbuild/trace/regions); nothing for a traced graph."""
    from ..graph import Kernel

    op = graph_plan.graph.outputs[0].op
    if not isinstance(op, Kernel):
        return {}
    traced, notes = op.unit.traced_regions()
    return {"traced_regions": traced, "left_to_numba": notes}


def _written(graph_plan: Any) -> list[str]:
    """The parameters a kernel graph may write into (none for a traced graph): a traced graph
    of a package using this one must not call it (its calls are values, its arrays copies)."""
    from ..graph import Kernel
    from ..trace.writes import written_parameters

    graph = graph_plan.graph
    op = graph.outputs[0].op
    if not isinstance(op, Kernel):
        return []
    array_params = [p for p, v in zip(graph.params, graph.config.signature.args, strict=True) if v.ndim]
    return [graph.params[k] for k in sorted(written_parameters(op.unit)) if graph.params[k] in array_params]


def _uses(project: ProjectConfig, uses: Sequence[UsedGraph]) -> dict[str, Any]:
    """Per used package: its version, and each of its graphs called: the names called, and
    (symbol, object sha256) of each compiled Op it reached."""
    versions = {graph.package: graph.version for graph in uses}
    return {
        name: {
            "version": versions.get(name),
            "graphs": {
                graph.name: {"symbols": list(graph.symbols), "ops": [list(op) for op in graph.ops]}
                for graph in uses
                if graph.package == name
            },
        }
        for name in project.package.uses
    }


def _overloads(plan: GraphPlan) -> dict[str, Any]:
    """A name's several signatures: each one's entries, in the declared order (the first's are
    the graph's ``entry`` and ``contiguous_entry`` too)."""
    if not plan.overloads:
        return {}
    return {
        "overloads": [
            {
                "signature": each.graph.config.signature_text,
                "entry": each.entry.symbol,
                "contiguous_entry": each.contiguous.symbol if each.contiguous else None,
            }
            for each in plan.overloads
        ]
    }


def _ufunc(plan: GraphPlan) -> dict[str, Any]:
    """A ufunc's identity and loops: each signature's entries; a gufunc's layout and loops
    (nothing for other graphs)."""
    if not plan.loops:
        return {}
    config = plan.graph.config
    if config.gufunc:
        gufunc_loops = [
            {"signature": text, "entry": loop.entry.symbol}
            for text, loop in zip(config.signature_texts, plan.loops, strict=True)
        ]
        return {"gufunc": {"layout": config.gufunc, "loops": gufunc_loops}}
    loops = []
    for index, text in enumerate(config.signature_texts):
        general, in_order, *broadcast = plan.loops_of(index)
        loops.append(
            {
                "signature": text,
                "entry": general.entry.symbol,
                "contiguous_entry": general.contiguous.symbol if general.contiguous else None,
                "in_order_entry": in_order.entry.symbol if in_order_loop(in_order) else None,
                "broadcast_entries": {
                    ",".join(map(str, loop.graph.config.scalars)): loop.entry.symbol for loop in broadcast
                },
            }
        )
    return {"ufunc": {"identity": config.identity, "loops": loops}}


def _cython_needs(plan: BuildPlan) -> dict[str, Any]:
    """The Cython exports each graph calls (resolved on its first call), and their modules."""
    from ..link.cython import all_exports, graph_exports

    graphs = {}
    for graph_plan in plan.graphs:
        exports = graph_exports(plan, graph_plan)
        if exports:
            graphs[graph_plan.graph.config.name] = [str(export) for export in exports]
    return {"graphs": graphs, "modules": sorted({export.module for export in all_exports(plan)})}


def _target(target: Target) -> dict[str, Any]:
    from ..compile.target import required_features

    return {
        "name": target.name,
        "cpu": target.cpu,
        "features": target.features,
        "requires": list(required_features(target)),
    }


def manifest_text(manifest: Mapping[str, Any]) -> str:
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"
