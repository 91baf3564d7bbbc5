"""Ops compiled into a region's module (aotbuild.compile.inline): kept per FMA setting, so a
process that compiled a region for a target with FMA compiles the same region for another target
as if it had not (one object per key, whatever was compiled before)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from aotbuild.compile.compiler import CompileFlags, CompileRequest, compile_request
from aotbuild.compile.keys import toolchain_key
from aotbuild.compile.target import resolve_target
from aotbuild.config.signature import parse_signature

from .test_helpers import module_text

OP = module_text("def op(x):\n    return sin_float64(x) * 2.0\n")
TEXT = (
    "import numpy as np\n"
    "from aotbuild.compile.inline import inline_op\n\n"
    f"sin_0 = inline_op(r'''{OP}''')\n\n\n"
    "def f(x):\n"
    "    out = np.empty_like(x)\n"
    "    for i in range(x.shape[0]):\n"
    "        out[i] = sin_0(x[i])\n"
    "    return out\n"
)


def request(cpu: str) -> CompileRequest:
    return CompileRequest(
        f"aot_region_{cpu.replace('-', '_')}",
        TEXT,
        "f",
        parse_signature("float64[::1](float64[::1])"),
        CompileFlags(),
        resolve_target(cpu),
        toolchain_key(),
    )


def alone(cpu: str) -> bytes:
    """The object compiled by a fresh process, that compiled nothing before."""
    script = (
        "import sys\n"
        "from tests.compile.test_inline import request\n"
        "from aotbuild.compile.compiler import compile_request\n"
        f"sys.stdout.buffer.write(compile_request(request({cpu!r})).data)\n"
    )
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=root, check=True)
    return run.stdout


def test_a_region_compiles_the_same_whatever_target_came_before() -> None:
    here = {cpu: compile_request(request(cpu)).data for cpu in ("x86-64-v3", "generic", "x86-64-v3")}
    assert here["generic"] == alone("generic")
    assert here["x86-64-v3"] == alone("x86-64-v3")
    assert here["generic"] != here["x86-64-v3"]
