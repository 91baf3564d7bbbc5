"""Calls between traced functions: a subgraph compiled once and called from many places."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..types import Result, Signature, TupleOf
from .ops import Op


@dataclass(frozen=True)
class Call(Op):
    """A call to a subgraph (``@aotbuild.subgraph``), compiled as its own Op.

    ``specialization`` identifies the argument signature it was traced for (types of the run-time
    arguments, values of the trace-time ones); ``graph`` is the traced subgraph, a
    :class:`~aotbuild.graph.Graph` that ``function`` and ``specialization`` alone decide.
    """

    function: str
    specialization: str
    result: Result
    graph: Any = field(compare=False, hash=False, repr=False)
    rewritten: tuple[str, ...] = ()
    """The passes ``graph`` went through: a call of the rewritten subgraph is another node."""

    @property
    def name(self) -> str:
        return self.function.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        passes = f", {'+'.join(self.rewritten)}" if self.rewritten else ""
        return f"Call({self.function}, {self.specialization}{passes})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return self.result


@dataclass(frozen=True)
class TupleItem(Op):
    """One value of a tuple result (of a subgraph call)."""

    index: int

    @property
    def name(self) -> str:
        return "item"

    @property
    def key(self) -> str:
        return f"TupleItem({self.index})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        (source,) = inputs
        assert isinstance(source, TupleOf)
        return source.items[self.index]


@dataclass(frozen=True)
class ExternalCall(Op):
    """A call of another aotbuild package's graph (``[package] uses``) by the symbol that
    package exports for it: the graph's code stays in that package's shared object."""

    package: str
    graph: str
    symbol: str
    """The exported name called (see :func:`aotbuild.types.exported_symbol`)."""

    signature: Signature
    """The signature of the entry ``symbol`` names."""

    @property
    def name(self) -> str:
        return self.graph

    @property
    def key(self) -> str:
        return f"ExternalCall({self.package}.{self.graph}, {self.symbol})"

    def result_type(self, inputs: tuple[Result, ...]) -> Result:
        return self.signature.result
