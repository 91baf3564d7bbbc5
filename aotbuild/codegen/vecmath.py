"""Vector math: transcendental functions as numba code that LLVM vectorises.

``np.exp(x)`` in a numba loop is a call of the C library's ``exp`` per element, and a loop with a
call in it stays scalar. The functions in ``templates/vecmath/`` (adapted from SLEEF's
vectorised algorithms; see ``templates/vecmath/LICENSE.sleef``) are plain, branch-free numba
code: a generated module that uses one carries its source, inlined into the loop by LLVM, which
then runs 2 to 8 elements at a time on every CPU target. Their accuracy is a documented,
tested contract (``docs/tracing.md``).

Each function is named ``<ufunc>_<dtype>`` (``exp_float64``), and may call other functions of
the library, which come with it. ``sin``, ``cos`` and ``tan`` reduce their argument exactly only
up to a bound; ``<ufunc>_<dtype>_in_range(x)`` says whether ``x`` is within it (NaN and infinities
are), and a loop that met an argument beyond it runs again with the C library's functions.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .order import callees_first
from .templates import template_dir

#: The licence of the code the library adapts, shipped with every package that compiles it in.
LICENCE_FILE = "LICENSE.sleef"

#: The comment above the library's functions in a generated module.
HEADING = f"# Vector math: adapted from SLEEF (see {LICENCE_FILE} in the package)."


def used_in(text: str) -> bool:
    """Whether the generated module ``text`` carries functions of the library."""
    return HEADING in text


@dataclass(frozen=True)
class LibraryFunction:
    """One function of the library: its source (decorator included) and the names it uses."""

    name: str
    source: str
    uses: frozenset[str]


def folder() -> Path:
    """The library's sources: ``templates/vecmath/``."""
    return template_dir() / "vecmath"


@lru_cache(maxsize=1)
def library() -> dict[str, LibraryFunction]:
    """Every function of ``templates/vecmath/*.py``, by name."""
    found: dict[str, LibraryFunction] = {}
    for path in sorted(folder().glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.parse(text, str(path)).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = text.splitlines()[start - 1 : node.end_lineno]
            uses = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
            if node.name in found:
                raise AssertionError(f"{path.name}: {node.name} is defined twice in the vector math library")
            found[node.name] = LibraryFunction(node.name, "\n".join(lines), uses)
    return found


def vector_function(fn: str, dtype: str) -> str | None:
    """The library's function for ufunc ``fn`` on ``dtype`` (None: there is none)."""
    name = f"{fn}_{dtype}"
    return name if name in library() else None


def range_check(fn: str, dtype: str) -> str | None:
    """The function saying whether an argument is within the range of ``fn``'s vector code."""
    name = f"{fn}_{dtype}_in_range"
    return name if name in library() else None


def closure(names: Iterable[str]) -> list[str]:
    """``names`` and every library function they use, each once, callees first."""
    functions = library()
    return callees_first(
        names, lambda name: sorted(u for u in functions[name].uses if u in functions and u != name)
    )


def sources(names: Iterable[str]) -> list[str]:
    """The sources of ``names`` and of every library function they use, each once, callees
    first (numba resolves globals when it compiles, but a reader reads top down)."""
    return [library()[name].source for name in closure(names)]


#: What the library's functions take from ``aotbuild.compile.intrinsics`` (``fma`` where the
#: target has it): a module holding one must import them.
INTRINSICS = ("fma", "has_fma")


def intrinsics_import(names: Iterable[str]) -> list[str]:
    """The import line the library functions ``names`` and those they use need, if any."""
    functions = library()
    used = sorted({n for name in closure(names) for n in functions[name].uses if n in INTRINSICS})
    return [f"from aotbuild.compile.intrinsics import {', '.join(used)}"] if used else []


def licence_text() -> str:
    return (folder() / LICENCE_FILE).read_text(encoding="utf-8")
