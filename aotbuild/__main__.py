"""``python -m aotbuild``: the same command line as ``aotbuild``."""

from .cli import run

run()
