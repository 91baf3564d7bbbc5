"""The same Op on twenty inputs, and in two graphs, is one compiled Op and one symbol."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from .conftest import PROJECTS, load_package


@pytest.fixture(scope="module")
def built(build_project):
    return build_project(PROJECTS / "dedupe" / "graphs.toml")


def test_one_compiled_op_called_twenty_times(built) -> None:
    package = load_package(built)
    manifest = package.manifest()
    # sin(x) * 2.0, fused into one Op: the same Op for all twenty inputs and both graphs.
    sines = [
        symbol for symbol, op in manifest["ops"].items() if op["title"].startswith("fused sin·multiply(")
    ]
    assert len(sines) == 1
    (sine,) = sines
    assert sine in manifest["graphs"]["twenty"]["ops"] and sine in manifest["graphs"]["again"]["ops"]
    assert manifest["order"].count(sine) == 1
    entry = (
        built.package_dir.parent
        / ".aotbuild"
        / "dedupe_ext"
        / "modules"
        / f"{manifest['graphs']['twenty']['entry']}.py"
    )
    text = entry.read_text()
    assert text.count(f'declare("{sine}:') == 1
    assert text.count(" = fused_0(") == 20
    linked = subprocess.run(["nm", str(built.native)], capture_output=True, text=True, check=True).stdout
    definitions = [line for line in linked.splitlines() if line.split()[-1] == sine]
    assert len(definitions) == 1 and definitions[0].split()[1] in ("t", "T")
    inputs = [np.linspace(0, i, 7) for i in range(20)]
    for got, x in zip(package.twenty(*inputs), inputs, strict=True):
        np.testing.assert_allclose(got, np.sin(x) * 2.0)
