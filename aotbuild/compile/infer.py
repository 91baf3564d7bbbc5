"""numba's type inference alone: the front half of its nopython pipeline, no code generation.

Kernels are typed in the build process to learn which helper functions they call with which
argument types (each becomes its own compiled Op) and what they return; compiling happens later
from the generated modules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba.core import types as nbtypes
from numba.core.compiler import CompilerBase, DefaultPassBuilder, _EarlyPipelineCompletion
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.registry import cpu_target
from numba.core.typed_passes import NopythonTypeInference

from .compiler import CompileFlags


@register_pass(mutates_CFG=False, analysis_only=True)
class _StopAfterTyping(FunctionPass):
    _name = "aotbuild_stop_after_typing"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        raise _EarlyPipelineCompletion((state.return_type, dict(state.typemap)))


class _TypingOnly(CompilerBase):
    def define_pipelines(self) -> list[Any]:
        manager = DefaultPassBuilder.define_untyped_pipeline(self.state, name="aotbuild typing")
        manager.add_pass(NopythonTypeInference, "nopython frontend")
        manager.add_pass(_StopAfterTyping, "stop after typing")
        manager.finalize()
        return [manager]


def infer_return_type(
    function: Callable[..., Any], argtypes: tuple[nbtypes.Type, ...], flags: CompileFlags
) -> nbtypes.Type:
    """The type numba infers for ``function(*argtypes)``; raises numba's ``TypingError``."""
    return infer_types(function, argtypes, flags)[0]


@global_compiler_lock
def infer_types(
    function: Callable[..., Any], argtypes: tuple[nbtypes.Type, ...], flags: CompileFlags
) -> tuple[nbtypes.Type, dict[str, nbtypes.Type]]:
    """What numba infers for ``function(*argtypes)``: its return type, and the type of each
    variable of its IR (``x``, ``x.1`` for a second definition of ``x``, ``$...`` for numba's
    temporaries). Raises numba's ``TypingError``."""
    from .numba_types import omitted_defaults

    argtypes += omitted_defaults(function, len(argtypes))
    pipeline = _TypingOnly(
        cpu_target.typing_context,
        cpu_target.target_context,
        None,
        argtypes,
        None,
        flags.numba_flags(),
        {},
    )
    return pipeline.compile_extra(function)
