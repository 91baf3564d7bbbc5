"""Vector-Jacobian rules of elementwise Ops: NumPy's ufuncs and scipy.special's, each written as
``rule(g, out, *inputs)`` in traced NumPy, with broadcasting summed back by :func:`elementwise`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ...graph import Constant, Elementwise, Node
from ...graph.shapes import known_shape
from ..tracer import Tracer
from .common import Contributions, as_dtype, is_float, product, scalar, sum_to, traced


def keeps_scalar(node: Node) -> bool:
    """Whether ``node``'s rule takes a scalar cotangent standing for every element: an elementwise
    Op of one array (which has the result's shape) and scalars, whose contributions are then of
    that shape or scalars again."""
    arrays = sum(1 for i in node.inputs if getattr(i.type, "ndim", 0))
    return isinstance(node.op, Elementwise) and arrays == 1


class Quotient(NamedTuple):
    """A contribution ``numerator / divisor`` to the input ``divisor`` itself. Summed back over
    the axes that input was broadcast along, along which it is constant, it is
    ``sum(numerator) / divisor``: one division in all rather than one per element (for
    ``(y - mu) / sigma``, a third of the gradient's divisions)."""

    numerator: Tracer
    divisor: Tracer


def elementwise(rule: Callable[..., Contributions]) -> Callable[[Node, Tracer], Contributions]:
    def apply(node: Node, g: Tracer) -> Contributions:
        inputs = [traced(i) for i in node.inputs]
        out = traced(node)
        raw = rule(g, out, *inputs)
        arrays = sum(1 for i in node.inputs if getattr(i.type, "ndim", 0))
        every = g.ndim < out.ndim  # g stands for itself at every element (see keeps_scalar)

        def contribution(item: Node, c: Tracer | Quotient | None) -> Tracer | None:
            if c is None or not is_float(item):
                return None
            value = c.numerator if isinstance(c, Quotient) else c
            if every and value.ndim == 0 and item.type.ndim == 0:  # type: ignore[union-attr]
                value = value * _size(out)
            elif not (_same_shape(value, item, arrays) or (every and value.ndim == 0)):
                value = sum_to(value, item)
            return value / c.divisor if isinstance(c, Quotient) else value

        return tuple(contribution(i, c) for i, c in zip(node.inputs, raw, strict=True))

    return apply


def _size(x: Tracer) -> Any:
    """The number of elements of ``x``, as a float of its dtype (a sum of that many copies)."""
    return as_dtype(product(x.shape) * scalar(1.0, x), x.node)


def _same_shape(c: Tracer, item: Node, arrays: int) -> bool:
    """Whether a contribution of the result's shape has the shape of ``item`` already: ``item``
    is the only array among the inputs (scalars broadcast to it, nothing broadcasts it), as
    ``c`` is; a scalar ``c`` for a scalar ``item`` too; or both shapes are known to be one
    (fixed by constants, :func:`~aotbuild.graph.shapes.known_shape`)."""
    ndim = getattr(item.type, "ndim", 0)
    if (ndim == 0 and c.ndim == 0) or (arrays == 1 and ndim == c.ndim):
        return True
    known = known_shape(item)
    return bool(known) and None not in known and known == known_shape(c.node)


def _split_ties(g: Tracer, out: Tracer, x: Tracer, y: Tracer) -> Contributions:
    """maximum/minimum: the gradient goes to the chosen input, half to each on a tie (JAX)."""
    half = g * 0.5
    to_x = np.where(x == out, np.where(y == out, half, g), 0)
    to_y = np.where(y == out, np.where(x == out, half, g), 0)
    return to_x, to_y


def _power(g: Tracer, out: Tracer, x: Tracer, y: Tracer) -> Contributions:
    """``x ** y``: ``y x ** (y - 1)`` (``x`` itself for a constant 2), and ``out log(x)`` where
    ``x > 0`` (0 elsewhere)."""
    constant = y.node.op.value.array[()] if isinstance(y.node.op, Constant) and y.ndim == 0 else None
    less_one = x if constant == 2 else x ** (y - 1)
    return g * y * less_one, g * out * np.log(np.where(x > 0, x, 1))


LN2 = math.log(2.0)


LN10 = math.log(10.0)


ELEMENTWISE: dict[str, Callable[..., Contributions]] = {
    "add": lambda g, out, x, y: (g, g),
    "subtract": lambda g, out, x, y: (g, -g),
    "multiply": lambda g, out, x, y: (g * y, g * x),
    "divide": lambda g, out, x, y: (g / y, Quotient(-g * out, y)),
    "true_divide": lambda g, out, x, y: (g / y, Quotient(-g * out, y)),
    "negative": lambda g, out, x: (-g,),
    "positive": lambda g, out, x: (g,),
    "square": lambda g, out, x: (2 * x * g,),
    "reciprocal": lambda g, out, x: (-g * out * out,),
    "sqrt": lambda g, out, x: (g / (2 * out),),
    "cbrt": lambda g, out, x: (g / (3 * out * out),),
    "exp": lambda g, out, x: (g * out,),
    "exp2": lambda g, out, x: (g * out * LN2,),
    "expm1": lambda g, out, x: (g * (out + 1),),
    "log": lambda g, out, x: (g / x,),
    "log2": lambda g, out, x: (g / (x * LN2),),
    "log10": lambda g, out, x: (g / (x * LN10),),
    "log1p": lambda g, out, x: (g / (1 + x),),
    "sin": lambda g, out, x: (g * np.cos(x),),
    "cos": lambda g, out, x: (-g * np.sin(x),),
    "tan": lambda g, out, x: (g * (1 + out * out),),
    "arcsin": lambda g, out, x: (g / np.sqrt(1 - x * x),),
    "arccos": lambda g, out, x: (-g / np.sqrt(1 - x * x),),
    "arctan": lambda g, out, x: (g / (1 + x * x),),
    "sinh": lambda g, out, x: (g * np.cosh(x),),
    "cosh": lambda g, out, x: (g * np.sinh(x),),
    "tanh": lambda g, out, x: (g * (1 - out * out),),
    "arcsinh": lambda g, out, x: (g / np.sqrt(x * x + 1),),
    "arccosh": lambda g, out, x: (g / np.sqrt(x * x - 1),),
    "arctanh": lambda g, out, x: (g / (1 - x * x),),
    "absolute": lambda g, out, x: (g * np.sign(x),),
    "hypot": lambda g, out, x, y: (g * x / out, g * y / out),
    "arctan2": lambda g, out, y, x: (g * x / (x * x + y * y), -g * y / (x * x + y * y)),
    "logaddexp": lambda g, out, x, y: (g * np.exp(x - out), g * np.exp(y - out)),
    "power": _power,
    "float_power": _power,
    "maximum": _split_ties,
    "minimum": _split_ties,
    "fmax": _split_ties,
    "fmin": _split_ties,
    "where": lambda g, out, c, x, y: (None, np.where(c, g, 0), np.where(c, 0, g)),
    "cast": lambda g, out, x: (g,),
    "fabs": lambda g, out, x: (g * np.sign(x),),
    "logaddexp2": lambda g, out, x, y: (g * np.exp2(x - out), g * np.exp2(y - out)),
    "deg2rad": lambda g, out, x: (g * (math.pi / 180),),
    "radians": lambda g, out, x: (g * (math.pi / 180),),
    "rad2deg": lambda g, out, x: (g * (180 / math.pi),),
    "degrees": lambda g, out, x: (g * (180 / math.pi),),
    "fmod": lambda g, out, x, y: (g, -g * np.trunc(x / y)),
    "remainder": lambda g, out, x, y: (g, -g * np.floor(x / y)),
    "copysign": lambda g, out, x, y: (g * np.sign(x) * np.where(np.signbit(y), -1, 1), None),
    "conjugate": lambda g, out, x: (g,),  # of a real value: the value (complex carry none)
    # piecewise constant: no gradient
    **{fn: (lambda g, out, x: (None,)) for fn in ("sign", "floor", "ceil", "rint", "trunc")},
    "floor_divide": lambda g, out, x, y: (None, None),
}


def _special() -> Any:
    import scipy.special

    return scipy.special


SQRT_PI = math.sqrt(math.pi)


SQRT_2PI = math.sqrt(2.0 * math.pi)


def _trigamma(x: Tracer) -> Tracer:
    """``polygamma(1, x)``, the derivative of ``psi``, as traced NumPy: reflected below 1/2
    (``psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x)``), shifted up by six with the recurrence
    ``psi1(z) = 1/z^2 + psi1(z + 1)``, then the asymptotic series to the z^-15 term. Against
    SciPy's ``polygamma(1, x)``: relative error under 1e-13 for x > 0, 1e-10 below (the
    reflection cancels near the poles, where the value is huge rather than inf)."""
    reflect = x < 0.5
    z: Any = np.where(reflect, 1 - x, x)
    shifted: Any = 0
    for k in range(6):
        shifted = shifted + 1 / ((z + k) * (z + k))
    w = z + 6
    r = 1 / (w * w)
    bernoulli = 1 / 6 + r * (
        -1 / 30 + r * (1 / 42 + r * (-1 / 30 + r * (5 / 66 + r * (-691 / 2730 + r * 7 / 6))))
    )
    value = shifted + (1 + 0.5 / w + r * bernoulli) / w
    sine = np.sin(math.pi * x)
    return np.where(reflect, math.pi * math.pi / (sine * sine) - value, value)


SPECIAL: dict[str, Callable[..., Contributions]] = {
    "erf": lambda g, out, x: (g * (2 / SQRT_PI) * np.exp(-x * x),),
    "erfc": lambda g, out, x: (g * (-2 / SQRT_PI) * np.exp(-x * x),),
    "erfcx": lambda g, out, x: (g * (2 * x * out - 2 / SQRT_PI),),
    "erfinv": lambda g, out, x: (g * (SQRT_PI / 2) * np.exp(out * out),),
    "ndtr": lambda g, out, x: (g * np.exp(-0.5 * x * x) / SQRT_2PI,),
    "ndtri": lambda g, out, x: (g * SQRT_2PI * np.exp(0.5 * out * out),),
    "log_ndtr": lambda g, out, x: (g * np.exp(-0.5 * x * x - out) / SQRT_2PI,),
    "gammaln": lambda g, out, x: (g * _special().psi(x),),
    "psi": lambda g, out, x: (g * _trigamma(x),),
    "gamma": lambda g, out, x: (g * out * _special().psi(x),),
    "betaln": lambda g, out, a, b: (
        g * (_special().psi(a) - _special().psi(a + b)),
        g * (_special().psi(b) - _special().psi(a + b)),
    ),
    "expit": lambda g, out, x: (g * out * (1 - out),),
    "logit": lambda g, out, x: (g / (x * (1 - x)),),
    "log_expit": lambda g, out, x: (g * _special().expit(-x),),
    "xlogy": lambda g, out, x, y: (g * np.log(y), np.where(x == 0, 0, g * x / y)),
    "xlog1py": lambda g, out, x, y: (g * np.log1p(y), np.where(x == 0, 0, g * x / (1 + y))),
    "entr": lambda g, out, x: (-g * (np.log(x) + 1),),
    "rel_entr": lambda g, out, x, y: (g * (np.log(x / y) + 1), -g * x / y),
    "i0e": lambda g, out, x: (g * (_special().i1e(x) - np.sign(x) * out),),
    "i1e": lambda g, out, x: (
        g * np.where(x == 0, 0.5, _special().i0e(x) - out * (np.sign(x) + 1 / np.where(x == 0, 1, x))),
    ),
}
