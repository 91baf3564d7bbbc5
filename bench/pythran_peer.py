"""The Pythran peer of ``bench_runtime.py``: Pythran found or installed, and each program compiled
by it into an ordinary CPython extension module that the measuring process imports.

Pythran 0.19 needs ``setuptools<60`` on Python 3.11, so it lives in a venv of its own
(``--pythran-venv PATH``, else ``$PYTHRAN_VENV``, else ``pythran-venv`` in this benchmark's cache
folder, ``$XDG_CACHE_HOME/aotbuild-bench`` or ``~/.cache/aotbuild-bench``). A venv without
``bin/pythran`` is made with this interpreter's ``-m venv`` (the modules must match the
measuring process's Python) and ``pip install 'setuptools<60' 'pythran==0.19' numpy``, the
one network use of the benchmark; the commands are printed. If that fails, or the venv's Python is
not this one's, the reason is returned instead and the table shows it.

Each program is compiled on its own, with ``pythran -O3 -march=native``, from a copy of its module
holding only what the function reaches (its module-level helpers, constants and imports): Pythran
compiles a whole module, and one construct it rejects anywhere (``np.random.default_rng`` in
``inputs()``) would fail every program of the module. The copy keeps the original's line numbers
(other lines left blank), so Pythran's errors point into the real module, and drops the kept
functions' decorators (``@njit``, ``@aotbuild.subgraph``: Pythran compiles the plain function,
as numba's peer jits it). Its last line is ``#pythran export name(types)``, translated from the
graph's graphs.toml signature (:func:`export_line`; Pythran exports name arguments only).

The modules are compiled two at a time (Pythran's C++ compile is the slow part) and kept in the
cache folder under a key of the copy's text, the export, the flags, Pythran's and the C++
compiler's versions, Python's version and the CPU's name (``-march=native``): a rerun compiles only
what changed. A program Pythran cannot compile gets Pythran's first error line instead.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from common import cpu_model

PIP_INSTALL = ["setuptools<60", "pythran==0.19", "numpy"]
"""What ``pip install`` puts in a new Pythran venv (Pythran 0.19 needs setuptools<60 on Python 3.11)."""
FLAGS = ["-O3", "-march=native"]
"""Pythran's flags: against aotbuild's ``--target host``, the host CPU's instructions too."""
JOBS = 2
"""Pythran compiles at once: the machine's 2 cores."""


def cache_folder() -> Path:
    """Where the benchmark keeps what outlives a run: the Pythran venv and compiled modules."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "aotbuild-bench"


# --- Pythran itself -----------------------------------------------------------------------


@dataclass(frozen=True)
class Pythran:
    """A working Pythran: its venv, its version, and the C++ compiler it calls."""

    venv: Path
    version: str
    compiler: str
    """The first line of ``c++ --version`` (Pythran's default compiler, ``pythran-config --compiler``)."""

    @property
    def command(self) -> str:
        return str(self.venv / "bin" / "pythran")

    def describe(self) -> str:
        return f"Pythran {self.version} (`pythran {' '.join(FLAGS)}`, {self.compiler})"


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def install(venv: Path) -> str | None:
    """A new venv at ``venv`` with Pythran in it (printing each command); None, or why it failed."""
    commands = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(venv / "bin" / "pip"), "install", *PIP_INSTALL],
    ]
    for command in commands:
        print(f"pythran: {shlex.join(command)}", file=sys.stderr)
        try:
            subprocess.run(command, check=True, capture_output=True, text=True)
        except subprocess.CalledProcessError as error:
            return f"`{' '.join(command[:3])} ...` failed: {last_line(error.stderr or error.stdout)}"
        except OSError as error:
            return f"`{command[0]}` failed: {error}"
    return None


