"""DOT that Graphviz reads, SVG that parses and names every Op, and a clear error without
Graphviz."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ElementTree

import pytest

from aotbuild.pictures import PictureError, draw_graph
from aotbuild.pictures.dataflow import graph_picture
from aotbuild.pictures.dot import picture_dot
from aotbuild.pictures.graphviz import DOT_VARIABLE

from ..conftest import REPO

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def example(example_build):
    package = example_build.package_dir
    return package, json.loads((package / "manifest.json").read_text(encoding="utf-8"))


def test_the_dot_text_is_valid_for_graphviz_and_the_same_every_time(example, dot_program: str) -> None:
    package, manifest = example
    for name in manifest["graphs"]:
        text = draw_graph(package, manifest, name, "dot")
        assert text == picture_dot(graph_picture(package, manifest, name)), "deterministic"
        checked = subprocess.run([dot_program, "-Tcanon"], input=text, capture_output=True, text=True)
        assert checked.returncode == 0 and not checked.stderr, f"{name}: {checked.stderr}"


def test_the_svg_parses_and_names_every_op(example, dot_program: str) -> None:
    package, manifest = example
    for name in ("dense", "radon_logp_and_grad", "mlp_loss_and_grad", "det", "image_pipeline"):
        svg = draw_graph(package, manifest, name, "svg")
        root = ElementTree.fromstring(svg)
        assert root.tag == f"{SVG}svg"
        picture = graph_picture(package, manifest, name)
        nodes = {g.get("id"): g for g in root.iter(f"{SVG}g") if "node" in (g.get("class") or "")}
        assert set(nodes) == {box.id for box in picture.boxes}
        text = ElementTree.tostring(root, encoding="unicode")
        for symbol in picture.symbols:
            assert symbol in text, f"{name}: {symbol} is named in the SVG"
        for box in picture.boxes:
            shown = " ".join(t.text or "" for t in nodes[box.id].iter(f"{SVG}text"))
            assert box.heading in shown, f"{name}: {box.heading!r} is drawn"


def test_without_graphviz_the_error_says_how_to_get_it(
    example, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    package, manifest = example
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(DOT_VARIABLE, raising=False)
    with pytest.raises(
        PictureError, match=r"Graphviz's `dot`, which is not installed: install Graphviz .*apt-get"
    ):
        draw_graph(package, manifest, "dense", "svg")
    assert draw_graph(package, manifest, "dense", "dot").startswith('digraph "dense" {'), "DOT needs nothing"
    monkeypatch.setenv(DOT_VARIABLE, str(tmp_path / "no-such-dot"))
    with pytest.raises(PictureError, match=f"{DOT_VARIABLE}=.*no-such-dot is not a program"):
        draw_graph(package, manifest, "dense", "html")


def test_the_docs_picture_is_the_examples_radon_graph_as_built_now(example) -> None:
    """docs/package.md shows docs/pictures/radon_logp.svg: the same boxes as the example's graph
    (regenerate it with the command under its "Pictures" heading)."""
    package, manifest = example
    committed = ElementTree.parse(REPO / "docs" / "pictures" / "radon_logp.svg").getroot()
    drawn = sorted(
        (g.get("class"), " ".join(" ".join(t.text or "" for t in g.iter(f"{SVG}text")).split()))
        for g in committed.iter(f"{SVG}g")
        if "node" in (g.get("class") or "")
    )
    picture = graph_picture(package, manifest, "radon_logp")
    expected = sorted(
        (f"node {box.kind}", " ".join(" ".join((box.heading, *box.lines)).split())) for box in picture.boxes
    )
    assert drawn == expected
