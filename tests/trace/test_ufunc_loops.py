"""A ufunc's loops traced from its scalar function (aotbuild/trace/ufunc_loops.py): one graph
per signature over 1-d arrays writing into the output, its variants, and the errors a scalar
function that cannot be a ufunc gets (naming the signature)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aotbuild.config import load_config
from aotbuild.errors import TraceError
from aotbuild.trace.driver import project_imports, trace_project
from aotbuild.trace.ufunc_loops import broadcast_sets, loop_signature
from aotbuild.types import Array, Scalar

FUNCTIONS = """
import math

def logistic(x, k):
    return 1.0 / (1.0 + math.exp(-k * x))

def branchy(x):
    if x > 0:
        return x
    return -x

def truncating(x):
    return x * 0.5

def pair(x):
    return x, x
"""


def trace(tmp_path: Path, function: str, signatures: list[str]):
    (tmp_path / "scalars.py").write_text(FUNCTIONS)
    listed = ", ".join(f'"{s}"' for s in signatures)
    (tmp_path / "graphs.toml").write_text(
        f'[package]\nname = "u_ext"\n\n[graphs.u]\nfunction = "scalars:{function}"\nufunc = true\nsignature = [{listed}]\n'
    )
    project = load_config(tmp_path / "graphs.toml")
    with project_imports(project.root):
        return trace_project(project)


def test_each_signature_gives_its_loop_then_its_broadcast_variants(tmp_path: Path) -> None:
    graphs = trace(tmp_path, "logistic", ["float32(float32, float32)", "float64(float64, float64)"])
    assert [(g.config.signature_index, g.config.in_order, g.config.scalars) for g in graphs] == [
        (0, False, ()),
        (0, True, ()),
        (0, False, (0,)),
        (0, False, (1,)),
        (0, False, (0, 1)),
        (1, False, ()),
        (1, True, ()),
        (1, False, (0,)),
        (1, False, (1,)),
        (1, False, (0, 1)),
    ]
    general = graphs[0]
    assert general.params == ("x", "k", "out") and general.writes == (2,)
    assert str(general.config.signature) == "none(float32[:], float32[:], float32[:])"
    assert general.contiguous is not None
    assert str(general.contiguous.config.signature) == "none(float32[::1], float32[::1], float32[::1])"
    assert str(graphs[1].config.signature) == "none(float32[:], float32[:], float32[:])"
    assert graphs[1].outputs[0].op.in_order
    assert str(graphs[3].config.signature) == "none(float32[::1], float32, float32[::1])"
    assert all(g.config.name == "u" and g.config.ufunc for g in graphs)


def test_loop_signatures_and_variant_sets() -> None:
    from aotbuild.config.signature import parse_signature

    signature = parse_signature("int64(int64, float64)")
    assert loop_signature(signature).args == (
        Array("int64", 1, "A"),
        Array("float64", 1, "A"),
        Array("int64", 1, "A"),
    )
    assert loop_signature(signature, "C", (1,)).args[1] == Scalar("float64")
    assert broadcast_sets(1) == [(0,)]
    assert len(broadcast_sets(3)) == 7 and broadcast_sets(4) == []


@pytest.mark.parametrize(
    ("function", "signature", "message"),
    [
        ("branchy", "float64(float64)", r"\[graphs.u\].*`if`.*write a choice on a value with np.where"),
        (
            "truncating",
            "int64(int64)",
            r"'int64\(int64\)': the function's value is float64, which the declared int64",
        ),
        ("pair", "float64(float64)", r"returns 2 values; a ufunc's returns one"),
    ],
)
def test_functions_that_cannot_be_ufuncs(tmp_path: Path, function: str, signature: str, message: str) -> None:
    with pytest.raises(TraceError, match=message):
        trace(tmp_path, function, [signature])
