"""Tracing a graph's contiguous variant: only traced graphs with any-layout matrices get one."""

from __future__ import annotations

from pathlib import Path

from aotbuild.config import load_config
from aotbuild.trace.driver import project_imports, trace_project
from aotbuild.types import Array

from ..conftest import write_project

GRAPHS = """
[package]
name = "variants"

[graphs.any_layout]
function = "model:centre"
signature = "float64[:, :](float64[:, :], float64[:])"

[graphs.vector]
function = "model:centre"
signature = "float64[:](float64[:], float64[:])"

[graphs.contiguous]
function = "model:centre"
signature = "float64[:, :](float64[:, ::1], float64[:])"

[graphs.kernel]
function = "model:scaled"
signature = "float64[:, :](float64[:, :], float64[:])"
mode = "kernel"
"""

MODEL = """
def centre(m, scale):
    return (m - m.mean(axis=0)) * scale


def scaled(m, scale):
    return m * scale
"""


def test_only_traced_graphs_with_any_layout_matrices_have_a_contiguous_variant(tmp_path: Path) -> None:
    project = load_config(write_project(tmp_path, GRAPHS, {"model.py": MODEL}))
    with project_imports(project.root):
        graphs = {graph.name: graph for graph in trace_project(project)}
    variant = graphs["any_layout"].contiguous
    assert variant is not None and variant.contiguous is None
    assert variant.config.signature.args == (
        Array("float64", 2, "C"),
        graphs["any_layout"].config.signature.args[1],
    )
    assert variant.config.signature.result == graphs["any_layout"].config.signature.result
    # The variant is the C-contiguous declaration's graph, node for node.
    assert [node.key for node in variant.outputs] == [node.key for node in graphs["contiguous"].outputs]
    assert graphs["contiguous"].contiguous is None
    assert graphs["vector"].contiguous is None
    assert graphs["kernel"].contiguous is None
