"""A content-addressed store of compiled artifacts: Op objects, C objects, linked shared objects.

Each entry is one file, ``objects/<2 hex>/<key>``: a header line, a JSON record (what the bytes
are, their size and sha256, the symbols they define and need) on the next line, then the bytes.
One file per entry means one rename publishes it whole: two builds sharing the cache never see
a torn entry, and a file damaged later (a full disk, a crash, a bad copy) fails its hash check,
is reported and removed, and the artifact is built again — a damaged object is never linked.

Using an entry touches its mtime, which is what least-recently-used eviction orders by. A build
reads every entry it needs into memory when it looks it up, so eviction by a concurrent build
can never take away an object a build is about to link.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG
from typing import Any

from ..errors import AotBuildWarning
from ..files import atomic_write
from .remote import RemoteStore

MAGIC = b"aotbuild-cache 1\n"

#: Entry files, ``<key>``, and the temporary files they are written through, ``.<key>.<random>``;
#: keys are sha256 hex digests, filed under their first two digits.
_ENTRY = re.compile(r"(?P<temporary>\.)?(?P<key>[0-9a-f]{64})(?(temporary)\.\w+)")
_SHARD = re.compile(r"[0-9a-f]{2}")
#: A compiled template: Jinja's sha1 key (or a temporary file of one, being written).
_TEMPLATE = re.compile(r"(\.)?[0-9a-f]{40}(?(1)\.\w+)")

#: Temporary files older than this are debris of a killed build (a live write takes seconds).
STALE_TEMPORARY_SECONDS = 3600.0


@dataclass(frozen=True)
class Entry:
    data: bytes
    record: Mapping[str, Any]
    remote: bool = False
    """Read from the shared store (:mod:`aotbuild.cache.remote`), not the local cache."""


@dataclass(frozen=True)
class StoredFile:
    path: Path
    size: int
    used: float
    """When it was last written or used (its mtime)."""


@dataclass(frozen=True)
class CacheInfo:
    root: Path
    entries: int
    size: int
    oldest_use: float | None
    newest_use: float | None


class ObjectCache:
    def __init__(self, root: Path, remote: RemoteStore | None = None) -> None:
        self.root = root
        self.remote = remote
        """The store a fleet shares, behind this cache: read on a local miss, written with it."""
        self.used: set[str] = set()
        """Keys this build looked up or stored: its own eviction keeps them."""

    @property
    def objects(self) -> Path:
        return self.root / "objects"

    def path(self, key: str) -> Path:
        return self.objects / key[:2] / key

    @property
    def templates(self) -> Path:
        """Code generation's templates as Jinja compiled them, for this Python
        (:class:`aotbuild.codegen.templates.CompiledTemplates`): derived data, checked on load."""
        return self.root / "templates" / sys.implementation.cache_tag

    def get(self, key: str) -> Entry | None:
        """The entry under ``key``, verified; None if absent or damaged (then it is removed)."""
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except OSError:
            return self._from_remote(key)
        self.used.add(key)
        entry = _decode(raw)
        if entry is None:
            message = f"damaged cache entry {path} removed; building it again"
            warnings.warn(message, AotBuildWarning, stacklevel=2)
            path.unlink(missing_ok=True)
            return None
        with contextlib.suppress(OSError):  # evicted or cleared meanwhile: the bytes are in memory
            os.utime(path)
        return entry

    def _from_remote(self, key: str) -> Entry | None:
        """The entry from the shared store, verified, and kept in the local cache."""
        if self.remote is None:
            return None
        raw = self.remote.get(key, lambda raw: _decode(raw) is not None)
        if raw is None:
            return None
        entry = _decode(raw)
        assert entry is not None
        atomic_write(self.path(key), raw)
        self.used.add(key)
        return Entry(entry.data, entry.record, remote=True)

    def put(self, key: str, data: bytes, record: Mapping[str, Any]) -> None:
        header = {**record, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
        raw = MAGIC + text + b"\n" + data
        atomic_write(self.path(key), raw)
        self.used.add(key)
        if self.remote is not None:
            self.remote.put(key, raw)

    def files(self) -> Iterator[StoredFile]:
        """Every entry (and stray temporary file) in the cache, in no particular order: files
        named as the cache names them, in real folders (``AOTBUILD_CACHE_DIR`` may point at a
        folder that holds other things: eviction and ``cache clear`` never see those)."""
        for folder in _real_folders(self.objects):
            if _SHARD.fullmatch(folder.name):
                yield from _named_files(folder, functools.partial(_is_entry_of, folder.name))

    def _compiled_templates(self) -> Iterator[StoredFile]:
        return _named_files(self.templates, lambda name: _TEMPLATE.fullmatch(name) is not None)

    def info(self) -> CacheInfo:
        entries = [f for f in self.files() if not f.path.name.startswith(".")]
        uses = [f.used for f in entries]
        return CacheInfo(
            self.root,
            len(entries),
            sum(f.size for f in entries),
            min(uses, default=None),
            max(uses, default=None),
        )

    def clear(self) -> int:
        """Remove every entry, and the compiled templates; returns the bytes freed."""
        freed = 0
        for stored in [*self.files(), *self._compiled_templates()]:
            stored.path.unlink(missing_ok=True)
            freed += stored.size
        return freed

    def evict(self, cap: int, keep: Collection[str] = ()) -> int:
        """Remove the least recently used entries until the cache holds at most ``cap`` bytes,
        never one of ``keep`` or of this process's own; returns the bytes freed."""
        now = time.time()
        protected = set(keep) | self.used
        entries = []
        freed = 0
        for stored in self.files():
            if stored.path.name.startswith("."):
                if now - stored.used > STALE_TEMPORARY_SECONDS:
                    stored.path.unlink(missing_ok=True)
                    freed += stored.size
                continue
            entries.append(stored)
        total = sum(f.size for f in entries)
        for stored in sorted(entries, key=lambda f: (f.used, f.path.name)):
            if total <= cap:
                break
            if stored.path.name in protected:
                continue
            stored.path.unlink(missing_ok=True)
            total -= stored.size
            freed += stored.size
        return freed


def _is_entry_of(shard: str, name: str) -> bool:
    """Whether ``name`` names an entry (or a temporary file of one) of the folder ``shard``."""
    match = _ENTRY.fullmatch(name)
    return match is not None and match.group("key").startswith(shard)


def _real_folders(folder: Path) -> Iterator[Path]:
    """The folders in ``folder`` (none if it is not a real folder), symbolic links left out."""
    if folder.is_symlink() or not folder.is_dir():
        return
    for path in folder.iterdir():
        if not path.is_symlink() and path.is_dir():
            yield path


def _named_files(folder: Path, named: Callable[[str], bool]) -> Iterator[StoredFile]:
    """The regular files in the real folder ``folder`` whose names ``named`` accepts."""
    if folder.is_symlink() or not folder.is_dir():
        return
    for path in folder.iterdir():
        if not named(path.name):
            continue
        try:
            stat = path.lstat()
        except OSError:  # removed by a concurrent build
            continue
        if S_ISREG(stat.st_mode):
            yield StoredFile(path, stat.st_size, stat.st_mtime)


def _decode(raw: bytes) -> Entry | None:
    if not raw.startswith(MAGIC):
        return None
    end = raw.find(b"\n", len(MAGIC))
    if end < 0:
        return None
    try:
        record = json.loads(raw[len(MAGIC) : end])
    except ValueError:
        return None
    data = raw[end + 1 :]
    if not isinstance(record, dict) or record.get("size") != len(data):
        return None
    if hashlib.sha256(data).hexdigest() != record.get("sha256"):
        return None
    return Entry(data, record)
