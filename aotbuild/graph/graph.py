"""A traced graph: the declared function's parameters and the nodes it returns."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..config import GraphConfig
from .node import Node, topological_order


@dataclass(frozen=True)
class Graph:
    """One ``[graphs.NAME]`` after tracing.

    ``outputs`` holds one node per returned value; ``returns_tuple`` says whether the function
    returns them as a tuple (even a 1-tuple) or a single value.
    """

    config: GraphConfig
    params: tuple[str, ...]
    outputs: tuple[Node, ...]
    returns_tuple: bool
    source: str = ""
    """Where the function is defined, relative to the project (``stats.py:12``), for help()."""

    writes: tuple[int, ...] = ()
    """Parameters whose arrays the graph writes into (a kernel's region, see
    :mod:`aotbuild.trace.regions`): the last ``len(writes)`` outputs are their new values, which
    land in the caller's arrays; the graph returns the outputs before them."""

    contiguous: Graph | None = None
    """The same function traced with its any-layout matrices C-contiguous, if it has such
    arguments (``Signature.contiguous`` says which and why): the package calls it when the
    arrays passed are C-contiguous."""

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def returned(self) -> tuple[Node, ...]:
        """The outputs the graph returns (all of them but those of ``writes``)."""
        return self.outputs[: len(self.outputs) - len(self.writes)]

    @property
    def key(self) -> str:
        """A content hash of what the graph computes: its signature, parameters, outputs
        (their nodes' keys) and writes; the same in every process."""
        parts = [str(self.config.signature), ",".join(self.params), str(self.returns_tuple), str(self.writes)]
        parts += [node.key for node in self.outputs]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()

    def nodes(self) -> list[Node]:
        """Every node the outputs depend on, inputs first, in a deterministic order."""
        return topological_order(self.outputs)
