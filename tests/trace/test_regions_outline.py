"""How a kernel's statements are cut into regions (aotbuild/trace/regions/outline.py), read
from syntax and the types numba gives the kernel's variables."""

from __future__ import annotations

import ast
import textwrap

from aotbuild.trace.regions.outline import outline
from aotbuild.trace.regions.statements import StatementKinds
from aotbuild.types import Array, Scalar, TupleOf

SOURCE = textwrap.dedent(
    """
    def kernel(a, b, mask, n):
        out = np.empty_like(a)
        for i in range(n):
            out[i] = a[i]
            s = np.sum(a * b)
            b[1:] += s * a[1:]
            a[0] = 1.0
            ok = s > 0 and a[n] > np.sum(b)
            both = s > 0 and (mask == np.bitwise_and(mask, b)).all()
        return out
    """
).lstrip()

TYPES = {
    "a": Array("float64", 1),
    "b": Array("float64", 1),
    "out": Array("float64", 1, "C"),
    "mask": TupleOf((Scalar("int64"), Scalar("int64"))),
    "n": Scalar("int64"),
    "i": Scalar("int64"),
    "s": Scalar("float64"),
    "ok": Scalar("bool"),
    "both": Scalar("bool"),
}


def regions():
    function = ast.parse(SOURCE).body[0]
    return outline(function, SOURCE, StatementKinds(TYPES, []), frozenset())


def test_runs_end_after_their_writes_and_element_access_stays_numbas() -> None:
    source, found = regions()
    assert [r.statements for r in found] == [
        ("s = np.sum(a * b)", "b[1:] += s * a[1:]"),
        (
            "ok = s > 0 and a[n] > np.sum(b)",  # a[n] may be out of range: Python's `and` kept
            "both = _aot_and(s > 0, (mask == np.bitwise_and(mask, b)).all())",
        ),
    ]
    lines = source.splitlines()
    assert lines[3] == "        out[i] = a[i]"  # an element: numba's
    assert lines[4] == "        s, = _aot_region_0(a, b)  # traced: s = np.sum(a * b)"
    assert lines[5] == "        # traced: b[1:] += s * a[1:]"  # every line keeps its number
    assert lines[6] == "        a[0] = 1.0"


def test_a_write_is_into_its_array_and_tuples_pass_item_by_item() -> None:
    _, (first, second) = regions()
    assert first.writes == ("b",) and first.outputs == ("s",)
    assert second.parameters == ("s", "a", "n", "b", "mask__0", "mask__1")
    assert second.arguments == ("s", "a", "n", "b", "mask[0]", "mask[1]")
    assert second.prologue == ("mask = (mask__0, mask__1, )",)
