"""The store a fleet shares behind the local cache (aotbuild/cache/remote.py).

Two "machines" are two local caches and two checkouts of one project sharing one store: a shared
folder (``file://``) and a real S3 API, moto's server on 127.0.0.1 as s3fs's own tests use it.
Also: damaged entries in the store, concurrent writers, read-only, an unreachable store, a
client that is not installed, and what ``aotbuild cache info`` reports.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from aotbuild.build import build
from aotbuild.cache.remote import RemoteStore, last_stats
from aotbuild.cache.store import MAGIC, ObjectCache
from aotbuild.errors import ConfigError
from aotbuild.progress import Progress

KEY = "ab" + "0" * 62

PROJECT = """
[package]
name = "fleet_ext"

[graphs.scaled_sum]
function = "fleet:scaled_sum"
signature = "float64(float64[:], float64)"

[graphs.shifted]
function = "fleet:shifted"
signature = "float64[:](float64[:], float64)"
"""

FUNCTIONS = """
import numpy as np


def scaled_sum(x, s):
    return np.sum(x * s)


def shifted(x, s):
    return np.exp(x) + s
"""


def checkout(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "graphs.toml").write_text(PROJECT)
    (folder / "fleet.py").write_text(FUNCTIONS)
    return folder / "graphs.toml"


def build_on(machine: Path, url: str, monkeypatch: pytest.MonkeyPatch, **env: str):
    """A build on one machine: its own checkout and local cache, the shared store at ``url``."""
    monkeypatch.setenv("AOTBUILD_CACHE_DIR", str(machine / "cache"))
    monkeypatch.setenv("AOTBUILD_CACHE_URL", url)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    graphs = machine / "checkout" / "graphs.toml"
    if not graphs.exists():
        checkout(machine / "checkout")
    return build(graphs, out_dir=str(machine / "out"), progress=Progress(quiet=True), jobs=1)


def test_a_second_machine_compiles_nothing(tmp_path: Path, monkeypatch) -> None:
    url = (tmp_path / "store").as_uri()
    first = build_on(tmp_path / "one", url, monkeypatch)
    assert first.compiled > 0
    stats = last_stats(tmp_path / "one" / "cache")
    assert stats is not None and stats.written > 0 and stats.hits == 0
    second = build_on(tmp_path / "two", url, monkeypatch)
    assert second.compiled == 0  # every Op, C object and the shared object from the store
    stats = last_stats(tmp_path / "two" / "cache")
    assert stats is not None and stats.hits > 0 and stats.written == 0 and stats.misses == 0
    # the same package on both machines
    for name in ("manifest.json", "__init__.py"):
        one = (tmp_path / "one" / "out" / "fleet_ext" / name).read_bytes()
        two = (tmp_path / "two" / "out" / "fleet_ext" / name).read_bytes()
        assert one == two


def test_a_damaged_entry_in_the_store_is_reported_skipped_and_rebuilt(tmp_path: Path, monkeypatch) -> None:
    url = (tmp_path / "store").as_uri()
    build_on(tmp_path / "one", url, monkeypatch)
    entries = sorted((tmp_path / "store" / "objects").glob("*/*"))
    damaged = next(p for p in entries if b'"kind":"op"' in p.read_bytes().split(b"\n", 2)[1])
    damaged.write_bytes(damaged.read_bytes()[:-7])  # truncated
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build_on(tmp_path / "two", url, monkeypatch)
    assert any("damaged entry" in str(w.message) and damaged.name in str(w.message) for w in caught)
    assert result.compiled == 1  # that Op built again, never linked damaged
    stats = last_stats(tmp_path / "two" / "cache")
    assert stats is not None and stats.damaged == 1 and stats.written >= 1
    assert ObjectCache(tmp_path / "check", RemoteStore(url)).get(damaged.name) is not None  # rewritten whole


def test_read_only_reads_and_never_writes(tmp_path: Path, monkeypatch) -> None:
    url = (tmp_path / "store").as_uri()
    build_on(tmp_path / "one", url, monkeypatch, AOTBUILD_CACHE_READ_ONLY="1")
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").rglob("*/*"))
    stats = last_stats(tmp_path / "one" / "cache")
    assert stats is not None and stats.read_only and stats.written == 0 and stats.misses > 0


def test_an_unreachable_store_slows_nothing_down_for_long(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("s3fs")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build_on(tmp_path / "one", "s3://nowhere/prefix", monkeypatch, AOTBUILD_CACHE_TIMEOUT="3")
    said = [w for w in caught if "cannot be used" in str(w.message)]
    assert len(said) == 1  # one warning, then the build goes on locally
    assert result.package_dir.exists()
    stats = last_stats(tmp_path / "one" / "cache")
    assert stats is not None and stats.unreachable


def test_concurrent_writers_of_one_key_both_succeed(tmp_path: Path) -> None:
    entry = MAGIC + b'{"sha256":"x"}\n' + b"bytes" * 1000
    stores = [RemoteStore((tmp_path / "store").as_uri()) for _ in range(8)]
    threads = [threading.Thread(target=store.put, args=(KEY, entry)) for store in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(store.stats.written == 1 and not store.stats.unreachable for store in stores)
    assert (tmp_path / "store" / "objects" / "ab" / KEY).read_bytes() == entry
    assert [p.name for p in (tmp_path / "store" / "objects" / "ab").iterdir()] == [KEY]  # no debris


def test_a_missing_client_names_the_extra(tmp_path: Path, monkeypatch) -> None:
    import fsspec

    real = fsspec.get_filesystem_class

    def missing(protocol: str):
        if protocol == "gs":
            raise ImportError("Install gcsfs to access Google Storage")
        return real(protocol)

    monkeypatch.setattr(fsspec, "get_filesystem_class", missing)
    with pytest.raises(ConfigError, match=r"no client for gs://.*pip install 'aotbuild\[gcs\]'"):
        RemoteStore("gs://bucket/prefix")


def test_cache_info_shows_the_store_and_the_last_build(tmp_path: Path, monkeypatch) -> None:
    url = (tmp_path / "store").as_uri()
    build_on(tmp_path / "one", url, monkeypatch)
    build_on(tmp_path / "two", url, monkeypatch)
    env = {**os.environ, "AOTBUILD_CACHE_DIR": str(tmp_path / "two" / "cache"), "AOTBUILD_CACHE_URL": url}
    done = subprocess.run(
        [sys.executable, "-m", "aotbuild", "cache", "info"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert f"shared    {url}" in done.stdout
    assert (
        f"last build with {url}: " in done.stdout and " read (" in done.stdout and "0 written" in done.stdout
    )


@pytest.fixture(scope="module")
def s3_server():
    """moto's S3 server on 127.0.0.1, as s3fs's tests run it; its endpoint for AWS_ENDPOINT_URL."""
    moto_server = pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def test_two_machines_share_an_s3_bucket(tmp_path: Path, monkeypatch, s3_server: str) -> None:
    import fsspec

    for name, value in {
        "AWS_ENDPOINT_URL": s3_server,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    fsspec.filesystem("s3", skip_instance_cache=True).mkdir("fleet-cache")
    first = build_on(tmp_path / "one", "s3://fleet-cache/aotbuild", monkeypatch)
    second = build_on(tmp_path / "two", "s3://fleet-cache/aotbuild", monkeypatch)
    assert first.compiled > 0 and second.compiled == 0
    stats = last_stats(tmp_path / "two" / "cache")
    assert stats is not None and stats.hits > 0 and stats.damaged == 0 and not stats.unreachable
    shutil.rmtree(tmp_path / "one" / "cache")
    third = build_on(tmp_path / "one", "s3://fleet-cache/aotbuild", monkeypatch, AOTBUILD_CACHE_READ_ONLY="1")
    assert third.compiled == 0
