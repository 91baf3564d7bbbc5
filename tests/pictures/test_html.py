"""The HTML page opens in a real browser (headless Chromium), offline, without console errors,
and shows the picture."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PIL import Image

from aotbuild.pictures import draw_graph

from .conftest import open_page


@pytest.fixture(scope="module")
def example(example_build):
    package = example_build.package_dir
    return package, json.loads((package / "manifest.json").read_text(encoding="utf-8"))


def colours(screenshot: Path) -> int:
    with Image.open(screenshot) as image:
        return len(image.convert("RGB").getcolors(maxcolors=1 << 20) or [])


def test_the_page_opens_offline_and_shows_the_graph(
    example, chromium: str, dot_program: str, tmp_path: Path
) -> None:
    package, manifest = example
    page = tmp_path / "radon_logp.html"
    page.write_text(draw_graph(package, manifest, "radon_logp", "html"), encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//|@import|url\(\s*["']?https?:""", text), (
        "offline"
    )
    dom, console, screenshot = open_page(chromium, page, tmp_path)
    assert console == [], "no console messages or uncaught errors"
    assert 'data-ready="yes"' in dom, "its script ran to the end"
    scale = float(re.search(r'data-scale="([0-9.]+)"', dom).group(1))
    assert 0.05 < scale < 1.5, "fitted to the window"
    assert colours(screenshot) > 50, "the screenshot shows the picture, not an empty page"


def test_the_browser_check_sees_errors(chromium: str, tmp_path: Path) -> None:
    """The check above can fail: a page whose script throws is caught."""
    page = tmp_path / "broken.html"
    page.write_text(
        "<html><body><p>x</p><script>undefinedFunction();</script></body></html>", encoding="utf-8"
    )
    _, console, screenshot = open_page(chromium, page, tmp_path)
    assert any("undefinedFunction is not defined" in line for line in console)
    assert colours(screenshot) < 50
