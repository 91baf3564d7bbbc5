"""Generated modules' helpers: the vector math library is compiled once per process and FMA
setting, helpers get no C wrapper, and an object is the same whatever its process compiled before
(that the shared library computes what each module's own copy did: ``test_flatten.py``)."""

from __future__ import annotations

import contextlib
import pickle
import subprocess
import sys
import types

import numba
import pytest

from aotbuild.codegen import vecmath
from aotbuild.compile import compiler, helpers
from aotbuild.compile.compiler import CompileFlags, CompileRequest, compile_request
from aotbuild.compile.keys import toolchain_key
from aotbuild.compile.target import resolve_target, target_has_fma
from aotbuild.config.signature import parse_signature

from .generated import REGION_TEXT, module_text

TEXT = module_text(
    "def f(x):\n"
    "    out = np.empty_like(x)\n"
    "    for i in range(x.shape[0]):\n"
    "        out[i] = sin_float64(x[i]) * 2.0\n"
    "    return out\n"
)


def request(cpu: str, text: str = TEXT) -> CompileRequest:
    return CompileRequest(
        f"aot_helpers_{cpu.replace('-', '_')}",
        text,
        "f",
        parse_signature("float64[::1](float64[::1])"),
        CompileFlags(),
        resolve_target(cpu),
        toolchain_key(),
    )


def loaded(text: str) -> types.ModuleType:
    module = types.ModuleType("pasted")
    exec(text, module.__dict__)
    return module


def test_a_modules_copies_become_the_shared_ones() -> None:
    module = loaded(TEXT)
    helpers.share_vector_math(module, TEXT, fma=True)
    with_fma = helpers.vector_math_module(True)
    assert with_fma is not helpers.vector_math_module(False)
    assert module.__dict__["sin_float64"] is with_fma.__dict__["sin_float64"]
    assert module.__dict__["_reduce_pi"] is with_fma.__dict__["_reduce_pi"]  # its callees too
    assert helpers.shared_function("sin_float64", False) is not with_fma.__dict__["sin_float64"]
    assert set(vecmath.closure(["sin_float64"])) <= set(vars(with_fma))


def test_source_that_differs_from_the_library_is_left_alone_and_so_are_its_callers() -> None:
    edited = TEXT.replace("def _reduce_pi(d):", "def _reduce_pi(d):  # edited")
    assert edited != TEXT
    module = loaded(edited)
    own = {name: module.__dict__[name] for name in ("_reduce_pi", "sin_float64", "_upper")}
    helpers.share_vector_math(module, edited, fma=False)
    assert module.__dict__["_reduce_pi"] is own["_reduce_pi"]
    assert module.__dict__["sin_float64"] is own["sin_float64"]  # it calls the edited function
    assert module.__dict__["_upper"] is helpers.shared_function("_upper", False)


def compiled(cpus: tuple[str, ...], text: str) -> dict[str, bytes]:
    return {cpu: compile_request(request(cpu, text)).data for cpu in cpus}


_FRESH = (
    "import pickle, sys\n"
    "from aotbuild.compile.compiler import compile_request\n"
    "sys.stdout.buffer.write(compile_request(pickle.loads(sys.stdin.buffer.read())).data)\n"
)


def compiled_in_a_fresh_process(cpu: str, text: str) -> bytes:
    done = subprocess.run(
        [sys.executable, "-c", _FRESH],
        input=pickle.dumps(request(cpu, text)),
        capture_output=True,
        check=True,
    )
    return done.stdout


@pytest.mark.parametrize("text", [TEXT, REGION_TEXT], ids=["module", "region"])
def test_objects_do_not_depend_on_what_the_process_compiled_before(text: str) -> None:
    # Shared: an FMA target first, so the generic Op must not reuse what was compiled for it.
    assert target_has_fma(resolve_target("x86-64-v3")) and not target_has_fma(resolve_target("generic"))
    shared = compiled(("x86-64-v3", "generic"), text)
    assert shared["generic"] == compiled_in_a_fresh_process("generic", text)
    assert shared["generic"] != shared["x86-64-v3"]


def test_helpers_get_no_c_wrapper_and_numbas_defaults_come_back() -> None:
    from numba.core import extending

    before = dict(extending._overload_default_jit_options)
    compiler.load_module(request("generic"))
    module = sys.modules[f"{compiler.GENERATED_PACKAGE}.aot_helpers_generic"]
    template = extending._overload_default_jit_options  # untouched after the load
    assert template == before
    # the helper's overload, as numba registered it while the module loaded
    from numba.core.typing.templates import _OverloadFunctionTemplate

    options = [
        t._jit_options
        for t in _OverloadFunctionTemplate.__subclasses__()
        if getattr(t, "_overload_func", None) is not None and t.key is module.__dict__["_upper"]
    ]
    assert options and all(o.get("no_cfunc_wrapper") is True for o in options)
    with pytest.raises(ZeroDivisionError), helpers.without_c_wrappers():
        assert extending._overload_default_jit_options["no_cfunc_wrapper"] is True
        1 / 0  # noqa: B018
    assert extending._overload_default_jit_options == before


