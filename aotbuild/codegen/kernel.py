"""Render a kernel (or a helper it calls) into its module, helpers first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..graph import Graph
from ..trace.kernels import KernelUnit
from .module import CODEGEN_VERSION, OpModule, op_module
from .templates import render


def render_kernel(
    unit: KernelUnit, rendered: dict[str, OpModule], region_entry: Callable[[Graph], OpModule]
) -> list[OpModule]:
    """The modules for ``unit`` and every helper it reaches, callees before callers.

    ``rendered`` maps unit keys to modules already produced (shared helpers render once);
    ``region_entry`` gives the entry module of a traced region's graph (the planner renders
    it and the Ops it calls, which the caller adds to the build itself). A kernel compiles its
    regions in (:func:`aotbuild.compile.inline.compile_in`): each keeps a module of its own (what
    the pictures and profiles show), but no object (:attr:`BuildPlan.compiled`).
    """
    if unit.key in rendered:
        return []
    modules: list[OpModule] = []
    helpers = []
    calls: list[str] = []
    for name, variants in unit.helpers:
        declarations = []
        parameters = variants[0].parameters  # one function: the same for every variant
        for variant in variants:
            modules.extend(render_kernel(variant, rendered, region_entry))
            callee = rendered[variant.key]
            declarations.append(f"{callee.symbol}: {callee.signature}")
            calls.append(callee.symbol)
        helpers.append({"name": name, "variants": declarations, "parameters": repr(parameters)})
    regions = []
    compiled_in: list[str] = []
    wide_vectors = False
    for name, graphs in unit.regions:
        declarations = []
        for graph in graphs:
            entry = region_entry(graph)
            declarations.append(f"{entry.symbol}: {entry.signature}")
            calls.append(entry.symbol)
            compiled_in.append(entry.symbol)
            wide_vectors |= entry.flags.wide_vectors
        where = graphs[0].config.function.split(" (", 1)[-1].rstrip(")")
        title = f"the array statements at {where}, traced"
        regions.append(
            {
                "name": name,
                "variants": declarations,
                "parameters": repr(", ".join(graphs[0].params)),
                "title": title,
            }
        )
    title = f"kernel {unit.qualname}: {unit.signature}"
    text = render(
        "ops/kernel.py.j2",
        title=title,
        codegen_version=CODEGEN_VERSION,
        origin=unit.origin,
        imports=list(unit.imports),
        constants=list(unit.constants),
        helpers=helpers,
        regions=regions,
        source=unit.source.rstrip(),
        function=unit.name,
        itself={"signature": str(unit.signature), "parameters": repr(unit.parameters)}
        if unit.calls_itself
        else None,
    )
    module = op_module(
        name=unit.name,
        kind="kernel",
        title=title,
        text=text,
        function=unit.name,
        signature=unit.signature,
        # a region's vector math keeps its wide vectors in the kernel it is compiled into
        flags=replace(unit.flags, wide_vectors=True) if wide_vectors else unit.flags,
        calls=tuple(sorted(set(calls))),
        compiled_in=tuple(sorted(set(compiled_in))),
    )
    rendered[unit.key] = module
    modules.append(module)
    return modules
