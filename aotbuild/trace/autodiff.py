"""``aotbuild.value_and_grad`` and ``aotbuild.grad``: gradients inside traced functions.

While a graph is traced, ``value_and_grad(f, "w")(w, x)`` calls ``f`` on the tracers and builds
the gradient by reverse mode (:func:`aotbuild.trace.gradients.gradients`), so one compiled graph
can take a gradient step or a Newton direction. Called on NumPy values, outside a build, it
falls back to central finite differences in float64, so the same function still runs (slowly,
and to about 1e-8 relative accuracy) in plain Python, for testing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import TraceError


def value_and_grad(function: Callable[..., Any], argnames: str | Sequence[str]) -> Callable[..., Any]:
    """``f(*args) -> (value, d_arg)`` (one name) or ``(value, (d_a, d_b, ...))`` (a sequence of
    names): ``function``'s float scalar value and its gradient with respect to those parameters."""
    names = (argnames,) if isinstance(argnames, str) else tuple(argnames)
    parameters = list(inspect.signature(function).parameters)
    missing = [n for n in names if n not in parameters]
    if missing or not names:
        raise TypeError(
            f"value_and_grad: {', '.join(map(repr, missing)) or 'no name'} is not a parameter of "
            f"{getattr(function, '__qualname__', function)!r} ({', '.join(parameters)})"
        )

    def call(*args: Any, **kwargs: Any) -> Any:
        bound = inspect.signature(function).bind(*args, **kwargs)
        bound.apply_defaults()
        differentiate = _traced if _any_traced(bound) else _differences
        value, grads = differentiate(function, bound, names)
        return value, grads[0] if isinstance(argnames, str) else tuple(grads)

    return call


def grad(function: Callable[..., Any], argnames: str | Sequence[str]) -> Callable[..., Any]:
    """As :func:`value_and_grad`, the gradient(s) only."""
    both = value_and_grad(function, argnames)
    return lambda *args, **kwargs: both(*args, **kwargs)[1]


def _any_traced(bound: inspect.BoundArguments) -> bool:
    from .tracer import Tracer

    return any(isinstance(v, Tracer) for v in bound.arguments.values())


def _traced(function: Callable[..., Any], bound: inspect.BoundArguments, names: tuple[str, ...]) -> Any:
    from .gradients import gradients
    from .operands import Operand, as_operand
    from .tracer import Tracer

    operands = {n: as_operand(bound.arguments[n]) for n in names}
    for name, operand in operands.items():
        if operand.dtype.kind != "f":
            raise TraceError(f"value_and_grad: {name!r} is {operand.dtype}; only float values have gradients")
    # the function sees these very operands, so its value depends on their nodes
    arguments = dict(bound.arguments)
    arguments.update({n: Tracer(op) for n, op in operands.items()})
    value = as_operand(function(**arguments))
    if value.ndim != 0 or value.dtype.kind != "f":
        raise TraceError(
            f"value_and_grad: the function returns {value.node.type}; it must return a float scalar"
        )
    nodes = gradients(value.node, tuple(op.node for op in operands.values()))
    return Tracer(value), [Tracer(Operand(node)) for node in nodes]


def _differences(function: Callable[..., Any], bound: inspect.BoundArguments, names: tuple[str, ...]) -> Any:
    """Central differences in float64, element by element (outside a build only)."""
    arguments = dict(bound.arguments)
    value = function(**arguments)
    grads = []
    for name in names:
        given = np.asarray(arguments[name])
        x = np.array(given, dtype=np.float64)
        out = np.zeros(x.shape)
        flat, flat_out = x.reshape(-1), out.reshape(-1)
        for k in range(flat.size):
            saved = flat[k]
            step = 6e-6 * max(1.0, abs(saved))
            flat[k] = saved + step
            up = function(**{**arguments, name: x if x.ndim else x[()]})
            flat[k] = saved - step
            down = function(**{**arguments, name: x if x.ndim else x[()]})
            flat[k] = saved
            flat_out[k] = (up - down) / (2 * step)
        grads.append(out.astype(given.dtype) if out.ndim else given.dtype.type(out[()]))
    return value, grads
