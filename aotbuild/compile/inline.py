"""Ops compiled into the module that calls them, rather than called by declaration.

A kernel's region (:mod:`aotbuild.trace.regions`) runs once per iteration of the kernel's loop,
often on a few values (a row, a small table): there a call from one compiled object into
another, and the array it returns, cost more than the work. So a region's entry holds the text of
each Op it computes and calls it as a numba function of its own module, which LLVM inlines:

    fused_0 = inline_op(r'''<the Op's generated module>''', error_model="numpy")

The region's module text still determines its code (the Ops' texts are in it), and each Op is
compiled with the options its own module would have been. A process keeps each Op it compiled in
for later regions, once per FMA setting of the target (``has_fma()`` is folded when the Op is
compiled: one kept for a target with FMA would put ``fma`` calls into a generic object), with the
vector math it pastes shared (:mod:`aotbuild.compile.helpers`).
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

from .compiler import GENERATED_PACKAGE
from .helpers import exec_generated, share_vector_math
from .intrinsics import fma_target


def inline_op(text: str, *, function: str = "op", error_model: str = "numpy", fastmath: bool = False) -> Any:
    """The ``function`` of the generated module ``text``, callable (and inlined) from numba code."""
    from numba.extending import register_jitable

    fma = fma_target()
    # Kept per process by everything its compiled code depends on: one Op's text may be compiled
    # in with other options (its fastmath variant), or for another FMA setting.
    key = f"{text}\0{function}\0{error_model}\0{fastmath}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    name = f"{GENERATED_PACKAGE}.inline_{digest}{'_fma' if fma else ''}"
    module = sys.modules.get(name)
    if module is None:
        module = exec_generated(name, f"{name}.py", compile(text, f"{name}.py", "exec"))
        share_vector_math(module, text, fma)
    inlined = module.__dict__.get("_aot_inlined")
    if inlined is None:
        options: dict[str, Any] = {"forceinline": True, "error_model": error_model}
        if fastmath:
            options["fastmath"] = True
        inlined = module.__dict__["_aot_inlined"] = register_jitable(**options)(module.__dict__[function])
    return inlined
