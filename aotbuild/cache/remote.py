"""The second cache level: a store a fleet of builders shares, through fsspec.

``AOTBUILD_CACHE_URL=s3://bucket/prefix`` (or ``cache_url`` under ``[tool.aotbuild]``) puts the
same entries as the local cache (:mod:`aotbuild.cache.store`: header, record, bytes) under
``<url>/objects/<2 hex>/<key>`` in any store fsspec reaches: S3 and S3-compatible stores, GCS,
Azure, a shared or network folder (``file://``). The store's client comes from an optional
extra (``aotbuild[s3]``...); credentials and endpoints come from the store's own configuration
(``AWS_*`` variables and files, ``AWS_ENDPOINT_URL``, fsspec's ``FSSPEC_*`` settings), never
from graphs.toml.

The local cache stays first: a local miss reads the store, and what the store has is copied
into the local cache; a compile writes both. Every entry read is verified (size and sha256 of
its bytes) before anything uses it: a corrupted or truncated object is reported, skipped and
built again, and the build's own write replaces it. Entries are named by content, so two
builders writing one key write the same bytes; each write is whole (an object store's single
PUT, or a temporary file renamed on a filesystem). ``AOTBUILD_CACHE_READ_ONLY=1`` reads and
never writes (builds of untrusted changes). A store that does not answer within
``AOTBUILD_CACHE_TIMEOUT`` seconds (10) is reported once and left alone for the rest of the
build, which goes on with the local cache.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..errors import AotBuildWarning, ConfigError

#: The extra that installs each protocol's client (``pip install 'aotbuild[s3]'``).
EXTRAS = {
    "s3": "s3",
    "s3a": "s3",
    "gs": "gcs",
    "gcs": "gcs",
    "az": "azure",
    "abfs": "azure",
    "abfss": "azure",
    "file": "cache",
    "local": "cache",
}

DEFAULT_TIMEOUT = 10.0

T = TypeVar("T")


@dataclass
class RemoteStats:
    """What one build did with the store (``aotbuild cache info`` shows the last build's)."""

    url: str
    read_only: bool
    hits: int = 0
    misses: int = 0
    damaged: int = 0
    written: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    unreachable: str = ""
    """Why the store was left alone, if it was."""


def configured_url(setting: str | None = None) -> str | None:
    """``$AOTBUILD_CACHE_URL``, else ``setting`` (``[tool.aotbuild] cache_url``), else None."""
    return os.environ.get("AOTBUILD_CACHE_URL") or setting or None


def read_only() -> bool:
    return os.environ.get("AOTBUILD_CACHE_READ_ONLY", "").strip().lower() in ("1", "true", "yes", "on")


def _timeout() -> float:
    text = os.environ.get("AOTBUILD_CACHE_TIMEOUT", "")
    try:
        return float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        raise ConfigError(f"AOTBUILD_CACHE_TIMEOUT: {text!r} is not a number of seconds") from None


class RemoteStore:
    """The store at ``url``; a ConfigError naming the extra to install if its client is missing."""

    def __init__(self, url: str, *, read_only: bool = False, timeout: float | None = None) -> None:
        protocol = url.split("://", 1)[0] if "://" in url else "file"
        extra = EXTRAS.get(protocol)
        try:
            import fsspec
            from fsspec.core import url_to_fs
        except ImportError:
            raise ConfigError(
                f"AOTBUILD_CACHE_URL={url}: the shared cache needs fsspec; "
                f"pip install 'aotbuild[{extra or 'cache'}]'"
            ) from None
        try:
            fsspec.get_filesystem_class(protocol)
            self.fs, self.root = url_to_fs(url, skip_instance_cache=True)  # today's configuration
        except (ImportError, ValueError) as exc:
            hint = f"pip install 'aotbuild[{extra}]'" if extra else "install fsspec's client for it"
            raise ConfigError(
                f"AOTBUILD_CACHE_URL={url}: no client for {protocol}:// ({exc}); {hint}"
            ) from None
        self.local = protocol in ("file", "local")
        self.timeout = _timeout() if timeout is None else timeout
        self.stats = RemoteStats(url, read_only)
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        return not self.stats.unreachable

    def path(self, key: str) -> str:
        return f"{self.root.rstrip('/')}/objects/{key[:2]}/{key}"

    def get(self, key: str, verify: Callable[[bytes], bool]) -> bytes | None:
        """The entry under ``key`` if the store has it and ``verify`` accepts its bytes."""
        if not self.available:
            return None
        try:
            raw = self._call(lambda: self.fs.cat_file(self.path(key)))
        except FileNotFoundError:
            with self._lock:
                self.stats.misses += 1
            return None
        except Exception as exc:  # noqa: BLE001 - any failure of the store: go on without it
            self._give_up(exc)
            return None
        if not verify(raw):
            message = f"damaged entry {self.stats.url}/objects/{key[:2]}/{key} skipped; building it again"
            warnings.warn(message, AotBuildWarning, stacklevel=3)
            with self._lock:
                self.stats.damaged += 1
            return None
        with self._lock:
            self.stats.hits += 1
            self.stats.bytes_read += len(raw)
        return raw

    def put(self, key: str, raw: bytes) -> None:
        """Write the entry ``raw`` under ``key`` whole (nothing in read-only mode)."""
        if self.stats.read_only or not self.available:
            return
        path = self.path(key)
        try:
            self._call(lambda: self._write(path, raw))
        except Exception as exc:  # noqa: BLE001
            self._give_up(exc)
            return
        with self._lock:
            self.stats.written += 1
            self.stats.bytes_written += len(raw)

    def _write(self, path: str, raw: bytes) -> None:
        if not self.local:
            self.fs.pipe_file(path, raw)  # one PUT: readers see all of it or nothing
            return
        folder = path.rsplit("/", 1)[0]
        self.fs.makedirs(folder, exist_ok=True)
        temporary = f"{folder}/.{path.rsplit('/', 1)[1]}.{secrets.token_hex(6)}"
        self.fs.pipe_file(temporary, raw)
        os.replace(temporary, path)  # whole, even with another builder writing the same key

    def _call(self, work: Callable[[], T]) -> T:
        """``work()``, given up on after the timeout (its thread is left to finish alone)."""
        result: list[Any] = []

        def run() -> None:
            try:
                result.append(("value", work()))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                result.append(("error", exc))

        worker = threading.Thread(target=run, name="aotbuild-cache-store", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if not result:
            raise TimeoutError(f"no answer in {self.timeout:g} s (AOTBUILD_CACHE_TIMEOUT)")
        kind, value = result[0]
        if kind == "error":
            raise value
        return value  # type: ignore[no-any-return]

    def _give_up(self, exc: BaseException) -> None:
        with self._lock:
            if self.stats.unreachable:
                return
            self.stats.unreachable = f"{type(exc).__name__}: {exc}"
        warnings.warn(
            f"the shared cache {self.stats.url} cannot be used ({self.stats.unreachable}); this build "
            "goes on with the local cache",
            AotBuildWarning,
            stacklevel=4,
        )


def save_stats(stats: RemoteStats, cache_root: Path) -> None:
    """Record what the build did with the store, for ``aotbuild cache info``."""
    from ..files import atomic_write

    atomic_write(cache_root / "last-build-store.json", json.dumps(asdict(stats), indent=2).encode())


def last_stats(cache_root: Path) -> RemoteStats | None:
    try:
        return RemoteStats(**json.loads((cache_root / "last-build-store.json").read_text()))
    except (OSError, ValueError, TypeError):
        return None
