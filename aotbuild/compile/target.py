"""CPU targets: what ``[package] target`` means to LLVM.

``host`` is resolved here, once, to the CPU name and features of the build machine, so that
nothing downstream (cache keys, the manifest) ever holds the word ``host``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    """A resolved CPU target."""

    name: str
    """As configured: ``generic``, ``host``, ``x86-64-v3``, ..."""

    cpu: str
    """The LLVM CPU name code is generated for (``host`` resolved)."""

    features: str
    """LLVM feature string of that CPU (``+avx2,+fma,...``); empty for named targets."""


def resolve_target(name: str) -> Target:
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    if name == "host":
        return Target(name, llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())
    if name == "generic":
        return Target(name, "generic", "")
    return Target(name, name, "")
