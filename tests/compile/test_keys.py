"""Every ingredient of an Op's cache key changes the key; nothing else does."""

from __future__ import annotations

import dataclasses

import pytest

from aotbuild.compile import keys
from aotbuild.compile.compiler import CompiledIn, CompileFlags, CompileRequest
from aotbuild.compile.target import Target
from aotbuild.config.signature import parse_signature

BASE = CompileRequest(
    "aot_f_0123456789abcdef",
    "def f(x):\n    return x + 1.0\n",
    "f",
    parse_signature("float64(float64)"),
    CompileFlags(),
    Target("generic", "generic", ""),
    "numba=0.68.1;llvmlite=0.50.0;numpy=2.4.0;python=3.11.7;numba_opt=3",
)

REGION = CompiledIn("aot_r_0123456789abcdef", "def r(x):\n    return x * 2.0\n", "r", CompileFlags())


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"text": "def f(x):\n    return x + 2.0\n"}, id="module-text"),
        pytest.param({"function": "g"}, id="function"),
        pytest.param({"signature": parse_signature("float32(float32)")}, id="signature"),
        pytest.param({"flags": CompileFlags(error_model="python")}, id="error-model"),
        pytest.param({"flags": CompileFlags(fastmath=True)}, id="fastmath"),
        pytest.param({"flags": CompileFlags(boundscheck=True)}, id="boundscheck"),
        pytest.param({"flags": CompileFlags(wide_vectors=True)}, id="wide-vectors"),
        pytest.param({"adapter": True}, id="c-adapter"),
        pytest.param({"compiled_in": (REGION,)}, id="compiled-in"),
        pytest.param({"target": Target("host", "skylake", "")}, id="cpu"),
        pytest.param({"target": Target("generic", "generic", "+avx2")}, id="cpu-features"),
        pytest.param(
            {"toolchain": "numba=0.69.0;llvmlite=0.50.0;numpy=2.4.0;python=3.11.7;numba_opt=3"},
            id="toolchain",
        ),
    ],
)
def test_each_ingredient_changes_the_key(change: dict) -> None:
    assert keys.op_key(dataclasses.replace(BASE, **change)) != keys.op_key(BASE)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"text": "def r(x):\n    return x * 3.0\n"}, id="text"),
        pytest.param({"function": "s"}, id="function"),
        pytest.param({"flags": CompileFlags(fastmath=True)}, id="flags"),
    ],
)
def test_what_a_request_compiles_in_changes_the_key(change: dict) -> None:
    """Its symbol, in the text, is a hash of it already; the key does not rely on that."""
    with_region = dataclasses.replace(BASE, compiled_in=(REGION,))
    changed = dataclasses.replace(BASE, compiled_in=(dataclasses.replace(REGION, **change),))
    assert keys.op_key(changed) != keys.op_key(with_region)


def test_the_configured_target_name_is_not_an_ingredient() -> None:
    """``host`` is resolved to a CPU and features before keys are made: the name alone is noise."""
    renamed = dataclasses.replace(BASE, target=Target("x86-64", "generic", ""))
    assert keys.op_key(renamed) == keys.op_key(BASE)


def test_codegen_version_changes_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    before = keys.op_key(BASE)
    monkeypatch.setattr("aotbuild.codegen.module.CODEGEN_VERSION", "999")
    assert keys.op_key(BASE) != before


@pytest.mark.parametrize("tool", ["numba", "llvmlite", "numpy", "python"])
def test_each_version_changes_the_toolchain(monkeypatch: pytest.MonkeyPatch, tool: str) -> None:
    real = keys.toolchain_versions()
    keys.toolchain_key.cache_clear()
    try:
        before = keys.toolchain_key()
        monkeypatch.setattr(keys, "toolchain_versions", lambda: {**real, tool: real[tool] + ".post1"})
        keys.toolchain_key.cache_clear()
        assert keys.toolchain_key() != before
    finally:
        keys.toolchain_key.cache_clear()


def test_optimisation_level_changes_the_toolchain(monkeypatch: pytest.MonkeyPatch) -> None:
    from numba.core import config

    keys.toolchain_key.cache_clear()
    try:
        before = keys.toolchain_key()
        monkeypatch.setattr(config, "OPT", 1)
        keys.toolchain_key.cache_clear()
        assert keys.toolchain_key() != before and "numba_opt=1" in keys.toolchain_key()
    finally:
        keys.toolchain_key.cache_clear()


def test_parts_are_delimited() -> None:
    assert keys.key_of({"a": "bc", "d": ""}) != keys.key_of({"a": "b", "d": "c"})
    assert keys.key_of({"a": "x"}) != keys.key_of({"b": "x"})
