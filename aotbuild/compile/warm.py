"""Imported by the server that local compile workers are forked from: numba imported, and its
first compile (typing tables, LLVM target set-up, about a second) done once, before any fork.

A failure here must not stop the server (workers would never start): the warm-up is only a
head start, and the workers report any real problem themselves.

The server exits when the build's process has (its pipe to the server closes), and then at
once, without the interpreter's teardown: garbage-collecting all of numba and LLVM took it
0.4 s, during which it still held the build's output streams, so that whatever reads them (a CI
runner, a script, a benchmark) waited that long after the build itself had exited.
"""

from __future__ import annotations

import atexit
import contextlib
import os

from ..exits import leave_now
from .workers import SERVER_VARIABLE

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

if os.environ.get(SERVER_VARIABLE) == "1":  # the server (and not a process importing this)
    atexit.register(leave_now, 0)
