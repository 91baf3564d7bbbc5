"""``[tool.aotbuild]`` in a project's ``pyproject.toml``: where its graphs.toml is, and overrides."""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass
from pathlib import Path

from setuptools.errors import SetupError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

#: The keys of ``[tool.aotbuild]``.
KEYS = ("graphs", "target", "jobs", "cache_url")


class PluginConfigError(SetupError):
    """``[tool.aotbuild]`` is wrong; the message says where and how (setuptools prints it as
    ``error in setup command: ...``, without a traceback)."""


@dataclass(frozen=True)
class PluginSettings:
    graphs: Path
    """The project's graphs.toml (``graphs = "graphs.toml"``, relative to pyproject.toml)."""

    target: str | tuple[str, ...] | None = None
    """Overrides ``[package] target`` of graphs.toml for the wheel: one target or several
    (``target = ["generic", "x86-64-v3"]``)."""

    jobs: int | None = None
    """Compile workers (default: one per CPU)."""

    cache_url: str | None = None
    """The store a fleet of builders shares behind the local cache (``s3://bucket/prefix``...;
    ``$AOTBUILD_CACHE_URL`` wins), see :mod:`aotbuild.cache.remote`."""


def read_settings(pyproject: Path) -> PluginSettings | None:
    """The project's settings, or None when it has no ``[tool.aotbuild]`` (or no pyproject.toml)."""
    try:
        text = pyproject.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    if "aotbuild" not in text:  # most projects: no need to parse
        return None
    try:
        table = tomllib.loads(text).get("tool", {}).get("aotbuild")
    except tomllib.TOMLDecodeError as exc:
        raise PluginConfigError(f"{pyproject}: not valid TOML: {exc}") from None
    if table is None:
        return None
    where = f"{pyproject.name}: [tool.aotbuild]"
    if not isinstance(table, dict):
        raise PluginConfigError(f"{where} must be a table")
    for key in table:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise PluginConfigError(f"{where} unknown key {key!r} (expected one of: {', '.join(KEYS)}){hint}")
    graphs = table.get("graphs", "graphs.toml")
    if not isinstance(graphs, str) or not graphs:
        raise PluginConfigError(f"{where} graphs: expected the path of a graphs.toml, got {graphs!r}")
    target = table.get("target")
    if isinstance(target, list) and target and all(isinstance(name, str) for name in target):
        target = tuple(target)
    elif target is not None and not isinstance(target, str):
        raise PluginConfigError(f"{where} target: expected a target name or a list of them, got {target!r}")
    jobs = table.get("jobs")
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise PluginConfigError(f"{where} jobs: expected a positive integer, got {jobs!r}")
    cache_url = table.get("cache_url")
    if cache_url is not None and (not isinstance(cache_url, str) or not cache_url.strip()):
        expected = "expected a URL such as 's3://bucket/prefix'"
        raise PluginConfigError(f"{where} cache_url: {expected}, got {cache_url!r}")
    return PluginSettings(pyproject.parent / graphs, target, jobs, cache_url)
