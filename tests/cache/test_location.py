"""Where the cache is and how large it may grow."""

from __future__ import annotations

from pathlib import Path

import pytest

from aotbuild.cache.location import DEFAULT_SIZE_CAP, cache_dir, parse_size, size_cap, user_cache_dir
from aotbuild.errors import ConfigError


def test_environment_overrides_user_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AOTBUILD_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("AOTBUILD_CACHE_DIR")
    assert cache_dir() == user_cache_dir()


def test_user_cache_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert user_cache_dir() == tmp_path / "aotbuild"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert user_cache_dir() == Path.home() / ".cache" / "aotbuild"


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0", 0),
        ("1234", 1234),
        ("500M", 500 << 20),
        ("2G", 2 << 30),
        ("1.5gib", 3 << 29),
        ("64 KB", 64 << 10),
    ],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_size_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AOTBUILD_CACHE_SIZE", raising=False)
    assert size_cap() == DEFAULT_SIZE_CAP
    monkeypatch.setenv("AOTBUILD_CACHE_SIZE", "3M")
    assert size_cap() == 3 << 20
    monkeypatch.setenv("AOTBUILD_CACHE_SIZE", "lots")
    with pytest.raises(ConfigError, match="AOTBUILD_CACHE_SIZE: 'lots' is not a size"):
        size_cap()
