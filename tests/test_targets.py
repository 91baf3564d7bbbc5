"""CPU targets: a generic build holds no AVX instruction, an x86-64-v3 build does, and a package
refuses at import a CPU that lacks what it was compiled for — with NumPy alone, no crash."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from aotbuild.build import BuildResult, build
from aotbuild.inspect import describe_graphs
from aotbuild.progress import Progress

from .conftest import write_project

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 targets")

GRAPHS = """
[package]
name = "targets_ext"

[graphs.axpy]
function = "model:axpy"
signature = "float64[::1](float64, float64[::1], float64[::1])"
"""

MODEL = """
import numpy as np


def axpy(a, x, y):
    return a * x + np.sqrt(y)
"""

#: AVX and later: VEX/EVEX-encoded instructions name ymm/zmm registers or start with "v".
AVX = re.compile(r"%[yz]mm\d+|\t(v[a-z0-9]+)\s")


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, BuildResult]:
    project = write_project(tmp_path_factory.mktemp("targets"), GRAPHS, {"model.py": MODEL})
    return {
        target: build(
            project, out_dir=str(project.parent / target), target=target, progress=Progress(quiet=True)
        )
        for target in ("generic", "x86-64-v3")
    }


def avx_instructions(native: Path) -> list[str]:
    listing = subprocess.run(
        ["objdump", "-d", str(native)], capture_output=True, text=True, check=True
    ).stdout
    return [line.strip() for line in listing.splitlines() if AVX.search(line)]


def test_a_generic_build_has_no_avx_and_a_v3_build_has(builds: dict[str, BuildResult]) -> None:
    assert avx_instructions(builds["generic"].native) == []
    found = avx_instructions(builds["x86-64-v3"].native)
    assert any("%ymm" in line for line in found), "the v3 loop is vectorised with 256-bit registers"


def test_the_manifest_records_the_target_and_its_features(builds: dict[str, BuildResult]) -> None:
    generic = json.loads((builds["generic"].package_dir / "manifest.json").read_text())["target"]
    v3 = json.loads((builds["x86-64-v3"].package_dir / "manifest.json").read_text())["target"]
    assert generic == {"name": "generic", "cpu": "generic", "features": "", "requires": []}
    assert v3["cpu"] == "x86-64-v3" and {"AVX", "AVX2", "FMA3", "F16C"} <= set(v3["requires"])


IMPORT = """
import sys
import sysconfig
sys.path.insert(0, {folder!r})
from numpy._core._multiarray_umath import __cpu_features__
for name in {lacking!r}:
    __cpu_features__[name] = False  # as if this CPU had not got it
try:
    import targets_ext
except ImportError as exc:
    print("ImportError:", exc)
else:
    import numpy as np
    print("ok", targets_ext.axpy(2.0, np.ones(3), np.full(3, 4.0)).tolist())
"""


def imported(result: BuildResult, lacking: tuple[str, ...]) -> str:
    script = IMPORT.format(folder=str(result.package_dir.parent), lacking=lacking)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_cpu_without_the_targets_features_gets_an_import_error(builds: dict[str, BuildResult]) -> None:
    assert imported(builds["x86-64-v3"], ("AVX2", "FMA3")) == (
        "ImportError: targets_ext was built for the x86-64-v3 CPU target (x86-64-v3) and this CPU "
        'lacks AVX2, FMA3: rebuild it with target = "generic" (or a target this CPU has) to run here'
    )
    assert imported(builds["generic"], ("AVX", "AVX2", "FMA3", "SSE3")) == "ok [4.0, 4.0, 4.0]"


def test_this_cpu_runs_what_it_supports(builds: dict[str, BuildResult]) -> None:
    from numpy._core._multiarray_umath import __cpu_features__

    v3 = json.loads((builds["x86-64-v3"].package_dir / "manifest.json").read_text())["target"]["requires"]
    missing = [name for name in v3 if not __cpu_features__.get(name, True)]
    expected = "ok [4.0, 4.0, 4.0]" if not missing else "ImportError: targets_ext was built for the x86-64-v3"
    assert imported(builds["x86-64-v3"], ()).startswith(expected)


MULTI = GRAPHS.replace('name = "targets_ext"', 'name = "multi_ext"\ntarget = ["generic", "x86-64-v3"]')

PICK = """
import os, sys
sys.path.insert(0, {folder!r})
from numpy._core._multiarray_umath import __cpu_features__
for name in {lacking!r}:
    __cpu_features__[name] = False
try:
    import multi_ext
except ImportError as exc:
    print("ImportError:", exc)
