"""Leaving a process that has imported numba, without the interpreter's teardown.

CPython's finalisation garbage-collects and frees numba, LLVM, NumPy and SciPy module by module:
0.5-0.65 s after a build (the ``aotbuild`` command), 0.4 s in the compile workers' server, which
holds the build's output streams until it is gone. Both leave through :func:`leave_now` once
their exit handlers have run.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import NoReturn


def leave_now(code: int) -> NoReturn:
    """Flush standard output and error (a closed pipe or stream: nothing to flush to) and end
    the process with ``code`` at once."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
