"""Cache keys of compiled Ops: everything that decides an object's bytes, and nothing else.

The key of an Op is a sha256 over its generated module text (a kernel's module holds every
helper's source), the modules compiled into it (a kernel's regions), its function, signature and
numba flags, whether it exports a C adapter, the resolved CPU and features, aotbuild's
code-generation version, and the toolchain: numba, llvmlite, NumPy and Python versions and
numba's optimisation level. A compile worker compares the toolchain a request was keyed with
against its own and refuses a job it would compile differently, so a mismatched worker can never
poison a shared cache.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .compiler import CompileRequest


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


@lru_cache(maxsize=1)
def toolchain_key() -> str:
    """This process's toolchain, as one string (a part of every key, checked by workers)."""
    from numba.core import config

    versions = toolchain_versions()
    parts = [f"{name}={versions[name]}" for name in ("numba", "llvmlite", "numpy", "python")]
    parts.append(f"numba_opt={int(config.OPT)}")  # type: ignore[attr-defined]
    return ";".join(parts)


def key_of(parts: dict[str, str]) -> str:
    """sha256 over named parts, each length-prefixed so no two part lists collide."""
    digest = hashlib.sha256()
    for name, value in parts.items():
        for text in (name, value):
            encoded = text.encode()
            digest.update(len(encoded).to_bytes(8, "little") + encoded)
    return digest.hexdigest()


def op_key(request: CompileRequest) -> str:
    from ..codegen.module import CODEGEN_VERSION

    parts = {
        "codegen": CODEGEN_VERSION,
        "text": request.text,
        "function": request.function,
        "signature": str(request.signature),
        "flags": repr(request.flags),
        "adapter": str(request.adapter),
        "cpu": request.target.cpu,
        "features": request.target.features,
        "toolchain": request.toolchain,
    }
    for module in request.compiled_in:  # named by content hash in the text; keyed all the same
        parts[f"compiled in {module.symbol}"] = f"{module.text}\0{module.function}\0{module.flags!r}"
    return key_of(parts)