@numba.njit
def user_double(x: float) -> float:
    """A user's numba function, which a kernel may call and Python too."""
    return x * 2.0


HELPER_TEXT = (
    "from numba.extending import register_jitable\n"
    "from tests.compile.test_helpers import user_double\n\n\n"
    "@register_jitable\n"
    "def generated_triple(x):\n"
    "    return x * 3.0\n\n\n"
    "def f(x):\n"
    "    return generated_triple(x) + user_double(x)\n"
)


def test_generated_helpers_are_only_linked_and_a_users_functions_stay_callable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from numba.core import codegen, cpu

    made: list[str] = []
    finalize = codegen.JITCodeLibrary._finalize_specific

    def recorded(library: codegen.JITCodeLibrary) -> None:
        made.append(library.name)
        finalize(library)

    monkeypatch.setattr(codegen.JITCodeLibrary, "_finalize_specific", recorded)
    get_executable = cpu.CPUContext.get_executable
    sig = parse_signature("float64(float64)")
    done = compile_request(
        CompileRequest(
            "aot_linked_only",
            HELPER_TEXT,
            "f",
            sig,
            CompileFlags(),
            resolve_target("generic"),
            toolchain_key(),
        )
    )
    assert done.data
    assert "user_double" in made  # numba's JIT made it, so that Python may call it
    assert "generated_triple" not in made  # only linked into the Op's object
    assert user_double(1.5) == 3.0
    assert cpu.CPUContext.get_executable is get_executable  # numba as it was, after the compile


SHARED_HELPER = (
    "import numpy as np\n"
    "from numba.extending import register_jitable\n\n\n"
    "@register_jitable\n"
    "def element(x, i):\n"
    "    return x[i] * 2.0\n\n\n"
    "@register_jitable\n"
    "def fill(buf, x, n):\n"
    "    for i in range(n):\n"
    "        buf[i] = element(x, i)\n\n\n"
    "def f(x):\n"
    "    buf = np.empty_like(x)\n"
    "    if x.shape[0] < 4:\n"
    "        return element(x, 0)\n"
    "    fill(buf, x, x.shape[0])\n"
    "    return buf.sum()\n"
)


@pytest.mark.parametrize("once", [True, False])
def test_a_helper_the_op_and_another_helper_call_compiles_once(
    once: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """numba keys a built helper by its caller's flags, and an Op's differ from a helper's in
    options no helper inherits: without ``helpers_once`` ``element`` compiles twice."""
    from numba.core import dispatcher

    if not once:
        monkeypatch.setattr(compiler, "helpers_once", contextlib.nullcontext)
    compiled: list[str] = []
    compile_core = dispatcher._FunctionCompiler._compile_core

    def counted(self, args, return_type):  # type: ignore[no-untyped-def]
        compiled.append(self.py_func.__name__)
        return compile_core(self, args, return_type)

    monkeypatch.setattr(dispatcher._FunctionCompiler, "_compile_core", counted)
    done = compile_request(
        CompileRequest(
            f"aot_helper_once_{once}",
            SHARED_HELPER,
            "f",
            parse_signature("float64(float64[::1])"),
            CompileFlags(error_model="numpy"),
            resolve_target("generic"),
            toolchain_key(),
        )
    )
    assert done.data
    assert compiled.count("element") == (1 if once else 2)
    assert compiled.count("fill") == 1


def _strided_vector_math(ufunc: object, symbol: str) -> CompileRequest:
    """The generated module of ``ufunc(x) * y`` for 1-d arrays of any layout: vector math, so a
    strided input is copied first."""

    from aotbuild.codegen.elementwise import render_fused

    from ..codegen.test_modules import _fused, traced

    x, y = traced("float64", 1), traced("float64", 1, 1)
    (node,) = _fused(ufunc(x) * y, signature="float64[:](float64[:], float64[:])")  # type: ignore[operator]
    module = render_fused(node)
    assert "np.empty(a0_any.shape[0], dtype=np.float64)" in module.text
    return CompileRequest(
        symbol,
        module.text,
        "op",
        parse_signature(str(module.signature)),
        CompileFlags(error_model="numpy"),
        resolve_target("generic"),
        toolchain_key(),
    )


def test_a_strided_input_copied_after_jit_code_gives_the_object_of_a_fresh_process() -> None:
    """Copies of strided inputs are made without what numba caches per process: ``.copy()``
    allocates through a function numba compiles once per process and then reuses, so after JIT
    code allocating an array (a generated module run by numba's JIT, in a build's own process
    at -j 1) an Op's object was not a fresh worker's."""
    import numpy as np

    from ..codegen.test_modules import _jitted, render_elementwise, traced

    x, y = traced("float64", 2), traced("float64", 1, 1)
    _jitted(render_elementwise((x + y).node).text)(np.ones((2, 3)), np.ones(3))
    request = _strided_vector_math(np.exp, "aot_strided_exp")
    done = subprocess.run(
        [sys.executable, "-c", _FRESH], input=pickle.dumps(request), capture_output=True, check=True
    )
    assert compile_request(request).data == done.stdout
