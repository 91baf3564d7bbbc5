"""Loading and rendering the templates in ``templates/`` (shipped as ``aotbuild/templates``).

Templates hold the shape of everything generated; Python fills in names and values. Rendering is
deterministic: no timestamps, no absolute paths, sorted wherever order is not meaningful.
"""

from __future__ import annotations

import contextlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache

from ..files import atomic_write


def template_dir() -> Path:
    """``aotbuild/templates`` when installed; the repository's ``templates/`` in a checkout."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "templates"
    if installed.is_dir():
        return installed
    return package.parent / "templates"


def tuple_text(items: list[str]) -> str:
    """Python source of a tuple: ``(a,)`` or ``(a, b)``."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def all_of(conditions: list[str]) -> str:
    """Python source that holds where every one of ``conditions`` (comparisons, or names of
    booleans, with no side effects) does: ``(s0_0 == 1) & unit_rows``, not ``and``. numba
    gives each operand of ``and`` a block of its own, which every later pass (SSA, typing,
    lowering) walks: the float32 blur's two 27-term conditions took 16% of its compile
    (2.35 -> 1.98 s), for a test run once a call. (Long conditions are intrinsics' now:
    ``all_unit``, ``unit_strides``.)"""
    if len(conditions) == 1:
        return conditions[0]
    return " & ".join(term if term.isidentifier() else f"({term})" for term in conditions)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.globals["tuple_text"] = tuple_text
    return env


class CompiledTemplates(jinja2.BytecodeCache):
    """The templates as Jinja compiled them, kept in a folder of the cache
    (:attr:`aotbuild.cache.store.ObjectCache.templates`): compiling all 53 took 0.32 s, loading
    them 0.01 s; the example's codegen went from 0.32-0.40 s to 0.15-0.23 s (of ~2 s for a new
    package whose objects are all cached). Jinja checks each against its template's text and
    against its own and Python's versions, so an edited template is compiled again; a folder
    that cannot be read or written only loses the saving."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            bucket.bytecode_from_string((self.folder / bucket.key).read_bytes())

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            atomic_write(self.folder / bucket.key, bucket.bytecode_to_string())


def keep_compiled_templates(folder: Path | None) -> None:
    """Templates this process has not compiled yet are loaded from ``folder``, or compiled and
    kept there (None: compiled, not kept: a build told not to use the cache)."""
    environment().bytecode_cache = CompiledTemplates(folder) if folder is not None else None


def render(template: str, **context: Any) -> str:
    """Render ``templates/<template>`` with ``context``; trailing whitespace is stripped per line."""
    text = environment().get_template(template).render(**context)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"
