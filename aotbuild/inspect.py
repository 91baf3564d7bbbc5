"""``aotbuild inspect PKG``: what a built package holds, read from its files without importing it.

Each graph Op by Op (every compiled Op with its argument and result types, in the order the graph
calls them), and the generated module of any Op — the package carries them in ``_modules/``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from .errors import AotBuildError
from .package.ownership import MODULES_FOLDER


class InspectError(AotBuildError):
    """The package cannot be found or read."""


def find_package(name_or_path: str) -> Path:
    """A package folder from its path, or from its importable name (without importing it)."""
    path = Path(name_or_path)
    if (path / "manifest.json").is_file():
        return path
    if path.is_dir():
        raise InspectError(f"{path} holds no manifest.json: not a package aotbuild built")
    try:
        spec = importlib.util.find_spec(name_or_path)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        if (Path(location) / "manifest.json").is_file():
            return Path(location)
    raise InspectError(
        f"no package {name_or_path!r}: give the path of a built package folder, or the name of one "
        "this Python can import"
    )


def read_manifest(package: Path) -> dict[str, Any]:
    try:
        return json.loads((package / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InspectError(f"cannot read {package / 'manifest.json'}: {exc}") from None


def describe_graphs(package: Path, only: str | None = None) -> str:
    """Every graph (or the one named ``only``): signature, origin, and its Ops in call order."""
    manifest = read_manifest(package)
    graphs, ops = manifest["graphs"], manifest["ops"]
    if only is not None and only not in graphs:
        raise InspectError(f"{package.name} has no graph {only!r}; it has {', '.join(graphs)}")
    targets = [target["name"] for target in manifest.get("targets", [manifest["target"]])]
    inside = sum(1 for op in ops.values() if op.get("compiled_into"))
    compiled = f"{len(ops) - inside} compiled Op(s)" + (
        f" and {inside} region(s) compiled into kernels" if inside else ""
    )
    lines = [
        f"{manifest['package']['name']} {manifest['package']['version']}: {len(graphs)} graph(s), "
        f"{compiled}, target{'s' if len(targets) > 1 else ''} {', '.join(targets)}"
    ]
    for name, graph in graphs.items():
        if only is not None and name != only:
            continue
        origin = graph["function"] + (f" ({graph['source']})" if graph.get("source") else "")
        lines += [
            "",
            f"{name}({', '.join(graph['parameters'])}): {' | '.join(declared_signatures(graph))}",
            *_numpy_kind(graph),
            f"  {graph['mode']} of {origin}; entry {graph['entry']}",
            *([f'  chosen by mode = "auto": {graph["auto"]}'] if graph.get("auto") else []),
            *(
                [f"  array statements traced at {', '.join(graph['traced_regions'])}"]
                if graph.get("traced_regions")
                else []
            ),
            *(f"  left to numba: {note}" for note in graph.get("left_to_numba", [])),
        ]
        for symbol in graph["ops"]:
            lines.append(f"  {symbol:<40} {ops[symbol]['title']}")
    return "\n".join(lines)


def declared_signatures(graph: dict) -> list[str]:
    """Every declared signature (manifests before several signatures per name list one)."""
    return graph.get("signatures") or [graph["signature"]]


def _numpy_kind(graph: dict) -> list[str]:
    """What kind of NumPy object a graph is, and its entries per signature, where it is not a
    plain function of one signature."""
    if "ufunc" in graph:
        identity = graph["ufunc"]["identity"]
        loops = ", ".join(loop["signature"] for loop in graph["ufunc"]["loops"])
        shown = f", identity {identity!r}" if identity is not None else ""
        return [f"  numpy.ufunc, loops {loops}{shown}"]
    if "gufunc" in graph:
        return [f"  numpy.ufunc {graph['gufunc']['layout']} (generalized), one kernel per signature"]
    if "overloads" in graph:
        return [f"  signature {o['signature']}: entry {o['entry']}" for o in graph["overloads"]]
    return []


def op_module(package: Path, symbol: str) -> str:
    """The generated module of the Op ``symbol``, as it was compiled."""
    ops = read_manifest(package)["ops"]
    if symbol not in ops:
        near = sorted(s for s in ops if s.startswith(symbol) or symbol in s)[:5]
        hint = f"; did you mean {', '.join(near)}?" if near else "; `aotbuild inspect PKG` lists them"
        raise InspectError(f"{package.name} has no Op {symbol!r}{hint}")
    path = package / MODULES_FOLDER / ops[symbol]["module"]
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        raise InspectError(f"{path} is missing: the package was built without its modules") from None


def describe_passes() -> str:
    """The graph rewrites, in the order a build runs them."""
    from .rewrite import PASSES

    return "\n".join(f"{i}. {step.name}: {step.summary}" for i, step in enumerate(PASSES, 1))
