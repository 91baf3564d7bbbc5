"""mode = "auto" (the default): traced where tracing works, a kernel where it stops on run-time
control flow; the choice is reported, recorded and never made for explicit modes."""

from __future__ import annotations

import numpy as np
import pytest

from aotbuild.build import build
from aotbuild.errors import ConfigError, KernelError, TraceError
from aotbuild.inspect import describe_graphs
from aotbuild.progress import Progress

from .conftest import load_package, write_project

MODEL = """
import numpy as np


def ewma(x, alpha):
    out = np.empty_like(x)
    acc = x[0]
    for i in range(x.shape[0]):
        acc = alpha * x[i] + (1 - alpha) * acc
        out[i] = acc
    return out


def clip_inplace(x, high):
    for i in range(x.shape[0]):
        if x[i] > high:
            x[i] = high


def scaled(x):
    return 2.0 * x + 1.0


def branchy(x):
    if x.sum() > 0:
        return x * 2.0
    return x


def untraceable_and_unjittable(x):
    if x.sum() > 0:
        return np.pad(x, 1, mode="reflect")
    return x
"""

GRAPHS = """
[package]
name = "modes_ext"

[graphs.ewma]
function = "model:ewma"
signature = "float64[:](float64[:], float64)"

[graphs.clip_inplace]
function = "model:clip_inplace"
signature = "none(float64[:], float64)"

[graphs.scaled]
function = "model:scaled"
signature = "float64[:](float64[:])"

[graphs.branchy]
function = "model:branchy"
signature = "float64[:](float64[:])"
mode = "auto"
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    import io

    folder = tmp_path_factory.mktemp("modes")
    stream = io.StringIO()
    result = build(write_project(folder, GRAPHS, {"model.py": MODEL}), progress=Progress(stream=stream))
    return result, stream.getvalue()


def test_auto_traces_what_traces_and_compiles_the_rest_as_kernels(built) -> None:
    result, _ = built
    package = load_package(result)
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(package.ewma(x, 0.5), [1.0, -0.5, 1.25])
    np.testing.assert_array_equal(package.scaled(x), 2.0 * x + 1.0)
    np.testing.assert_array_equal(package.branchy(x), 2.0 * x)
    package.clip_inplace(x, 0.5)
    np.testing.assert_array_equal(x, [0.5, -2.0, 0.5])
    modes = {name: (graph["mode"], graph["auto"]) for name, graph in package.__graphs__.items()}
    assert modes["scaled"] == ("trace", "traced")
    assert modes["ewma"][0] == modes["branchy"][0] == modes["clip_inplace"][0] == "kernel"
    assert modes["ewma"][1].startswith("kernel: model.py:8 (`for i in range(x.shape[0]):`)")
    assert (
        modes["branchy"][1]
        == "kernel: model.py:25 (`if x.sum() > 0:`): `if`, `while`, `and`, `or` or `bool()` on a traced value"
    )
    assert modes["clip_inplace"][1] == "kernel: it returns none (it writes into its arguments)"
    manifest = package.manifest()
    assert manifest["graphs"]["branchy"]["auto"] == modes["branchy"][1]
    assert "chosen by mode = 'auto'" in package.branchy.__doc__


def test_the_build_reports_each_choice_and_inspect_shows_it(built) -> None:
    result, output = built
    assert 'aotbuild:          ewma: mode "auto" compiles it as a kernel: model.py:8' in output
    assert 'branchy: mode "auto" compiles it as a kernel: model.py:25 (`if x.sum() > 0:`)' in output
    assert "scaled: mode" not in output
    text = describe_graphs(result.package_dir, only="branchy")
    assert 'chosen by mode = "auto": kernel: model.py:25' in text


def build_one(tmp_path, function: str, extra: str = "") -> None:
    graphs = (
        f'[package]\nname = "one_ext"\n\n[graphs.f]\nfunction = "model:{function}"\n'
        f'signature = "float64[:](float64[:])"\n{extra}'
    )
    build(write_project(tmp_path, graphs, {"model.py": MODEL}), progress=Progress(quiet=True))


def test_an_explicit_trace_stays_an_error(tmp_path) -> None:
    with pytest.raises(
        TraceError, match=r"model.py:25 \(`if x.sum\(\) > 0:`\): `if`, `while`.*mode = \"kernel\""
    ):
        build_one(tmp_path, "branchy", 'mode = "trace"\n')


def test_fastmath_is_refused_when_auto_chooses_a_kernel(tmp_path) -> None:
    with pytest.raises(
        ConfigError, match=r"fastmath = true is for traced graphs, and this one is compiled as a kernel"
    ):
        build_one(tmp_path, "branchy", "fastmath = true\n")


def test_a_kernel_that_fails_too_gives_both_reasons(tmp_path) -> None:
    with pytest.raises(KernelError) as info:
        build_one(tmp_path, "untraceable_and_unjittable")
    message = str(info.value)
    assert "`if x.sum() > 0:`" in message
    assert 'so mode = "auto" compiled it as a kernel, which failed too' in message
    assert "numba cannot compile `model.untraceable_and_unjittable`" in message
