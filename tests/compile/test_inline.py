"""Ops compiled into a region's module (aotbuild.compile.inline): kept per FMA setting, so a
process that compiled a region for a target with FMA compiles the same region for another target
as if it had not (one object per key, whatever was compiled before). A kernel compiles its
regions in: its object does not call them."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from aotbuild.compile.compiler import CompiledIn, CompileFlags, CompileRequest, compile_request
from aotbuild.compile.keys import toolchain_key
from aotbuild.compile.target import resolve_target
from aotbuild.config.signature import parse_signature
from aotbuild.errors import CompileError

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


REGION = "aot_region_doubled_0123456789abcdef"


def kernel(
    how: str,
    region: str = REGION_TEXT,
    declared: str = "float64[::1](float64[::1])",
    body: str = "    for _ in range(n):\n        x = _aot_region_0(x)\n    return x\n",
    signature: str = "float64[::1](float64[::1], int64)",
) -> CompileRequest:
    """A kernel ``k(x, n)`` whose ``body`` calls the region of ``region`` (declared ``declared``),
    by ``how``: ``_aot_declare`` or ``_aot_compile_in``."""
    module = "declare import declare" if how == "_aot_declare" else "inline import compile_in"
    text = (
        "import numpy as np\n"
        f"from aotbuild.compile.{module} as {how}\n\n"
        f'_aot_region_0 = {how}("{REGION}: {declared}", parameters="x")\n\n\n'
        f"def k(x, n):\n{body}"
    )
    return CompileRequest(
        f"aot_k_{how.strip('_')}",
        text,
        "k",
        parse_signature(signature),
        CompileFlags(),
        resolve_target("generic"),
        toolchain_key(),
        compiled_in=(CompiledIn(REGION, region, "f", CompileFlags()),),
    )


def test_a_kernel_compiles_its_region_in_rather_than_calling_it() -> None:
    assert REGION in compile_request(kernel("_aot_declare")).needed
    compiled_in = compile_request(kernel("_aot_compile_in"))
    assert REGION not in compiled_in.needed
    assert not [symbol for symbol in compiled_in.needed if symbol.startswith("aot_")]


def test_a_region_the_request_does_not_carry_is_an_error() -> None:
    with pytest.raises(LookupError, match=f"{REGION}: compiled in, but the compile request"):
        compile_request(dataclasses.replace(kernel("_aot_compile_in"), compiled_in=()))


def test_numbas_complaint_about_a_region_points_at_the_regions_module() -> None:
    """Typed inside the kernel's typing, the region's error would be the kernel's line."""
    broken = REGION_TEXT.replace("out[i] = sin_0(x[i])", "out[i] = sin_0(x[i]) + 'a'")
    line = broken.splitlines().index("        out[i] = sin_0(x[i]) + 'a'") + 1
    with pytest.raises(CompileError) as raised:
        compile_request(kernel("_aot_compile_in", broken))
    assert (raised.value.file, raised.value.line) == (f"{REGION}.py", line)
    assert "add(float64, Literal[str](a))" in str(raised.value)


def test_a_regions_result_is_converted_to_its_declared_type() -> None:
    """numba infers the function's own result type; the kernel is typed by the declared one."""
    counted = "def f(x):\n    return x.shape[0]\n"  # int64, declared float64
    body = (
        "    total = 0.0\n    for _ in range(n):\n        total += _aot_region_0(x) / 2\n    return total\n"
    )
    request = kernel(
        "_aot_compile_in", counted, "float64(float64[::1])", body, "float64(float64[::1], int64)"
    )
    assert REGION not in compile_request(request).needed
    mismatched = CompiledIn(REGION, "def f(x):\n    return x\n", "f", CompileFlags())  # an array
    with pytest.raises(CompileError, match=r"returns array\(float64, 1d, C\), not its declared float64"):
        compile_request(dataclasses.replace(request, compiled_in=(mismatched,)))
