"""DOT laid out as SVG by Graphviz's ``dot``, the layout program PyTensor's pictures use too.

Graphviz is a system program, not a Python package: where ``dot`` is missing, the error says how
to install it and that ``--format dot`` needs nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from .modules import PictureError

#: Where to find Graphviz's ``dot`` when it is not on PATH.
DOT_VARIABLE = "AOTBUILD_DOT"

INSTALL_HINT = (
    "install Graphviz (Debian/Ubuntu: `sudo apt-get install graphviz`; Fedora: `sudo dnf install "
    "graphviz`; macOS: `brew install graphviz`; conda: `conda install graphviz`), or set "
    f"{DOT_VARIABLE} to its `dot`; `--format dot` writes the DOT text, which needs nothing"
)


def dot_program() -> str:
    configured = os.environ.get(DOT_VARIABLE)
    if configured:
        if not shutil.which(configured):
            raise PictureError(f"{DOT_VARIABLE}={configured} is not a program that can be run")
        return configured
    found = shutil.which("dot")
    if found is None:
        raise PictureError(
            f"SVG and HTML pictures are laid out by Graphviz's `dot`, which is not installed: {INSTALL_HINT}"
        )
    return found


def dot_to_svg(dot_text: str) -> str:
    """The SVG Graphviz lays out for ``dot_text``."""
    try:
        done = subprocess.run(
            [dot_program(), "-Tsvg"], input=dot_text.encode(), capture_output=True, timeout=300, check=False
        )
    except subprocess.TimeoutExpired:
        raise PictureError("Graphviz's `dot` took over 5 minutes to lay the picture out") from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise PictureError(f"Graphviz's `dot` failed (exit {done.returncode}): {message}")
    return done.stdout.decode()
