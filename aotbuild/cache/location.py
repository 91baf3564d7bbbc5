"""Where the cache lives and how large it may grow.

One cache serves every project of a user: an Op two projects share is compiled once. The folder
is ``$AOTBUILD_CACHE_DIR`` if set, else the platform's user cache folder; its size cap is
``$AOTBUILD_CACHE_SIZE`` (``500M``, ``2G``, bytes), 1 GiB by default.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ..errors import ConfigError

DEFAULT_SIZE_CAP = 1 << 30

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"^\s*(?P<number>\d+(\.\d+)?)\s*(?P<unit>[KMGT]?)(I?B)?\s*$", re.I)


def user_cache_dir() -> Path:
    """The platform's per-user cache folder for aotbuild (what ``platformdirs`` would say)."""
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "aotbuild"
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return (Path(local) if local else home / "AppData" / "Local") / "aotbuild" / "Cache"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".cache") / "aotbuild"


def cache_dir() -> Path:
    configured = os.environ.get("AOTBUILD_CACHE_DIR")
    return Path(configured).expanduser().resolve() if configured else user_cache_dir()


def parse_size(text: str) -> int:
    """``"500M"`` -> 524288000; binary units, ``B``/``iB`` suffixes optional."""
    match = _SIZE.match(text)
    if match is None:
        raise ConfigError(f"{text!r} is not a size: write bytes or a number with K, M, G or T (e.g. 2G)")
    return int(float(match.group("number")) * _UNITS[match.group("unit").upper()])


def size_cap() -> int:
    configured = os.environ.get("AOTBUILD_CACHE_SIZE")
    if not configured:
        return DEFAULT_SIZE_CAP
    try:
        return parse_size(configured)
    except ConfigError as exc:
        raise ConfigError(f"AOTBUILD_CACHE_SIZE: {exc}") from None


def human_size(size: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")