def provide(venv: str | None) -> Pythran | str:
    """Pythran from ``venv`` (else ``$PYTHRAN_VENV``, else the cache folder's), installed there
    if it is missing: a working :class:`Pythran`, or the reason there is none."""
    path = Path(venv or os.environ.get("PYTHRAN_VENV") or cache_folder() / "pythran-venv").absolute()
    if not (path / "bin" / "pythran").exists():
        print(f"pythran: no Pythran in {path}: installing it there", file=sys.stderr)
        if path.exists() and any(path.iterdir()) and not (path / "pyvenv.cfg").exists():
            return f"not installed: {path} exists and is not a venv"
        if failed := install(path):
            return f"not installed: {failed}"
    ours = f"{sys.version_info.major}.{sys.version_info.minor}"
    try:
        version = subprocess.run(
            [str(path / "bin" / "pythran"), "--version"], check=True, capture_output=True, text=True
        ).stdout.strip()
        theirs = subprocess.run(
            [str(path / "bin" / "python"), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        compiler = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError) as error:
        return f"does not run: {error}"
    if theirs != ours:
        return f"its venv {path} has Python {theirs}, this process {ours}: its modules would not import"
    return Pythran(path, version, compiler)


# --- a program's module, for Pythran --------------------------------------------------------

SCALARS = {
    "boolean": "bool", "b1": "bool", "bool_": "bool",
    "float64": "float64", "f8": "float64", "double": "float64",
    "float32": "float32", "f4": "float32", "float": "float32",
    "complex128": "complex128", "c16": "complex128", "cdouble": "complex128",
    "complex64": "complex64", "c8": "complex64", "cfloat": "complex64",
    "int64": "int64", "i8": "int64", "intp": "int64", "int_": "int64",
    "int32": "int32", "i4": "int32", "int16": "int16", "i2": "int16", "int8": "int8", "i1": "int8",
    "uint64": "uint64", "u8": "uint64", "uintp": "uint64",
    "uint32": "uint32", "u4": "uint32", "uint16": "uint16", "u2": "uint16", "uint8": "uint8", "u1": "uint8",
}  # fmt: skip
"""numba's scalar type names (the spellings graphs.toml files use) and Pythran's for them."""


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside any brackets, each part stripped."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def pythran_type(numba_type: str, ordered: bool = False) -> str:
    """One argument's numba type as Pythran spells it: ``float64[::1]`` and ``float64[:]`` ->
    ``float64[:]``, ``float64[:, :]`` and ``float64[:, ::1]`` -> ``float64[:,:]`` (Pythran then
    accepts C and F order, an overload each: 2**n for n such arguments), ``boolean`` -> ``bool``.
    ``ordered``: a declared order as ``order(C)``/``order(F)``, so Pythran makes that one
    overload — for functions with too many matrices to overload (Pythran refuses them), as its
    code can be slower so (issue 30's LMS filter: 1.24 ms against 0.54 with plain ``[:,:]``)."""
    text = re.sub(r"^(types|numba)\.", "", numba_type.strip())
    match = re.fullmatch(r"(\w+)(?:\[(.*)\])?", text)
    if match is None or match.group(1) not in SCALARS:
        raise ValueError(f"no Pythran spelling for the argument type `{numba_type}`")
    scalar, dims = SCALARS[match.group(1)], match.group(2)
    if dims is None:
        return scalar
    axes = split_top_level(dims)
    if not axes or any(axis not in (":", "::1") for axis in axes):
        raise ValueError(f"no Pythran spelling for the array type `{numba_type}`")
    order = {"::1": " order(C)", ":": ""}[axes[-1]] if len(axes) > 1 and ordered else ""
    order = " order(F)" if len(axes) > 1 and axes[0] == "::1" and ordered else order
    return f"{scalar}[{','.join(':' * len(axes))}]{order}"


def export_line(function: str, signature: str, ordered: bool = False) -> str:
    """``#pythran export function(types)`` for a graphs.toml signature ``result(arguments)``:
    the arguments translated by :func:`pythran_type`; the result is not named (Pythran infers it)."""
    text = signature.strip()
    if not text.endswith(")"):
        raise ValueError(f"no argument list in the signature `{signature}`")
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        depth += (text[index] == ")") - (text[index] == "(")
        if depth == 0:
            break
    arguments = split_top_level(text[index + 1 : -1])
    types = ", ".join(pythran_type(argument, ordered) for argument in arguments)
    return f"#pythran export {function}({types})"


def bound_names(statement: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds."""
    if isinstance(statement, ast.FunctionDef | ast.ClassDef):
        return {statement.name}
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    if isinstance(statement, ast.Assign | ast.AnnAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)}
    return set()


def used_names(statement: ast.stmt) -> set[str]:
    """The names a top-level statement reads (a function's decorators not counted: they are dropped)."""
    nodes: list[ast.AST] = [statement]
    if isinstance(statement, ast.FunctionDef):
        nodes = [*statement.body, statement.args]
    elif isinstance(statement, ast.ClassDef):
        nodes = list(statement.body)
    return {node.id for root in nodes for node in ast.walk(root) if isinstance(node, ast.Name)}


def pythran_source(module: Path, function: str, export: str) -> str:
    """The text of ``module`` with only what ``function`` reaches (functions, classes, assignments,
    imports at module level, transitively), the rest blanked so line numbers stay, the kept
    functions' decorators blanked too, and ``export`` appended."""
    text = module.read_text()
    statements = ast.parse(text).body
    needed, kept = {function}, set()
    while True:
        more = {
            index
            for index, statement in enumerate(statements)
            if index not in kept and bound_names(statement) & needed
        }
        if not more:
            break
        kept |= more
        for index in more:
            needed |= used_names(statements[index])
    lines = text.splitlines()
    keep = [False] * len(lines)
    for index in kept:
        statement = statements[index]
        for line in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1):
            keep[line - 1] = True
    return "\n".join(line if keep[i] else "" for i, line in enumerate(lines)) + f"\n{export}\n"


# --- the builds -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """One program for Pythran: the module and function of its graphs.toml entry, its signature."""

    name: str
    module: Path
    function: str
    signature: str

    @property
    def module_name(self) -> str:
        return module_name(self.name)


def module_name(program: str) -> str:
    """The extension module of ``program``'s Pythran peer: one per program, so all import into one process."""
    return f"pythran_{program}"


def pythran_error(output: str, copy: Path, original: Path) -> str:
    """Pythran's (or the C++ compiler's) first error line, the copy named as the original module."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    line = next((line for line in lines if re.search(r"\berror\b", line)), None) or last_line(output)
    line = line.replace(str(copy), original.name).replace(copy.name, original.name)
    cxx = re.match(r"(?:\S*/)?(\S+?\.[ch]pp|\S+?):(\d+):\d+: (?:fatal )?error: (.*)", line)
    if cxx and not cxx.group(1).endswith(".py"):  # the C++ compiler's, in generated or Pythran's code
        where = "generated code" if re.fullmatch(r"tmp\w+\.cpp", cxx.group(1)) else cxx.group(1)
        line = f"C++ error ({where}): {cxx.group(3).replace('{anonymous}::', '').replace('pythonic::', '')}"
    return line if len(line) <= 160 else line[:157] + "..."


def compile_one(pythran: Pythran, job: Job, out: Path, cache: Path) -> Path | str:
    """``job``'s module compiled into ``out`` (or taken from ``cache``): its path, or the error.
    Matrices are exported without an order first (Pythran's fastest code), with their declared
    order where Pythran refuses the overloads that makes."""
    result = _compile_one(pythran, job, out, cache, ordered=False)
    if isinstance(result, str) and "overload" in result.lower():
        result = _compile_one(pythran, job, out, cache, ordered=True)
    return result


def _compile_one(pythran: Pythran, job: Job, out: Path, cache: Path, ordered: bool) -> Path | str:
    copy = out / "src" / f"{job.module_name}.py"
    try:
        export = export_line(job.function, job.signature, ordered)
        copy.write_text(pythran_source(job.module, job.function, export))
    except (ValueError, SyntaxError) as error:
        return str(error)
    key_text = "\n".join(
        [copy.read_text(), *FLAGS, pythran.version, pythran.compiler, sys.version, cpu_model()]
    )
    key = hashlib.sha256(key_text.encode()).hexdigest()[:32]
    target = out / f"{job.module_name}.so"
    cached, cached_error = cache / f"{job.module_name}-{key}.so", cache / f"{job.module_name}-{key}.error"
    if cached.exists():
        shutil.copyfile(cached, target)
        return target
    if cached_error.exists():
        return pythran_error(cached_error.read_text(), copy, job.module)
    done = subprocess.run(
        [pythran.command, *FLAGS, str(copy), "-o", str(target)],
        capture_output=True,
        text=True,
        cwd=copy.parent,
    )
    if done.returncode != 0 or not target.exists():
        if done.returncode > 0:  # Pythran's verdict, not a signal: the same next time
            cached_error.write_text(done.stderr + done.stdout)
        return pythran_error(done.stderr + done.stdout, copy, job.module)
    shutil.copyfile(target, cached)
    return target


def build(pythran: Pythran, jobs: list[Job], out: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """Every job's module compiled into ``out`` (``JOBS`` at a time): the modules built, by
    program, and the error of each program Pythran could not compile."""
    (out / "src").mkdir(parents=True, exist_ok=True)
    cache = cache_folder() / "pythran-modules"
    cache.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(JOBS) as pool:
        results = dict(
            zip(jobs, pool.map(lambda job: compile_one(pythran, job, out, cache), jobs), strict=True)
        )
    built = {job.name: result for job, result in results.items() if isinstance(result, Path)}
    errors = {job.name: result for job, result in results.items() if isinstance(result, str)}
    return built, errors
