"""Stage 3b: rewrites of the traced graphs, before code generation.

Each rewrite is a pass with a name, run in the fixed order of :data:`PASSES` (``aotbuild
inspect --passes`` lists them). A pass takes a graph and returns an equivalent one; the graphs
are immutable, so a pass builds new nodes and shares every node it leaves alone.

Three rewrites need no pass. Common subexpressions: nodes are hash-consed, so ``a * b`` written
twice is one node. Constant folding: tracing runs the function with NumPy, and an expression of
constants never meets a tracer, so NumPy computes it (with NumPy's answer) before any node
exists. Dead code: a graph is the nodes its outputs reach; a value computed and not used is
never part of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..graph import Graph
from .arg_reduce import fuse_arg_reductions
from .fastmath import fastmath_graph
from .fuse import fuse_graph
from .kernels import rewritten_kernels
from .norms import squared_moduli
from .simplify import simplify_graph
from .updates import fuse_updates


@dataclass(frozen=True)
class Pass:
    name: str
    summary: str
    run: Callable[[Graph, dict[str, Graph]], Graph]
    optional: str | None = None
    """The ``build()`` option that turns it off (``fuse``: ``--no-fuse``), if any."""


PASSES: tuple[Pass, ...] = (
    Pass(
        "simplify",
        "exact algebraic identities: x*1, x+0 for integers, -(-x), x**2 -> x*x (never x**0.5)",
        simplify_graph,
    ),
    Pass(
        "fastmath",
        "fastmath = true graphs only: x**0.5 -> sqrt(x), x**3 -> x*x*x, x/c -> x*(1/c) (inexact)",
        fastmath_graph,
    ),
    Pass(
        "complex-abs-squared",
        "abs(z)**2 of complex z: re*re + im*im (within 1 ulp, where NumPy's hypot squared is 2.5)",
        squared_moduli,
    ),
    Pass(
        "fuse-elementwise",
        "trees of elementwise Ops become one loop without temporaries (off: --no-fuse)",
        fuse_graph,
        optional="fuse",
    ),
    Pass(
        "fuse-arg-reductions",
        "np.argmin/argmax of an elementwise value: scanned as computed, never stored (off: --no-fuse)",
        fuse_arg_reductions,
        optional="fuse",
    ),
    Pass(
        "fuse-updates",
        "z[k] = or z[mask] = elementwise value: computed into z itself, no temporary (off: --no-fuse)",
        fuse_updates,
        optional="fuse",
    ),
)


def rewrite(graphs: list[Graph], *, fuse: bool = True) -> list[Graph]:
    """``graphs`` after every pass that is on, in order."""
    enabled = {"fuse": fuse}
    for step in PASSES:
        if step.optional is not None and not enabled[step.optional]:
            continue
        done: dict[str, Graph] = {}  # subgraphs, rewritten once per pass
        graphs = [_run(step, graph, done) for graph in graphs]
    return graphs


def _run(step: Pass, graph: Graph, done: dict[str, Graph]) -> Graph:
    """One pass over a graph and over its contiguous variant, if it has one (and over the
    traced regions of the kernels in it)."""
    rewritten = rewritten_kernels(step.run(graph, done), step.run, done)
    if graph.contiguous is None:
        return rewritten
    return replace(rewritten, contiguous=step.run(graph.contiguous, done))
