"""Generated modules' helpers: the vector math library is compiled once per process and FMA
setting, helpers get no C wrapper, and the objects are byte for byte what they were."""

from __future__ import annotations

import contextlib
import types

import pytest

from aotbuild.codegen import vecmath
from aotbuild.compile import compiler, helpers
from aotbuild.compile.compiler import CompileFlags, CompileRequest, compile_request
from aotbuild.compile.keys import toolchain_key
from aotbuild.compile.target import resolve_target, target_has_fma
from aotbuild.config.signature import parse_signature


def module_text(body: str) -> str:
    """A module as the code generator writes one: the library functions pasted in."""
    functions = vecmath.sources(["sin_float64"])
    functions[0] = f"{vecmath.HEADING}\n{functions[0]}"
    lines = ["import numpy as np", "from numba.extending import register_jitable"]
    return "\n".join(lines + vecmath.intrinsics_import(["sin_float64"]) + functions + [body]) + "\n"


TEXT = module_text(
    "def f(x):\n"
    "    out = np.empty_like(x)\n"
    "    for i in range(x.shape[0]):\n"
    "        out[i] = sin_float64(x[i]) * 2.0\n"
    "    return out\n"
)


def request(cpu: str, symbol: str) -> CompileRequest:
    return CompileRequest(
        symbol,
        TEXT,
        "f",
        parse_signature("float64[::1](float64[::1])"),
        CompileFlags(),
        resolve_target(cpu),
        toolchain_key(),
    )


def test_a_modules_copies_become_the_shared_ones() -> None:
    module = types.ModuleType("pasted")
    exec(TEXT, module.__dict__)
    helpers.share_vector_math(module, TEXT, "test_shared", fma=True)
    with_fma = helpers.vector_math_module("test_shared", True)
    without = helpers.vector_math_module("test_shared", False)
    assert with_fma is not without
    assert module.__dict__["sin_float64"] is with_fma.__dict__["sin_float64"]
    assert module.__dict__["_reduce_pi"] is with_fma.__dict__["_reduce_pi"]  # its callees too
    assert set(vecmath.library()) <= set(vars(without))


def test_source_that_differs_from_the_library_is_left_alone() -> None:
    edited = TEXT.replace("def sin_float64(d):", "def sin_float64(d):  # edited")
    assert edited != TEXT
    module = types.ModuleType("edited")
    exec(edited, module.__dict__)
    own = module.__dict__["sin_float64"]
    helpers.share_vector_math(module, edited, "test_shared", fma=False)
    assert module.__dict__["sin_float64"] is own


def test_shared_objects_are_the_pasted_ones_whatever_was_compiled_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Shared: an FMA target first, so the generic Op must not reuse what was compiled for it.
    assert target_has_fma(resolve_target("x86-64-v3")) and not target_has_fma(resolve_target("generic"))
    cpus = ("x86-64-v3", "generic")
    shared = {cpu: compile_request(request(cpu, f"aot_shared_{cpu}")).data for cpu in cpus}
    again = compile_request(request("generic", "aot_shared_generic")).data
    # As before: each module's own copies, each helper with numba's C wrapper.
    monkeypatch.setattr(compiler, "share_vector_math", lambda *args, **kwargs: None)
    monkeypatch.setattr(compiler, "without_c_wrappers", contextlib.nullcontext)
    pasted = {cpu: compile_request(request(cpu, f"aot_shared_{cpu}")).data for cpu in reversed(cpus)}
    assert shared == pasted
    assert again == pasted["generic"]
    assert pasted["generic"] != pasted["x86-64-v3"]


def test_numbas_defaults_come_back_even_after_an_error() -> None:
    from numba.core import extending

    before = dict(extending._overload_default_jit_options)
    with pytest.raises(ZeroDivisionError), helpers.without_c_wrappers():
        assert extending._overload_default_jit_options["no_cfunc_wrapper"] is True
        1 / 0  # noqa: B018
    assert extending._overload_default_jit_options == before
