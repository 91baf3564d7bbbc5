"""Stage 3: the graph IR — frozen, hash-consed nodes and the Ops they apply."""

from .graph import Graph
from .node import Node, topological_order
from .ops import (
    Argument,
    Constant,
    ConstValue,
    Dim,
    Elementwise,
    Kernel,
    Op,
    Reduce,
    Size,
)

__all__ = [
    "Argument",
    "ConstValue",
    "Constant",
    "Dim",
    "Elementwise",
    "Graph",
    "Kernel",
    "Node",
    "Op",
    "Reduce",
    "Size",
    "topological_order",
]
