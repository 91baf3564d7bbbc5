"""Which parameters a kernel may write into (what ``cast = "same_kind"`` must not copy)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from aotbuild.trace.writes import written_parameters


def unit(source: str, helpers: tuple = ()) -> SimpleNamespace:
    """A stand-in for a KernelUnit: the source as written (``written_source``) is what is read."""
    return SimpleNamespace(written_source=source, origin_file="m.py", origin_line=10, helpers=helpers)


@pytest.mark.parametrize(
    ("body", "written"),
    [
        ("return x.sum() + y[0] + len(x) + np.sum(y)", set()),
        ("y[0] = x[0]", {"y"}),
        ("y[1:] += x[1:]", {"y"}),
        ("for row in y:\n        row[0] = 1.0", {"y"}),
        ("z = y.T\n    z.fill(0.0)", {"y"}),
        ("np.add(x, 1.0, out=y)", {"y"}),
        ("np.copyto(y, x)", {"y"}),
        ("x.sort()", {"x"}),
        ("return unknown(x)", {"x"}),
        ("total = x[0]\n    total += 1.0\n    return total", set()),
    ],
)
def test_writes_are_found(body: str, written: set[str]) -> None:
    found = written_parameters(unit(f"def f(x, y):\n    {body}\n"))
    assert {("x", "y")[position] for position in found} == written


def test_writes_through_a_helper_are_found_by_position() -> None:
    helper = unit("def g(a, b):\n    b[0] = a[0]\n")
    found = written_parameters(unit("def f(x, y):\n    g(y, x)\n", helpers=(("g", (helper,)),)))
    assert list(found) == [0] and "helper `g` writes into its argument 2" in found[0]


def test_the_reason_names_the_line() -> None:
    found = written_parameters(unit("def f(x, y):\n    a = 1\n    y[a] = 2.0\n"))
    assert found == {1: "m.py:12: `y[a]` is assigned"}
