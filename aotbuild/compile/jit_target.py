"""numba's JIT set to the CPU target, in every process that compiles Ops for it.

numba compiles what an Op calls (its own NumPy implementations, the vector math, a module's
``register_jitable`` helpers) with its JIT, which optimises them for its own CPU, and only then
links them into the Op's object, which is compiled for the target. So an object depended on the
machine that built it: of the example project's 139 Ops built for ``generic``, 27 had other
bytes when numba's JIT was set to ``generic`` than on this AVX-512 machine (its generic code ran
as fast or faster: ``normalize_channels`` 0.90 of the time). A fleet of mixed CPUs sharing a
cache, or a wheel rebuilt elsewhere, got other bytes for the same key.

numba reads its JIT's CPU from ``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES`` once, when it sets
its CPU target up (the first compile in a process). So a process compiles Ops for a target only
when its JIT was set up for that target: the build's own process when the build claims it
before numba starts (:func:`claim`), compile workers because their server starts with these
variables (:mod:`aotbuild.compile.workers`); any other process hands the Ops to workers
(:func:`compiles_for`).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .target import Target

#: The variables numba reads its JIT's CPU from.
VARIABLES = ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")


def environment(target: Target) -> dict[str, str]:
    """The variables that set numba's JIT to ``target`` in a process started with them."""
    return {"NUMBA_CPU_NAME": target.cpu, "NUMBA_CPU_FEATURES": target.features}


def _set_up() -> bool:
    """Whether numba has set its CPU target up in this process (its JIT's CPU is then fixed)."""
    registry = sys.modules.get("numba.core.registry")
    return registry is not None and "_toplevel_target_context" in vars(registry.cpu_target)


_FIXED: list[tuple[str, str]] = []
"""The JIT's CPU and features once numba has set its CPU target up: they no longer change, even
when the variables do (the worker server starts with others)."""


def jit_cpu() -> tuple[str, str]:
    """The CPU and features numba's JIT optimises for in this process: those it set up with,
    or, before that, those it would set up with now."""
    import llvmlite.binding as llvm

    if _FIXED:
        return _FIXED[0]
    if _set_up():
        from numba.core.registry import cpu_target

        codegen = cpu_target.target_context.codegen()
        _FIXED.append((codegen._get_host_cpu_name(), codegen._tm_features))  # type: ignore[attr-defined]
        return _FIXED[0]
    name = os.environ.get("NUMBA_CPU_NAME")
    features = os.environ.get("NUMBA_CPU_FEATURES")
    if features is None:
        features = "" if (name or "").lower() == "generic" else None
    llvm.initialize_native_target()
    return (
        name or llvm.get_host_cpu_name(),
        llvm.get_host_cpu_features().flatten() if features is None else features,
    )


def compiles_for(target: Target) -> bool:
    """Whether this process's JIT is set for ``target``, so that Ops it compiles for it get the
    bytes every other such process gives them."""
    return jit_cpu() == (target.cpu, target.features)


def claim(target: Target) -> bool:
    """Set this process's JIT to ``target`` if numba has not set its CPU target up yet (and the
    target runs on this CPU: the JIT may run what it compiles, a user module's ``@njit`` code at
    import); whether the process then compiles for ``target``."""
    from .target import required_features, resolve_target

    if not _set_up() and set(required_features(target)) <= set(required_features(resolve_target("host"))):
        os.environ.update(environment(target))
        config = sys.modules.get("numba.core.config")
        if config is not None:  # imported, not set up: numba reads its settings again
            config.reload_config()  # type: ignore[attr-defined]
    return compiles_for(target)
