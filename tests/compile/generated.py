"""Generated-module texts for the compile tests: code calling the vector math library, with the
library's functions pasted in as the code generator pastes them."""

from __future__ import annotations

from aotbuild.codegen import vecmath


def module_text(body: str, functions: tuple[str, ...] = ("sin_float64",)) -> str:
    """``body`` after the library functions it calls, pasted in."""
    sources = vecmath.sources(functions)
    sources[0] = f"{vecmath.HEADING}\n{sources[0]}"
    lines = ["import numpy as np", "from numba.extending import register_jitable"]
    return "\n".join(lines + vecmath.intrinsics_import(functions) + sources + [body]) + "\n"


#: An Op calling ``sin``, and a region's module (aotbuild.compile.inline) compiling it in.
OP_TEXT = module_text("def op(x):\n    return sin_float64(x) * 2.0\n")
REGION_TEXT = (
    "import numpy as np\n"
    "from aotbuild.compile.inline import inline_op\n\n"
    f"sin_0 = inline_op(r'''{OP_TEXT}''')\n\n\n"
    "def f(x):\n"
    "    out = np.empty_like(x)\n"
    "    for i in range(x.shape[0]):\n"
    "        out[i] = sin_0(x[i])\n"
    "    return out\n"
)
