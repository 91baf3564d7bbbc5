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


#: What each named x86-64 level requires, in NumPy's spelling of CPU features
#: (``numpy._core._multiarray_umath.__cpu_features__``), which is how a package checks the CPU it
#: is imported on with NumPy alone. The levels' other features (BMI1/2, LZCNT, MOVBE, CX16, ...)
#: NumPy does not report; every CPU with the listed ones has them.
LEVEL_FEATURES: dict[str, tuple[str, ...]] = {
    "generic": (),
    "x86-64": ("SSE", "SSE2"),
    "x86-64-v2": ("SSE", "SSE2", "SSE3", "SSSE3", "SSE41", "SSE42", "POPCNT"),
    "x86-64-v3": ("SSE", "SSE2", "SSE3", "SSSE3", "SSE41", "SSE42", "POPCNT", "AVX", "AVX2", "F16C", "FMA3"),
    "x86-64-v4": (
        "SSE",
        "SSE2",
        "SSE3",
        "SSSE3",
        "SSE41",
        "SSE42",
        "POPCNT",
        "AVX",
        "AVX2",
        "F16C",
        "FMA3",
        "AVX512F",
        "AVX512CD",
        "AVX512BW",
        "AVX512DQ",
        "AVX512VL",
    ),
}

#: LLVM's names of the host features NumPy reports, as NumPy spells them.
_NUMPY_NAMES = {
    "sse": "SSE",
    "sse2": "SSE2",
    "sse3": "SSE3",
    "ssse3": "SSSE3",
    "sse4.1": "SSE41",
    "sse4.2": "SSE42",
    "popcnt": "POPCNT",
    "avx": "AVX",
    "avx2": "AVX2",
    "f16c": "F16C",
    "fma": "FMA3",
    "fma4": "FMA4",
    "xop": "XOP",
    "avx512f": "AVX512F",
    "avx512cd": "AVX512CD",
    "avx512bw": "AVX512BW",
    "avx512dq": "AVX512DQ",
    "avx512vl": "AVX512VL",
    "avx512ifma": "AVX512IFMA",
    "avx512vbmi": "AVX512VBMI",
    "avx512vbmi2": "AVX512VBMI2",
    "avx512bitalg": "AVX512BITALG",
    "avx512vpopcntdq": "AVX512VPOPCNTDQ",
    "avx512vnni": "AVX512VNNI",
    "avx512fp16": "AVX512FP16",
    "neon": "NEON",
    "asimd": "ASIMD",
}


def required_features(target: Target) -> tuple[str, ...]:
    """The CPU features code built for ``target`` may use that NumPy can check, sorted."""
    if target.name == "host":
        enabled = {flag[1:] for flag in target.features.split(",") if flag.startswith("+")}
        return tuple(sorted(_NUMPY_NAMES[name] for name in enabled if name in _NUMPY_NAMES))
    return tuple(sorted(LEVEL_FEATURES.get(target.name, ())))


def target_has_fma(target: Target) -> bool:
    """Whether code built for ``target`` may use fused multiply-add (the vector math's exact
    products take one FMA there: aotbuild/compile/intrinsics.py)."""
    return "FMA3" in required_features(target)


def llvm_tuning(target: Target, wide_vectors: bool) -> str:
    """LLVM features that tune an Op's code for ``target`` without widening what it needs of the
    CPU: ``-prefer-256-bit`` for ``wide_vectors`` Ops on AVX-512 targets, else none.

    LLVM's tuning for Intel's AVX-512 CPUs, and for x86-64-v4, keeps loops at 256-bit vectors
    (early Xeons lowered their clock for 512-bit ones), whereas NumPy's own loops there are 512
    bits wide. Loops of vector math, compute-bound, run up to twice as fast at NumPy's width (on a
    Sapphire Rapids class Xeon, 1e5 float64 ``exp`` 125 -> 66 µs, float32 ``tanh`` 76 -> 40 µs);
    memory-bound ones lose (row sums of squares of a 1000x256 array: 70 -> 98 µs), so only Ops
    with vector math are compiled wide (:class:`aotbuild.compile.compiler.CompileFlags`)."""
    return "-prefer-256-bit" if wide_vectors and "AVX512F" in required_features(target) else ""
