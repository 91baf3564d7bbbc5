"""The example project as a user runs it: build it, then run its run.py (numba blocked)."""

from __future__ import annotations

import os
import subprocess
import sys

from .conftest import REPO


def test_run_py_checks_every_graph_against_numpy(example_build) -> None:
    folder = example_build.project.root
    # mlp.py imports aotbuild (for @aotbuild.subgraph), installed or, here, from the checkout.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    result = subprocess.run(
        [sys.executable, str(folder / "run.py")], capture_output=True, text=True, check=False, env=env
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all graphs match NumPy" in result.stdout
    assert example_build.package_dir == folder / "build" / "example_ext"


def test_example_manifest(example_build) -> None:
    import json

    manifest = json.loads((example_build.package_dir / "manifest.json").read_text())
    assert set(manifest["graphs"]) >= {
        "normal_logp",
        "normalize_channels",
        "det",
        "slogdet",
        "radon_logp",
        "radon_logp_and_grad",
        "mlp",
        "dense",
        "image_pipeline",
    }
    assert len([name for name in manifest["graphs"] if name.startswith("radon_") and "grad" not in name]) == 9
    assert manifest["target"] == {"name": "generic", "cpu": "generic", "features": "", "requires": []}
    assert set(manifest["toolchain"]) >= {"numba", "llvmlite", "numpy", "python"}
    lu = [s for s, op in manifest["ops"].items() if "lu_factor_inplace" in op["title"]]
    assert len(lu) == 1  # the helper shared by det and slogdet
    for graph in manifest["graphs"].values():
        position = {symbol: i for i, symbol in enumerate(manifest["order"])}
        for symbol in graph["ops"]:
            for callee in manifest["ops"][symbol]["calls"]:
                assert position[callee] < position[symbol]  # callees first: dependency order
