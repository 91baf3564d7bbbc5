"""The C entry's shared header, precompiled when many units compile: the same objects as without
it, never a stale one, and cache keys that follow the header's text."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from aotbuild.cache.store import ObjectCache
from aotbuild.link import linker, precompiled
from aotbuild.link.toolchain import Toolchain

HEADER = "aot_entry.h"


def header(value: int) -> bytes:
    return f"#ifndef AOT_ENTRY_H\n#define AOT_ENTRY_H\n#include <stdint.h>\n#define AOT_VALUE {value}\n#endif\n".encode()


def unit(k: int) -> bytes:
    return (
        f'#include "{HEADER}"\n'
        f'__attribute__((visibility("default"))) int64_t aot_value_{k}(void) {{ return AOT_VALUE * 10 + {k}; }}\n'
    ).encode()


def sources(value: int, units: int = 6) -> dict[str, bytes]:
    return {HEADER: header(value), **{f"graph_{k}.c": unit(k) for k in range(units)}}


def values(toolchain: Toolchain, objects: list[Path], tmp_path: Path, name: str) -> list[int]:
    library = tmp_path / f"{name}.so"
    toolchain.link(objects, library)
    loaded = ctypes.CDLL(str(library))
    results = []
    for k in range(len(objects)):
        function = getattr(loaded, f"aot_value_{k}")
        function.restype = ctypes.c_int64
        results.append(function())
    return results


@pytest.fixture(scope="module")
def toolchain() -> Toolchain:
    made = Toolchain.create()
    if not made.is_gcc:
        pytest.skip("precompiled headers are GCC's")
    return made


def test_many_units_read_a_precompiled_header_and_give_the_same_objects(
    toolchain: Toolchain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    objects = linker._native_objects(toolchain, None, sources(1), work)
    assert (work / "native" / "include" / f"{HEADER}.gch").is_file()
    with_header = [path.read_bytes() for path in objects]
    monkeypatch.setattr(precompiled, "PRECOMPILED_FROM", 100)
    objects = linker._native_objects(toolchain, None, sources(1), work)
    assert not (work / "native" / "include" / f"{HEADER}.gch").exists()  # too few: none
    assert [path.read_bytes() for path in objects] == with_header
    assert values(toolchain, objects, tmp_path, "plain") == [10 + k for k in range(6)]


def test_a_header_precompiled_by_an_earlier_build_is_never_read(
    toolchain: Toolchain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GCC does not check that a .gch was made from the header beside it: one left by a build of
    another header text would compile the units against the old declarations."""
    work = tmp_path / "work"
    linker._native_objects(toolchain, None, sources(1), work)  # leaves a .gch of AOT_VALUE 1
    monkeypatch.setattr(precompiled, "PRECOMPILED_FROM", 100)  # and none made now
    objects = linker._native_objects(toolchain, None, sources(2), work)
    assert values(toolchain, objects, tmp_path, "changed") == [20 + k for k in range(6)]


def test_units_are_cached_with_the_header_they_read(toolchain: Toolchain, tmp_path: Path) -> None:
    cache = ObjectCache(tmp_path / "cache")
    linker._native_objects(toolchain, cache, sources(1), tmp_path / "a")
    objects = linker._native_objects(toolchain, cache, sources(3), tmp_path / "b")
    assert values(toolchain, objects, tmp_path, "cached") == [30 + k for k in range(6)]


def test_a_header_that_does_not_precompile_leaves_nothing_to_read(
    toolchain: Toolchain, tmp_path: Path
) -> None:
    broken = tmp_path / HEADER
    broken.write_text("#error not this one\n")
    assert not toolchain.precompile_header(broken)
    assert not broken.with_name(f"{HEADER}.gch").exists()
    broken.write_bytes(header(4))
    assert toolchain.precompile_header(broken)
    assert broken.with_name(f"{HEADER}.gch").stat().st_size > 0
