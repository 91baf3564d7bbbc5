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

from .generated import REGION_TEXT


def request(cpu: str) -> CompileRequest:
    return CompileRequest(
        f"aot_region_{cpu.replace('-', '_')}",
        REGION_TEXT,
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
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=root)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    return run.stdout


def test_a_region_compiles_the_same_whatever_target_came_before() -> None:
    first = compile_request(request("x86-64-v3")).data
    generic = compile_request(request("generic")).data
    again = compile_request(request("x86-64-v3")).data
    assert generic == alone("generic")
    assert first == again == alone("x86-64-v3")
    assert generic != first
