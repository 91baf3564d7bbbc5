"""The object store: round trips, damaged entries, least-recently-used eviction, info, clear."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from aotbuild.cache.store import MAGIC, STALE_TEMPORARY_SECONDS, ObjectCache

KEY_A, KEY_B, KEY_C = "aa" + "0" * 62, "bb" + "1" * 62, "cc" + "2" * 62


def test_round_trip_and_miss(tmp_path: Path) -> None:
    cache = ObjectCache(tmp_path)
    assert cache.get(KEY_A) is None
    cache.put(KEY_A, b"\x7fELF object", {"kind": "op", "defined": ["x"]})
    entry = cache.get(KEY_A)
    assert entry is not None
    assert entry.data == b"\x7fELF object"
    assert entry.record["defined"] == ["x"] and entry.record["size"] == 11
    assert cache.path(KEY_A).parent.name == "aa"
    assert ObjectCache(tmp_path / "elsewhere").get(KEY_A) is None


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda raw: raw[:-3], id="truncated"),
        pytest.param(lambda raw: raw[:-1] + bytes([raw[-1] ^ 1]), id="flipped-bit"),
        pytest.param(lambda raw: raw[: len(MAGIC) + 5], id="torn-record"),
        pytest.param(lambda raw: b"garbage" + raw, id="not-an-entry"),
        pytest.param(lambda raw: b"", id="empty"),
    ],
)
def test_damaged_entry_is_reported_removed_and_missed(tmp_path: Path, damage) -> None:
    cache = ObjectCache(tmp_path)
    cache.put(KEY_A, b"object bytes " * 10, {"kind": "op"})
    path = cache.path(KEY_A)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.warns(UserWarning, match="damaged cache entry .* building it again"):
        assert cache.get(KEY_A) is None
    assert not path.exists()


def test_get_marks_use_for_eviction(tmp_path: Path) -> None:
    cache = ObjectCache(tmp_path)
    cache.put(KEY_A, b"a", {})
    os.utime(cache.path(KEY_A), (1000, 1000))
    assert cache.get(KEY_A) is not None
    assert cache.path(KEY_A).stat().st_mtime > time.time() - 60


def _aged(cache: ObjectCache, ages: dict[str, float], size: int = 1000) -> None:
    now = time.time()
    for key, age in ages.items():
        cache.put(key, b"x" * size, {})
        os.utime(cache.path(key), (now - age, now - age))


def test_eviction_removes_least_recently_used_first(tmp_path: Path) -> None:
    _aged(ObjectCache(tmp_path), {KEY_A: 300, KEY_B: 100, KEY_C: 200})
    cache = ObjectCache(tmp_path)  # a later build: it used none of them
    entry_size = cache.path(KEY_A).stat().st_size
    freed = cache.evict(cap=entry_size * 2)
    assert freed == entry_size
    assert not cache.path(KEY_A).exists()
    assert cache.path(KEY_B).exists() and cache.path(KEY_C).exists()
    cache.evict(cap=entry_size)
    assert not cache.path(KEY_C).exists() and cache.path(KEY_B).exists()


def test_eviction_keeps_what_this_build_used(tmp_path: Path) -> None:
    _aged(ObjectCache(tmp_path), {KEY_A: 300, KEY_B: 100})
    cache = ObjectCache(tmp_path)
    assert cache.get(KEY_A) is not None
    os.utime(cache.path(KEY_A), (1, 1))  # even if it looks old, this build needs it
    cache.evict(cap=0)
    assert cache.path(KEY_A).exists()
    assert not cache.path(KEY_B).exists()
    cache.evict(cap=0, keep=())
    assert cache.path(KEY_A).exists()


def test_eviction_removes_stale_temporaries_only(tmp_path: Path) -> None:
    cache = ObjectCache(tmp_path)
    cache.put(KEY_A, b"a", {})
    folder = cache.path(KEY_A).parent
    stale, fresh = folder / f".{KEY_A}.old", folder / f".{KEY_A}.live"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"half")
    old = time.time() - STALE_TEMPORARY_SECONDS - 10
    os.utime(stale, (old, old))
    cache.evict(cap=1 << 30)
    assert not stale.exists() and fresh.exists() and cache.path(KEY_A).exists()


def test_info_and_clear(tmp_path: Path) -> None:
    cache = ObjectCache(tmp_path)
    assert cache.info().entries == 0 and cache.info().oldest_use is None
    cache.put(KEY_A, b"a" * 100, {})
    cache.put(KEY_B, b"b" * 50, {})
    info = cache.info()
    assert info.entries == 2 and info.size > 150 and info.root == tmp_path
    assert cache.clear() == info.size
    assert cache.info().entries == 0


def test_clear_removes_the_compiled_templates_too(tmp_path: Path) -> None:
    cache = ObjectCache(tmp_path)
    cache.templates.mkdir(parents=True)
    compiled = cache.templates / ("0a" * 20)  # Jinja's key of a template: a sha1
    compiled.write_bytes(b"j2 bytecode")
    theirs = cache.templates / "notes.txt"
    theirs.write_text("mine")
    assert cache.clear() == len(b"j2 bytecode")
    assert not compiled.exists() and theirs.exists()


def test_a_cache_folder_shared_with_other_files_loses_none_of_them(tmp_path) -> None:
    """AOTBUILD_CACHE_DIR may name a folder that holds other things: clearing and evicting
    remove only files named as the cache names its entries."""
    cache = ObjectCache(tmp_path)
    key = "ab" + "0" * 62
    cache.put(key, b"object", {"kind": "op"})
    theirs = [
        tmp_path / "notes.txt",
        tmp_path / "objects" / "notes.txt",
        tmp_path / "objects" / "ab" / "notes.txt",
        tmp_path / "objects" / "photos" / "cat.jpg",
        tmp_path / "objects" / "cd" / ("ab" + "1" * 62),  # a key's name, in the wrong folder
    ]
    for path in theirs:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("theirs")
    elsewhere = tmp_path.parent / (tmp_path.name + "-linked")
    elsewhere.mkdir()
    (elsewhere / ("ef" + "2" * 62)).write_text("theirs")
    (tmp_path / "objects" / "ef").symlink_to(elsewhere)
    assert cache.info().entries == 1
    cache.evict(0)
    cache.clear()
    assert not cache.path(key).exists()
    assert all(path.read_text() == "theirs" for path in theirs)
    assert (elsewhere / ("ef" + "2" * 62)).read_text() == "theirs"
