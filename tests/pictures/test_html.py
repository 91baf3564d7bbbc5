"""The HTML page opens in a real browser (headless Chromium), offline, without console errors,
and shows the picture."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PIL import Image

from aotbuild.pictures import draw_graph, draw_profile
from aotbuild.pictures.timings import PROFILE_FORMAT

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


def test_a_profiles_bars_page_opens_too(chromium: str, tmp_path: Path) -> None:
    manifest = {
        "package": {"name": "demo_ext", "version": "1.0"},
        "graphs": {"g": {"entry": "aot_graph_g_1", "signature": "float64(float64[:])"}},
        "ops": {"aot_graph_g_1": {}, "aot_exp_2": {}, "aot_sum_3": {}},
    }
    rows = [
        {"scope": "graph g", "symbol": symbol, "title": title, "calls": 10, "seconds": seconds}
        for symbol, title, seconds in [
            ("aot_graph_g_1", "graph g: float64(float64[:])", 5e-6),
            ("aot_exp_2", "exp(float64[:]) -> float64[::1] <&>", 3e-6),
            ("aot_sum_3", "sum(float64[::1]) -> float64", 1e-6),
        ]
    ]
    saved = tmp_path / "profile.json"
    saved.write_text(json.dumps({"format": PROFILE_FORMAT, "package": "demo_ext", "rows": rows}))
    page = tmp_path / "bars.html"
    page.write_text(draw_profile(manifest, saved, "html"), encoding="utf-8")
    assert "exp(float64[:]) -&gt; float64[::1] &lt;&amp;&gt;" in page.read_text(), "titles escaped"
    dom, console, screenshot = open_page(chromium, page, tmp_path)
    assert console == [] and 'data-ready="yes"' in dom
    assert colours(screenshot) > 20
