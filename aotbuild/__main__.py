"""``python -m aotbuild``: the same command line as ``aotbuild``."""

import sys

from .cli import main

sys.exit(main())
