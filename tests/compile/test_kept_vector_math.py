"""The vector math's compiled functions kept in the cache: another process loads them instead of
compiling them, its object byte for byte the same; a folder that cannot be written only loses
the saving, and ``cache clear`` removes them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from aotbuild.cache.store import ObjectCache
from aotbuild.compile import kept_vector_math

from .generated import module_text

#: Compiles the Op in argv[1] (keeping the vector math in argv[2], if given) in a fresh process,
#: and prints its object's digest and how many vector math functions numba compiled for it.
COMPILE = """
import hashlib, sys
import numba.core.compiler as numba_compiler

compiled = []
original = numba_compiler.compile_extra

def counted(typing, target, function, *args, **kwargs):
    compiled.append(function.__name__)
    return original(typing, target, function, *args, **kwargs)

numba_compiler.compile_extra = counted
from aotbuild.compile.compiler import CompileFlags, CompileRequest, compile_request
from aotbuild.compile.keys import toolchain_key
from aotbuild.compile.target import resolve_target
from aotbuild.config.signature import parse_signature

request = CompileRequest(
    "aot_kept_vector_math", open(sys.argv[1]).read(), "f",
    parse_signature("float64[::1](float64[::1])"), CompileFlags(), resolve_target("generic"),
    toolchain_key(), vector_math_cache=sys.argv[2] if len(sys.argv) > 2 else None,
)
from aotbuild.codegen import vecmath

digest = hashlib.sha256(compile_request(request).data).hexdigest()
print(digest, len([name for name in compiled if name in vecmath.library()]))
"""

TEXT = module_text(
    "def f(x):\n"
    "    out = np.empty_like(x)\n"
    "    for i in range(x.shape[0]):\n"
    "        out[i] = exp_float64(x[i]) + 1.0\n"
    "    return out\n",
    ("exp_float64",),
)


def compiled_elsewhere(module: Path, *kept_in: Path) -> tuple[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", COMPILE, str(module), *map(str, kept_in)],
        check=True,
        capture_output=True,
        text=True,
    )
    digest, count = done.stdout.split()
    return digest, int(count)


def test_another_process_loads_the_kept_functions_and_makes_the_same_object(tmp_path: Path) -> None:
    module = tmp_path / "op.py"
    module.write_text(TEXT)
    kept = tmp_path / "cache" / "vector-math"
    alone = compiled_elsewhere(module)
    first = compiled_elsewhere(module, kept)
    second = compiled_elsewhere(module, kept)
    assert alone[1] > 2 and first == alone  # exp and its callees compiled, then kept
    assert any(kept.glob("*/vecmath_*.nbi"))
    assert second == (alone[0], 0)  # none compiled: loaded


def test_a_folder_that_cannot_be_written_keeps_nothing(tmp_path: Path) -> None:
    (tmp_path / "a file").write_text("")
    assert not kept_vector_math.keep("vecmath_test.py", tmp_path / "a file" / "inside")
    assert kept_vector_math.keep("vecmath_test.py", tmp_path / "folder")
    assert (
        kept_vector_math.KeptLocator.from_function(test_a_folder_that_cannot_be_written_keeps_nothing, "x.py")
        is None
    )


def test_cache_clear_removes_the_kept_functions_only(tmp_path: Path) -> None:
    cache = ObjectCache(tmp_path)
    folder = cache.vector_math / "0123456789abcdef01234567"
    folder.mkdir(parents=True)
    index = folder / "vecmath_fma_kept_0123.exp_float64-10.py311.nbi"
    index.write_bytes(b"index")
    other = folder / "notes.txt"
    other.write_text("not the cache's")
    assert cache.clear() == len(b"index")
    assert not index.exists() and other.exists()


def test_a_damaged_kept_function_is_compiled_again(tmp_path: Path) -> None:
    module = tmp_path / "op.py"
    module.write_text(TEXT)
    kept = tmp_path / "cache" / "vector-math"
    alone = compiled_elsewhere(module, kept)
    for data in kept.glob("*/vecmath_*exp_float64*.nbc"):
        data.write_bytes(data.read_bytes()[:100])  # truncated
    assert compiled_elsewhere(module, kept) == (alone[0], 1)  # exp again; its callees loaded
    assert compiled_elsewhere(module, kept) == (alone[0], 0)  # written over
