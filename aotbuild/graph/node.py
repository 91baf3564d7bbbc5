"""Graph nodes: immutable and hash-consed.

Building the same ``(op, inputs)`` twice returns the same :class:`Node` object, so equality is
identity and identical subgraphs — within a graph or across all graphs of a package — exist once.
Each node carries ``key``, a sha256 over its Op's key and its inputs' keys: a content address
that is the same in every process (it never uses ``id()`` or ``hash()``), made for naming and
caching compiled code.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..types import Result
    from .ops import Op

_interned: weakref.WeakValueDictionary[tuple[Any, ...], Node] = weakref.WeakValueDictionary()


class Node:
    """An Op applied to input nodes. Create nodes with :meth:`Node.make`, never directly."""

    __slots__ = ("op", "inputs", "type", "key", "__weakref__")

    op: Op
    inputs: tuple[Node, ...]
    type: Result
    key: str

    def __init__(self, op: Op, inputs: tuple[Node, ...], type_: Result, key: str) -> None:
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "inputs", inputs)
        object.__setattr__(self, "type", type_)
        object.__setattr__(self, "key", key)

    @staticmethod
    def make(op: Op, inputs: tuple[Node, ...] = ()) -> Node:
        """The node for ``op`` applied to ``inputs``: an existing one if it was built before."""
        index = (op, inputs)
        node = _interned.get(index)
        if node is None:
            type_ = op.result_type(tuple(i.type for i in inputs))
            digest = hashlib.sha256(op.key.encode())
            for item in inputs:
                digest.update(b"|" + item.key.encode())
            node = Node(op, inputs, type_, digest.hexdigest())
            _interned[index] = node
        return node

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("graph nodes are immutable")

    def __repr__(self) -> str:
        return f"<Node {self.op.name} {self.type} {self.key[:10]}>"


def topological_order(outputs: tuple[Node, ...]) -> list[Node]:
    """All nodes reachable from ``outputs``, each after its inputs, in a deterministic order."""
    order: list[Node] = []
    seen: set[int] = set()
    stack: list[tuple[Node, bool]] = [(node, False) for node in reversed(outputs)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for item in reversed(node.inputs):
            if id(item) not in seen:
                stack.append((item, False))
    return order
