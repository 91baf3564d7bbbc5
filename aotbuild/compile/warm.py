"""Imported by the server that local compile workers are forked from: numba imported, and its
first compile (typing tables, LLVM target set-up, about a second) done once, before any fork.

A failure here must not stop the server (workers would never start): the warm-up is only a
head start, and the workers report any real problem themselves.
"""

from __future__ import annotations

import contextlib

_WARM_UP = "def warm_up(x, n):\n    return x[:n].sum() * 2.0\n"


def _warm_up() -> None:
    from ..config.signature import parse_signature
    from .compiler import CompileFlags, CompileRequest, compile_request
    from .keys import toolchain_key
    from .target import resolve_target

    compile_request(
        CompileRequest(
            "aot_warm_up",
            _WARM_UP,
            "warm_up",
            parse_signature("float64(float64[:], int64)"),
            CompileFlags(),
            resolve_target("generic"),
            toolchain_key(),
        )
    )


with contextlib.suppress(Exception):  # see the module docstring
    _warm_up()