else:
    import numpy as np
    print(multi_ext._native.__name__, multi_ext.axpy(2.0, np.ones(3), np.full(3, 4.0)).tolist())
"""


@pytest.fixture(scope="module")
def multi(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    project = write_project(tmp_path_factory.mktemp("multi"), MULTI, {"model.py": MODEL})
    return build(project, out_dir=str(project.parent / "out"), progress=Progress(quiet=True))


def picked(result: BuildResult, lacking: tuple[str, ...] = (), target: str | None = None) -> str:
    script = PICK.format(folder=str(result.package_dir.parent), lacking=lacking)
    env = {name: value for name, value in os.environ.items() if name != "AOTBUILD_TARGET"}
    if target is not None:
        env["AOTBUILD_TARGET"] = target
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_several_targets_give_one_shared_object_each(multi: BuildResult) -> None:
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    manifest = json.loads((multi.package_dir / "manifest.json").read_text())
    assert [(t["name"], t["native"]) for t in manifest["targets"]] == [
        ("generic", f"_native{suffix}"),
        ("x86-64-v3", f"_native_x86_64_v3{suffix}"),
    ]
    assert "targets generic, x86-64-v3" in describe_graphs(multi.package_dir).splitlines()[0]
    assert avx_instructions(multi.package_dir / f"_native{suffix}") == []
    assert any("%ymm" in line for line in avx_instructions(multi.package_dir / f"_native_x86_64_v3{suffix}"))


def test_the_loader_picks_the_best_target_the_cpu_runs(multi: BuildResult) -> None:
    from numpy._core._multiarray_umath import __cpu_features__

    has_v3 = all(__cpu_features__.get(name, True) for name in ("AVX", "AVX2", "FMA3", "F16C"))
    best = "multi_ext._native_x86_64_v3" if has_v3 else "multi_ext._native"
    assert picked(multi) == f"{best} [4.0, 4.0, 4.0]"
    assert picked(multi, lacking=("AVX2",)) == "multi_ext._native [4.0, 4.0, 4.0]"
    assert picked(multi, target="generic") == "multi_ext._native [4.0, 4.0, 4.0]"
    assert picked(multi, lacking=("FMA3",), target="x86-64-v3").startswith(
        "ImportError: multi_ext was built for the x86-64-v3 CPU target (x86-64-v3) and this CPU lacks FMA3"
    )
    assert picked(multi, target="x86-64-v4") == (
        "ImportError: multi_ext: AOTBUILD_TARGET='x86-64-v4' is not one of its targets (x86-64-v3, generic)"
    )


WIDE = (
    GRAPHS.replace('name = "targets_ext"', 'name = "wide_ext"\ntarget = "x86-64-v4"')
    + """
[graphs.scaled_exp]
function = "model:scaled_exp"
signature = "float64[::1](float64, float64[::1])"
"""
)


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    model = MODEL + "\n\ndef scaled_exp(a, x):\n    return a * np.exp(x)\n"
    project = write_project(tmp_path_factory.mktemp("wide"), WIDE, {"model.py": model})
    return build(project, out_dir=str(project.parent / "out"), progress=Progress(quiet=True))


def vector_registers(native: Path, symbol: str) -> set[str]:
    """The vector register widths (``x``, ``y``, ``z``: 128, 256, 512 bits) that ``symbol``'s code
    in ``native`` names."""
    listing = subprocess.run(
        ["objdump", "-d", f"--disassemble={symbol}", str(native)], capture_output=True, text=True, check=True
    ).stdout
    assert f"<{symbol}>:" in listing, f"{symbol} is not in {native.name}'s symbol table"
    return set(re.findall(r"%([xyz])mm\d+", listing))


def test_vector_math_runs_512_bits_wide_on_avx512_targets_other_loops_256(wide: BuildResult) -> None:
    """LLVM's tuning for AVX-512 keeps 256-bit vectors; the Ops with vector math, compute-bound,
    are compiled for 512 (as NumPy's loops are there), the rest as LLVM tunes them."""
    ops = json.loads((wide.package_dir / "manifest.json").read_text())["ops"]
    wide_ops = {symbol for symbol, op in ops.items() if op["flags"]["wide_vectors"]}
    (exp,) = [symbol for symbol, op in ops.items() if op["kind"] == "op" and "exp" in op["title"]]
    (sqrt,) = [symbol for symbol, op in ops.items() if op["kind"] == "op" and "sqrt" in op["title"]]
    assert wide_ops == {exp}
    assert "z" in vector_registers(wide.native, exp)
    assert "y" in vector_registers(wide.native, sqrt) and "z" not in vector_registers(wide.native, sqrt)
