"""The setuptools plugin: ``pip wheel .``, ``python -m build`` and ``pip install -e .`` build a
project's aotbuild package into the wheel (or the editable install).

setuptools calls :func:`finalize_distribution_options` (the
``setuptools.finalize_distribution_options`` entry point) for every project it builds, wherever
aotbuild is installed. So it reads ``pyproject.toml`` and returns at once when there is no
``[tool.aotbuild]`` table, having imported nothing but ``tomllib``: numba, setuptools' commands
and the rest of aotbuild load only for projects that use it. For those it adds the ``build_aot``
sub-command to ``build`` and tags the wheel for the platform (see :mod:`.commands`), without
patching anything: each is a subclass of the command the project would otherwise use.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .settings import read_settings


def finalize_distribution_options(dist: Any) -> None:
    root = Path(getattr(dist, "src_root", None) or os.curdir)
    settings = read_settings(root / "pyproject.toml")
    if settings is None:
        return
    from .commands import add_commands

    add_commands(dist, settings)


#: After setuptools' own hooks (order 0): the project's cmdclass is then known.
finalize_distribution_options.order = 100  # type: ignore[attr-defined]
