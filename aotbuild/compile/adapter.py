"""The C-ABI adapter each graph entry exports beside its numba function.

numba's calling convention explodes aggregate arguments into their members (an array becomes
meminfo, parent, nitems, itemsize, data, shape..., strides...). Rather than re-deriving that in
C, the entry object also exports::

    int32_t <symbol>_c(void **results, void **excinfo, void **args)

which loads each argument from ``args[i]`` (a pointer to the value in numba's *data* layout —
for arrays the ``arystruct_t`` of ``numba/_arraystruct.h``), calls ``<symbol>``, stores each
result through ``results[i]`` and returns numba's status code, with the exception-info pointer in
``*excinfo``. The C entry template only ever calls this one shape.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba.core import cgutils
from numba.core import types as nbtypes

ADAPTER_SUFFIX = "_c"


def emit_adapter(context: Any, library: Any, symbol: str, restype: Any, argtypes: tuple[Any, ...]) -> None:
    module = library.create_ir_module(f"{symbol}{ADAPTER_SUFFIX}")
    function_type = context.call_conv.get_function_type(restype, argtypes)
    callee = cgutils.get_or_insert_function(module, function_type, symbol)
    void_pp = ir.IntType(8).as_pointer().as_pointer()
    adapter_type = ir.FunctionType(ir.IntType(32), [void_pp, void_pp, void_pp])
    adapter = ir.Function(module, adapter_type, symbol + ADAPTER_SUFFIX)
    results, excinfo, args = adapter.args
    builder = ir.IRBuilder(adapter.append_basic_block("entry"))

    def slot(array: Any, index: int, model: Any) -> Any:
        pointer = builder.load(builder.gep(array, [ir.Constant(ir.IntType(32), index)]))
        return builder.bitcast(pointer, model.get_data_type().as_pointer())

    values = []
    for index, argtype in enumerate(argtypes):
        if isinstance(argtype, nbtypes.Omitted):  # a default compiled in: nothing to pass
            values.append(context.get_dummy_value())
            continue
        model = context.data_model_manager[argtype]
        values.append(model.load_from_data_pointer(builder, slot(args, index, model)))

    status, result = context.call_conv.call_function(builder, callee, restype, argtypes, values)
    builder.store(builder.bitcast(status.excinfoptr, ir.IntType(8).as_pointer()), excinfo)
    with builder.if_then(status.is_ok, likely=True):
        if isinstance(restype, (nbtypes.Tuple, nbtypes.UniTuple)):
            outputs = [(item, builder.extract_value(result, i)) for i, item in enumerate(restype.types)]
        elif restype is nbtypes.none:
            outputs = []
        else:
            outputs = [(restype, result)]
        for index, (item_type, value) in enumerate(outputs):
            model = context.data_model_manager[item_type]
            builder.store(model.as_data(builder, value), slot(results, index, model))
    builder.ret(status.code)
    library.add_ir_module(module)
