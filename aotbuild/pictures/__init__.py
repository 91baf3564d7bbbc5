"""Pictures of what a build made: a graph's Ops and the values between them, and a saved
profile's time per Op (``aotbuild inspect PKG --graph NAME --format svg|dot|html``, ``--profile``).

Read from the package's files (:mod:`.dataflow`), drawn as DOT (:mod:`.dot`), laid out by
Graphviz (:mod:`.graphviz`) into SVG, wrapped in one offline HTML page (:mod:`.html`); a profile
alone is drawn as bars (:mod:`.bars`) without Graphviz.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .bars import profile_bars
from .dataflow import PictureError, graph_picture, has_contiguous_variant
from .dot import picture_dot
from .graphviz import dot_to_svg
from .html import html_page
from .timings import box_timings, load_profile

#: What ``--format`` takes.
FORMATS = ("svg", "dot", "html")

__all__ = ["FORMATS", "PictureError", "draw_graph", "draw_profile"]


def draw_graph(
    package: Path,
    manifest: dict[str, Any],
    name: str,
    form: str,
    profile: Path | None = None,
    contiguous: bool = False,
) -> str:
    """Graph ``name`` in ``form`` (svg, dot or html), coloured by the saved ``profile`` if given.
    ``contiguous``: draw the variant for C-contiguous arrays; else the general one, unless the
    profile timed more of the contiguous variant's Ops."""
    picture = graph_picture(package, manifest, name, contiguous=contiguous)
    timings = None
    if profile is not None:
        loaded = load_profile(profile, manifest)
        timings = box_timings(picture, loaded, manifest)
        if not contiguous and has_contiguous_variant(manifest, name):
            variant = graph_picture(package, manifest, name, contiguous=True)
            variant_timings = box_timings(variant, loaded, manifest)
            if len(variant_timings) > len(timings):
                picture, timings = variant, variant_timings
    dot_text = picture_dot(picture, timings)
    if form == "dot":
        return dot_text
    svg = dot_to_svg(dot_text)
    return svg if form == "svg" else html_page(svg, picture.title)


def draw_profile(manifest: dict[str, Any], profile: Path, form: str) -> str:
    """A saved profile's time per Op as bars, every graph's (svg or html)."""
    if form == "dot":
        raise PictureError(
            "a profile's chart is svg or html; `--graph NAME --format dot` colours a graph's DOT"
        )
    loaded = load_profile(profile, manifest)
    svg = profile_bars(loaded, manifest)
    return svg if form == "svg" else html_page(svg, f"{loaded.package}: time per Op")
