"""Cython exports: the C functions behind pointers a user's code calls, traced back to their name.

numba code calls SciPy's special functions through their Cython exports::

    address = get_cython_function_address("scipy.special.cython_special", "ndtri")
    ndtri = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(address)

The address only means something in the building process. aotbuild finds which export it is —
the capsule in a loaded module's ``__pyx_capi__`` holding that address — so the package can look
the same export up again when it runs (:class:`~aotbuild.types.CythonExport`).
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from ..errors import KernelError
from ..types import C_SCALARS, CythonExport

_CTYPES_DTYPES: dict[Any, str] = {
    ctypes.c_double: "float64",
    ctypes.c_float: "float32",
    ctypes.c_long: "int64",
    ctypes.c_longlong: "int64",
    ctypes.c_ssize_t: "int64",
    ctypes.c_int: "int32",
}

_SKIP_DISPATCH = "int __pyx_skip_dispatch"


def _capsule_name(capsule: Any) -> str:
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    name = get_name(capsule)
    return name.decode() if name else ""


def _capsule_pointer(capsule: Any, name: str) -> int:
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(capsule, name.encode() if name else None) or 0


def _exports() -> dict[int, tuple[str, str, str]]:
    """Every loaded Cython module's exports: address -> (module, export, C signature); where
    several names hold one address, the first in sorted order."""
    found: dict[int, tuple[str, str, str]] = {}
    for module_name in sorted(sys.modules):
        capi = getattr(sys.modules[module_name], "__pyx_capi__", None)
        if not isinstance(capi, dict):
            continue
        for export in sorted(capi):
            name = _capsule_name(capi[export])
            found.setdefault(_capsule_pointer(capi[export], name), (module_name, export, name))
    return found


def parse_c_signature(module: str, export: str, c_signature: str) -> CythonExport:
    """The export with its C signature (``double (double, int __pyx_skip_dispatch)``) read;
    a KernelError naming it when a type is not a C scalar aotbuild can pass."""
    result, _, rest = c_signature.partition("(")
    args = [arg.strip() for arg in rest.rstrip(")").split(",") if arg.strip()]
    skip = bool(args) and args[-1] == _SKIP_DISPATCH
    if skip:
        args = args[:-1]
    unsupported = [c for c in [result.strip(), *args] if c not in C_SCALARS]
    if unsupported:
        raise KernelError(
            f"{module}.{export} is `{c_signature}`: aotbuild calls exports taking and returning "
            f"double, float, long or int, not {', '.join(unsupported)}"
        )
    return CythonExport(
        module, export, C_SCALARS[result.strip()], tuple(C_SCALARS[a] for a in args), skip, c_signature
    )


def export_address(module: str, export: str) -> int:
    """Where ``module``'s export ``export`` is in this process (imported if need be)."""
    import importlib

    capsule = importlib.import_module(module).__pyx_capi__[export]
    return _capsule_pointer(capsule, _capsule_name(capsule))


def lookup_export(module: str, export: str) -> CythonExport:
    """A named export of ``module`` (imported if need be)."""
    import importlib

    capi = getattr(importlib.import_module(module), "__pyx_capi__", {})
    if export not in capi:
        raise KernelError(f"{module} exports no C function named {export!r}")
    return parse_c_signature(module, export, _capsule_name(capi[export]))


def _declared(value: Any) -> tuple[int, str | None, tuple[str, ...]] | None:
    """(address, result dtype, argument dtypes) of a C function pointer numba can call, or None
    if ``value`` is not one: a ctypes function, or numba's WrapperAddressProtocol."""
    from numba.core.types import WrapperAddressProtocol

    if isinstance(value, ctypes._CFuncPtr):  # type: ignore[attr-defined]  # ctypes' own base class
        address = ctypes.cast(value, ctypes.c_void_p).value or 0
        restype: Any = value.restype
        result = _CTYPES_DTYPES.get(restype, "?") if restype is not None else None
        return address, result, tuple(_CTYPES_DTYPES.get(t, "?") for t in value.argtypes or ())
    if isinstance(value, WrapperAddressProtocol):
        signature = value.signature()
        return (
            int(value.__wrapper_address__()),
            str(signature.return_type),
            tuple(str(arg) for arg in signature.args),
        )
    return None


def cython_export_of(qualname: str, name: str, value: Any) -> CythonExport | None:
    """The Cython export a kernel's global ``name`` points to, checked against how it is
    declared; None if ``value`` is not a C function pointer."""
    declared = _declared(value)
    if declared is None:
        return None
    address, result, args = declared
    found = _exports().get(address)
    if found is None:
        raise KernelError(
            f"`{qualname}` uses the global `{name}`, a C function at {address:#x} that aotbuild "
            "cannot trace back to a named Cython export (the `__pyx_capi__` of a loaded module), "
            "so the package could not find it again at run time. Take the address from "
            "numba.extending.get_cython_function_address(module, name)"
        )
    export = parse_c_signature(*found)
    if (result, args) != (export.result, export.args):
        shown = f"{result or 'void'}({', '.join(args)})"
        raise KernelError(
            f"`{qualname}` declares the global `{name}` as {shown}, but it is {export} "
            f"(`{export.c_signature}`): {export.signature}"
        )
    return export
