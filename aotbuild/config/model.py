"""The validated contents of ``graphs.toml``: frozen, with a docstring under each field.

This is the one place that says what each setting means; the loader fills it, and the reference
in docs/graphs-toml.md is written from it (tests/test_docs.py checks that it lists every key).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..types import Signature

MODES = ("auto", "trace", "kernel")

#: CPU targets accepted by ``[package] target``.
TARGETS = ("generic", "host", "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4")


@dataclass(frozen=True)
class PackageConfig:
    """``[package]``: the generated package as a whole."""

    name: str
    """Importable name of the generated package (a Python identifier)."""

    version: str = "0.1.0"
    """Version recorded in the package (``__version__``) and its manifest."""

    target: str = "generic"
    """CPU to compile for: ``generic`` (portable, default), ``host``, or ``x86-64-v2/v3/v4``; with
    ``target = [...]``, the first listed."""

    out_dir: str = "build"
    """Where the package is written, relative to the folder of ``graphs.toml``."""

    extra_targets: tuple[str, ...] = ()
    """The other targets of ``target = [...]``: each gets its own shared object in the package,
    and the loader picks the best one the CPU runs."""

    uses: tuple[str, ...] = ()
    """Other aotbuild packages (importable names) whose graphs this package's graphs may call:
    by declaration of their symbols, resolved at import from their loaded shared objects."""

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target, *self.extra_targets)


@dataclass(frozen=True)
class GraphConfig:
    """``[graphs.NAME]``: one function of the generated package."""

    name: str
    """The table's name: the attribute of the generated package (a Python identifier)."""

    function: str
    """``module:qualname`` of the Python function, importable from the folder of graphs.toml."""

    signature: Signature
    """Argument and result types (numba's spelling, see ``aotbuild.config.signature``)."""

    signature_text: str
    """The signature as written, for messages and docstrings."""

    mode: str = "auto"
    """``trace`` (run on tracers, a graph of Ops), ``kernel`` (compile the body as written), or
    ``auto`` (trace; a kernel where tracing stops on run-time control flow). Tracing resolves
    ``auto`` to the mode used (see ``auto``)."""

    auto: str = ""
    """Set when ``mode = "auto"`` chose the mode: why, for the build's report and the manifest
    (``traced``, or ``kernel: <where tracing stopped>``)."""

    nogil: bool = False
    """Release the GIL while the compiled function runs."""

    fastmath: bool = False
    """Compile the graph's Ops with LLVM fast-math (reassociation, no NaN or infinity assumed):
    faster reductions and chains, results no longer NumPy's to the bit."""

    out: bool = False
    """Accept ``out=``: an array (or a tuple, one per result) that receives the result."""

    cast: str = "no"
    """``no``: an array of another dtype is a TypeError. ``same_kind``: it is converted (as
    NumPy's ``same_kind`` casting allows), except arrays a kernel writes into."""

    parallel: bool = False
    """Run on the package's thread pool (``set_num_threads``), numba absent: a traced graph's
    elementwise and fused loops of ``PARALLEL_SIZE`` elements or more (the same results for any
    number of threads); a kernel as ``numba.njit(parallel=True)`` compiles it (its ``prange``
    loops)."""

    ufunc: bool = False
    """A NumPy ufunc, as numba's ``@vectorize`` makes: the function is written on scalars and
    ``signatures`` lists its loops (scalar types), in the order NumPy tries them."""

    identity: int | float | str | None = None
    """The ufunc's identity (``reduce`` of nothing, and the start of ``reduce`` and
    ``accumulate``): a number, ``"reorderable"`` (no identity, but reduce may reorder), or None."""

    fortran: tuple[int, ...] = ()
    """The Fortran-ordered array parameters of a traced graph: traced as the transpose of the
    C-contiguous array the package passes in their place (``signature`` declares that one; the
    declared signature is ``signature_text``)."""

    gufunc: str = ""
    """A generalized ufunc's layout (``"(n),(n)->()"``), as numba's ``@guvectorize`` takes it:
    the function writes into its outputs, its last parameters; empty for other graphs."""

    signatures: tuple[Signature, ...] = ()
    """Every declared signature, in the declared order (``signature`` is the one this config
    compiles, see ``signature_index``)."""

    signature_texts: tuple[str, ...] = ()
    """``signatures`` as written."""

    signature_index: int = 0
    """Which of ``signatures`` this graph compiles: one loop of a ufunc, or one of several
    signatures under one name (each its own graph and symbol; the package dispatches)."""

    scalars: tuple[int, ...] = ()
    """A ufunc loop's variant for inputs NumPy broadcasts (stride 0): these are read once, as
    scalars, so the loop over the others vectorises."""

    in_order: bool = False
    """A ufunc loop's variant for NumPy's reduce and accumulate: element by element, in order
    (the output is read back as it is written)."""

    @property
    def shown_signature(self) -> str:
        """The signature ``__graphs__`` and the manifest show: a ufunc's first declared one (its
        loops' own signatures are internal), else the graph's (extended by ``grad``)."""
        return self.signature_texts[0] if self.ufunc or self.gufunc else self.signature_text

    grad: tuple[str, ...] = ()
    """Parameters to differentiate with respect to (float scalars or arrays): the graph returns
    ``(value, d_first, ...)``, the function's float scalar value and its gradient with respect to
    each, of the parameter's shape and dtype, C-contiguous. Traced graphs only."""


@dataclass(frozen=True)
class ProjectConfig:
    """A whole ``graphs.toml``."""

    path: Path
    """The ``graphs.toml`` file itself."""

    package: PackageConfig
    graphs: tuple[GraphConfig, ...]

    @property
    def root(self) -> Path:
        """The folder of ``graphs.toml``: ``function`` modules are imported from here."""
        return self.path.parent

    @property
    def out_dir(self) -> Path:
        return (self.root / self.package.out_dir).resolve()
