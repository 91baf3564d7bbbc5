"""Saved profiles read back: what is not a profile of this build is refused, with why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aotbuild.pictures.dataflow import PictureError
from aotbuild.pictures.timings import (
    PROFILE_FORMAT,
    Profile,
    Row,
    format_seconds,
    graph_total,
    heat,
    load_profile,
    per_scope,
)

MANIFEST = {"package": {"name": "demo_ext", "version": "1.0"}, "ops": {"aot_exp_1": {}, "aot_graph_g_2": {}}}


def saved(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def row(symbol: str = "aot_exp_1", **changes: object) -> dict:
    return {
        "scope": "graph g",
        "symbol": symbol,
        "title": "exp(float64) -> float64",
        "calls": 3,
        "seconds": 1e-6,
    } | changes


def test_a_profile_of_this_build_is_read(tmp_path: Path) -> None:
    profile = load_profile(
        saved(tmp_path, {"format": PROFILE_FORMAT, "package": "demo_ext", "rows": [row()]}), MANIFEST
    )
    assert profile.package == "demo_ext" and profile.rows[0].calls == 3


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", r"cannot read the profile .*profile.json"),
        ({"rows": []}, r"is not a profile saved by report.save\(\)"),
        (
            {"format": PROFILE_FORMAT, "package": "other_ext", "rows": []},
            "a profile of 'other_ext', not of 'demo_ext'",
        ),
        (
            {"format": PROFILE_FORMAT, "package": "demo_ext", "rows": [row("aot_exp_9")]},
            r"times Ops this build of demo_ext does not have \(aot_exp_9\): it was saved from another build",
        ),
        (
            {"format": PROFILE_FORMAT, "package": "demo_ext", "rows": [row(calls="many")]},
            "a row of the profile is malformed",
        ),
    ],
)
def test_what_is_not_a_profile_of_this_build_is_refused(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(PictureError, match=message):
        load_profile(saved(tmp_path, data), MANIFEST)


def test_a_missing_profile_says_how_to_save_one(tmp_path: Path) -> None:
    with pytest.raises(PictureError, match=r"no profile at .*: save one with report.save\(path\)"):
        load_profile(tmp_path / "none.json", MANIFEST)


def test_times_and_colours() -> None:
    assert [format_seconds(s) for s in (2.5, 0.0125, 3e-6, 4e-8)] == [
        "2.50 s",
        "12.50 ms",
        "3.00 µs",
        "40 ns",
    ]
    reds = [int(heat(share)[1:3], 16) for share in (0.0, 0.5, 1.0)]
    greens = [int(heat(share)[3:5], 16) for share in (0.0, 0.5, 1.0)]
    assert heat(0.0) == "#fff7cd" and heat(1.0) == "#ef4444" and greens == sorted(greens, reverse=True)
    assert reds[0] >= reds[-1] and heat(2.0) == heat(1.0)


def test_a_graphs_total_is_all_its_entries_together() -> None:
    """Each signature's entry, each ufunc loop's variant, times its calls as a whole: the
    graph's total adds them, and none of them is drawn as an Op."""
    ufunc = {
        "entry": "e1",
        "contiguous_entry": "e1c",
        "signature": "float64(float64)",
        "ufunc": {
            "loops": [
                {
                    "entry": "e1",
                    "contiguous_entry": "e1c",
                    "in_order_entry": None,
                    "broadcast_entries": {"0": "e1b"},
                },
                {"entry": "e2", "contiguous_entry": "e2c", "in_order_entry": "e2o", "broadcast_entries": {}},
            ]
        },
    }
    manifest = {"graphs": {"f": ufunc}}
    rows = [
        Row("graph f", "e1c", "", 3, 3e-6),
        Row("graph f", "e2", "", 2, 4e-6),
        Row("graph f", "aot_exp_1", "exp", 5, 1e-6),
    ]
    total = graph_total(Profile("demo_ext", tuple(rows)), manifest, "f")
    assert total is not None and (total.calls, total.seconds) == (5, 7e-6)
    ((scope, shown_total, ops),) = per_scope(Profile("demo_ext", tuple(rows)), manifest)
    assert scope == "graph f" and shown_total == total and [op.symbol for op in ops] == ["aot_exp_1"]
