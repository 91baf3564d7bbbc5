"""A graph's picture read back from a built package: every Op its entries reach, drawn as what
it is (Ops, subgraphs as clusters, kernels calling their traced regions, several signatures),
with the values between them as edges."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from aotbuild.pictures.dataflow import PictureError, graph_picture, op_heading
from aotbuild.pictures.picture import Cluster, Picture

from ..conftest import PROJECTS, reached


def manifest_of(result) -> dict:
    return json.loads((result.package_dir / "manifest.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def example(example_build):
    return example_build.package_dir, manifest_of(example_build)


@pytest.fixture(scope="module")
def regions(build_project):
    built = build_project(PROJECTS / "regions" / "graphs.toml")
    return built.package_dir, manifest_of(built)


@pytest.fixture(scope="module")
def numpy_surface(build_project):
    built = build_project(PROJECTS / "numpy_surface" / "graphs.toml")
    return built.package_dir, manifest_of(built)


def drawn_entries(graph: dict, contiguous: bool = False) -> list[str]:
    """Each signature's entry (a ufunc's or gufunc's loops, an overload's, or the one), or its
    C-contiguous variant where it has one."""
    records = graph.get("ufunc", graph.get("gufunc", {})).get("loops") or graph.get("overloads") or [graph]
    return [(record.get("contiguous_entry") if contiguous else None) or record["entry"] for record in records]


def all_clusters(clusters: tuple[Cluster, ...]) -> list[Cluster]:
    found = []
    for cluster in clusters:
        found += [cluster, *all_clusters(cluster.clusters)]
    return found


def heads(picture: Picture, kind: str | None = None) -> list[str]:
    return [box.heading for box in picture.boxes if kind is None or box.kind == kind]


@pytest.mark.parametrize("project", ["example", "regions", "numpy_surface"])
def test_every_graph_pictures_every_op_its_entries_reach(project: str, request) -> None:
    package, manifest = request.getfixturevalue(project)
    for name, graph in manifest["graphs"].items():
        picture = graph_picture(package, manifest, name)
        assert set(picture.symbols) == reached(manifest, *drawn_entries(graph)), name
        ids = [box.id for box in picture.boxes]
        assert len(ids) == len(set(ids)), f"{name}: box ids are unique"
        for edge in picture.edges:
            assert {edge.source, edge.target} <= set(ids), f"{name}: {edge} joins boxes"
        inside = {ident for cluster in all_clusters(picture.clusters) for ident in cluster.boxes}
        assert inside.isdisjoint(picture.top) and inside | set(picture.top) == set(ids), name
        assert heads(picture, "result"), f"{name}: what it returns or writes"
        if graph.get("contiguous_entry"):
            variant = graph_picture(package, manifest, name, contiguous=True)
            assert set(variant.symbols) == reached(manifest, *drawn_entries(graph, contiguous=True)), name
            assert "the variant for C-contiguous arrays" in variant.title
            assert "--contiguous draws it" in picture.title


def test_a_subgraph_is_a_cluster_of_its_own_ops_fed_by_the_callers_values(example) -> None:
    picture = graph_picture(*example, "dense")
    assert heads(picture, "parameter")[:3] == ["x", "w", "b"]
    (cluster,) = picture.clusters
    assert cluster.label.startswith("subgraph mlp:dense") and cluster.symbol.startswith("aot_sub_dense_")
    inside = {box.id: box for box in picture.boxes if box.id in cluster.boxes}
    assert sorted(box.heading for box in inside.values() if box.kind == "op") == ["fused add·tanh", "matmul"]
    assert {box.scope for box in inside.values()} == {"subgraph mlp:dense"}
    outer_x = next(box.id for box in picture.boxes if box.heading == "x" and box.id in picture.top)
    inner_x = next(box.id for box in inside.values() if box.heading == "x")
    assert any(edge.source == outer_x and edge.target == inner_x for edge in picture.edges)
    matmul = next(box for box in inside.values() if box.heading == "matmul")
    assert matmul.lines == ("in  float32[:, :], float32[:, :]", "out float32[:, ::1]")
    assert matmul.symbol in matmul.tooltip


def test_scalar_arithmetic_is_drawn_with_its_constants(example) -> None:
    picture = graph_picture(*example, "radon_logp")
    scalars = heads(picture, "scalar")
    assert "÷ 2" in scalars and "-0.5 ×" in scalars and "+" in scalars
    assert "index [87]" in heads(picture, "op") and "gather" in heads(picture, "op")
    assert not heads(picture, "constant"), "constants are shown in the arithmetic that uses them"


def test_a_kernel_calls_its_traced_regions(regions) -> None:
    picture = graph_picture(*regions, "convolved_rows")
    (kernel,) = [box for box in picture.boxes if box.kind == "kernel"]
    assert kernel.heading == "kernel region_kernels.convolved_rows"
    calls = sorted(edge.label for edge in picture.edges if edge.calls)
    assert calls == ["out[r] = row * 2.0", "total += np.sum(row * row)"]
    labels = [cluster.label for cluster in picture.clusters]
    assert labels == [
        "the array statements at region_kernels.py:101, traced",
        "the array statements at region_kernels.py:102, traced",
    ]
    compiled_in = [box for box in picture.boxes if "compiled into the region's module" in box.tooltip]
    assert [box.heading for box in compiled_in] == ["set [?, :] = fused multiply", "sum of fused multiply"]
    # the regions borrow the kernel's arrays (``row = borrowed(row)``): no box, the same values
    assert not any("borrowed" in box.heading for box in picture.boxes)


def test_several_signatures_are_a_cluster_each(numpy_surface) -> None:
    package, manifest = numpy_surface
    picture = graph_picture(package, manifest, "norm1")
    overloads = manifest["graphs"]["norm1"]["overloads"]
    assert [cluster.label for cluster in picture.clusters] == [
        f"signature {each['signature']}\nentry {each['entry']}" for each in overloads
    ]
    ufunc = graph_picture(package, manifest, "logistic")
    assert len(ufunc.clusters) == 2
    parameters = [box.lines[0] for box in ufunc.boxes if box.kind == "parameter" and box.id.startswith("s1_")]
    assert parameters == ["float64[:]", "float64[:]", "float64[:]"], "a ufunc's loop writes its output"


def test_what_cannot_be_pictured_says_why(example, tmp_path: Path) -> None:
    package, manifest = example
    with pytest.raises(PictureError, match="has no graph 'densee'; it has dense, det"):
        graph_picture(package, manifest, "densee")
    damaged = tmp_path / package.name
    shutil.copytree(package, damaged)
    entry = manifest["graphs"]["dense"]["entry"]
    (damaged / "_modules" / manifest["ops"][entry]["module"]).unlink()
    with pytest.raises(PictureError, match=r"is missing: pictures read the package's generated modules"):
        graph_picture(damaged, manifest, "dense")
    (damaged / "_modules" / manifest["ops"][entry]["module"]).write_text("def dense(x:\n")
    with pytest.raises(PictureError, match=r":1: not Python: the package is damaged; rebuild it"):
        graph_picture(damaged, manifest, "dense")
    with pytest.raises(PictureError, match="det has no C-contiguous variant"):
        graph_picture(package, manifest, "det", contiguous=True)


@pytest.mark.parametrize(
    ("title", "heading"),
    [
        ("fused add·tanh(float32[:, ::1], float32[:]) -> float32[:, ::1]", "fused add·tanh"),
        (
            "argmax(fused multiply·absolute(float64[:], float64[:])) -> int64",
            "argmax of fused multiply·absolute",
        ),
        ("concatenate: np.concatenate((float64[:], float64[::1],), axis=0) -> float64[::1]", "concatenate"),
        ("gather float64[::1] by int64[::1] -> float64[::1]", "gather"),
        ("float64[:][2:86] -> float64[:]", "index [2:86]"),
        (
            "float64[:, ::1][?, :] = fused multiply(float64[::1], np.float64(2.0)) -> float64[:, ::1], in place",
            "set [?, :] = fused multiply",
        ),
        ("divide(float64[::1], float64) -> float64[::1], in place", "divide"),
    ],
)
def test_op_headings_leave_the_types_to_the_lines_below(title: str, heading: str) -> None:
    assert op_heading(title) == heading
