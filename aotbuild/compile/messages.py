"""numba's error messages, condensed to what a user acts on.

numba explains a typing failure at length: every candidate overload it tried, the passes it ran.
Kept here: what failed (the operation and its types) and where (file, line, the source line).
"""

from __future__ import annotations

import re

_DROP = (
    re.compile(r"^Failed in .* pipeline"),
    re.compile(r"^During: "),
    re.compile(r"^\s*$"),
)
_CANDIDATES = re.compile(r"^There are \d+ candidate implementations:")


def condense(message: str) -> str:
    lines = message.strip().splitlines()
    kept: list[str] = []
    skipping = False
    for line in lines:
        if _CANDIDATES.match(line):
            skipping = True
            continue
        if skipping and not (line.startswith(" ") or line.startswith("\t")):
            skipping = False
        if skipping or any(pattern.match(line) for pattern in _DROP):
            continue
        kept.append(line.rstrip())
    return "\n".join(kept) if kept else message.strip()
