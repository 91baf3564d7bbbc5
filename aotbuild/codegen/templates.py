"""Loading and rendering the templates in ``templates/`` (shipped as ``aotbuild/templates``).

Templates hold the shape of everything generated; Python fills in names and values. Rendering is
deterministic: no timestamps, no absolute paths, sorted wherever order is not meaningful.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2


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


def render(template: str, **context: Any) -> str:
    """Render ``templates/<template>`` with ``context``; trailing whitespace is stripped per line."""
    text = environment().get_template(template).render(**context)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"
