"""A content-addressed store of compiled objects.

An object's key covers everything that decides its bytes: the Op's symbol (a hash of its module
text, function, signature and flags), the CPU and its features, and the toolchain's versions.
Entries are written to a temporary file and renamed into place, and each carries the sha256 of
its object, so a torn or corrupted entry is detected and rebuilt rather than linked.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import dataclass
from pathlib import Path

from ..files import atomic_write
from .compiler import CompiledObject, CompileRequest


def toolchain_versions() -> dict[str, str]:
    """The versions that decide compiled bytes (and the platform, for the manifest's reader)."""
    import platform
    import sys

    import llvmlite
    import numba
    import numpy

    return {
        "numba": numba.__version__,
        "llvmlite": llvmlite.__version__,
        "numpy": numpy.__version__,
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine()}",
    }


def toolchain_key() -> str:
    versions = toolchain_versions()
    return ";".join(f"{name}={versions[name]}" for name in ("numba", "llvmlite", "numpy", "python"))


def request_key(request: CompileRequest) -> str:
    digest = hashlib.sha256()
    parts = (
        request.symbol,
        request.target.cpu,
        request.target.features,
        toolchain_key(),
        str(request.adapter),
    )
    for part in parts:
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class ObjectCache:
    root: Path

    def _paths(self, key: str) -> tuple[Path, Path]:
        folder = self.root / "objects" / key[:2]
        return folder / f"{key}.o", folder / f"{key}.json"

    def get(self, request: CompileRequest) -> CompiledObject | None:
        key = request_key(request)
        object_path, meta_path = self._paths(key)
        try:
            meta = json.loads(meta_path.read_text())
            data = object_path.read_bytes()
        except (OSError, ValueError):
            return None
        if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            warnings.warn(
                f"aotbuild: corrupted cache entry {object_path} ignored; rebuilding it", stacklevel=2
            )
            return None
        return CompiledObject(request.symbol, data, tuple(meta["defined"]), tuple(meta["needed"]))

    def put(self, request: CompileRequest, compiled: CompiledObject) -> None:
        key = request_key(request)
        object_path, meta_path = self._paths(key)
        meta = {
            "symbol": compiled.symbol,
            "sha256": hashlib.sha256(compiled.data).hexdigest(),
            "defined": list(compiled.defined),
            "needed": list(compiled.needed),
        }
        # The object first, its record last: a record always describes a complete object.
        atomic_write(object_path, compiled.data)
        atomic_write(meta_path, json.dumps(meta, indent=1).encode())
