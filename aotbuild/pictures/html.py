"""One self-contained HTML page around an SVG picture: pan, zoom and a box's details, with the
script and style inline and no font, script or image from the network (it opens offline)."""

from __future__ import annotations

import re

from ..codegen.templates import render


def html_page(svg: str, title: str) -> str:
    """The page showing ``svg`` (Graphviz's output or the profile's bars) under ``title``."""
    return render("pictures/page.html.j2", title=title, svg=inline_svg(svg))


def inline_svg(svg: str) -> str:
    """``svg`` without what only a standalone file has (the XML declaration, the DOCTYPE that
    names a DTD on the web, comments), ready to sit inside HTML."""
    svg = re.sub(r"<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>\s*", "", svg)
    return re.sub(r"<!--.*?-->\s*", "", svg, flags=re.DOTALL).strip()
