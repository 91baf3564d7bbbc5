"""Same inputs, same outputs: generated modules, manifest and objects are byte-identical across
builds in separate processes (different hash seeds, different folders, one with a cold cache)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import PROJECTS


def build_in_subprocess(source: Path, out: Path, cache: Path, seed: str) -> Path:
    env = {**os.environ, "PYTHONHASHSEED": seed, "AOTBUILD_CACHE_DIR": str(cache)}
    subprocess.run(
        [sys.executable, "-m", "aotbuild", "compile", str(source), "--out", str(out), "-q"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out


def snapshot(out: Path, package: str) -> dict[str, bytes]:
    files = {}
    for path in sorted((out / ".aotbuild" / package / "modules").glob("*.py")):
        files[f"modules/{path.name}"] = path.read_bytes()
    for name in ("manifest.json", "__init__.py", "__init__.pyi"):
        files[name] = (out / package / name).read_bytes()
    return files


def test_two_builds_are_byte_identical(tmp_path: Path, shared_cache: Path) -> None:
    sources = []
    for name in ("first", "second"):
        folder = tmp_path / name
        shutil.copytree(PROJECTS / "kernels", folder, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(PROJECTS / "dedupe" / "dedupe_graphs.py", folder)
        text = (folder / "graphs.toml").read_text()
        text += (
            '\n[graphs.again]\nfunction = "dedupe_graphs:again"\n'
            'signature = "Tuple(float64[:], float64[:])(float64[:], float64[:])"\n'
        )
        (folder / "graphs.toml").write_text(text)
        sources.append(folder / "graphs.toml")
    first = build_in_subprocess(sources[0], tmp_path / "out1", shared_cache, "1")
    # A cold cache: every object is compiled again, in another process, and must not differ.
    second = build_in_subprocess(sources[1], tmp_path / "out2", tmp_path / "cold-cache", "2")
    a, b = snapshot(first, "kernels_ext"), snapshot(second, "kernels_ext")
    assert a.keys() == b.keys()
    different = [name for name in a if a[name] != b[name]]
    assert not different, different
    assert b"/tmp" not in a["manifest.json"] and str(tmp_path).encode() not in a["manifest.json"]


def test_no_build_machine_paths_in_binaries(kernels_build) -> None:
    import numba

    forbidden = {
        str(Path(numba.__file__).resolve().parent).encode(),
        sys.prefix.encode(),
        str(kernels_build.project.root).encode(),
        str(kernels_build.package_dir.parent).encode(),
    }
    objects = kernels_build.package_dir.parent / ".aotbuild" / "kernels_ext" / "objects"
    for path in [kernels_build.native, *objects.glob("*.o")]:
        data = path.read_bytes()
        leaked = [p.decode() for p in forbidden if p in data]
        assert not leaked, (path.name, leaked)
    assert b".debug_info" not in kernels_build.native.read_bytes()  # compiled without -g
