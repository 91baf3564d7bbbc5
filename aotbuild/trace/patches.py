"""Python and NumPy callables that tracers cannot reach through NumPy's protocols.

``len()`` must return a Python int, and ``np.zeros``, ``np.arange``, ``np.eye``, ``np.array``...
are C functions that convert their arguments instead of dispatching to ``__array_function__``
(``np.linspace`` dispatches on ``start`` and ``stop`` only): given a size computed from a traced
array they would call ``__index__`` on it. While a graph is
traced (and only then), these names are routed to aotbuild's versions, which defer to the
originals whenever no traced value is involved.
"""

from __future__ import annotations

import builtins
import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np


def involves_tracer(value: Any) -> bool:
    """Whether ``value`` is a tracer, or a list or tuple with one somewhere inside."""
    from .tracer import Tracer

    if isinstance(value, Tracer):
        return True
    if isinstance(value, (list, tuple)):
        return any(involves_tracer(item) for item in value)
    return False


def _routed(original: Callable[..., Any], traced: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if involves_tracer(args) or involves_tracer(tuple(kwargs.values())):
            return traced(*args, **kwargs)
        return original(*args, **kwargs)

    call.__name__ = getattr(original, "__name__", "routed")
    call.__doc__ = getattr(original, "__doc__", None)
    call.__wrapped__ = original  # type: ignore[attr-defined]
    return call


def _traced_versions() -> dict[str, Callable[..., Any]]:
    from . import creation
    from .movement import array_operand, stack
    from .tracer import Tracer
    from .ufuncs import apply_cast, copy

    def filled(kind: str) -> Callable[..., Any]:
        def make(shape: Any, dtype: Any = None, order: Any = "C") -> Tracer:
            return Tracer(creation.filled(kind, shape, dtype, order=order))

        return make

    def full(shape: Any, fill_value: Any, dtype: Any = None, order: Any = "C") -> Tracer:
        return Tracer(creation.filled("full", shape, dtype, fill_value, order))

    def array(value: Any, dtype: Any = None, *, copy_values: bool = True, **kwargs: Any) -> Tracer:
        if kwargs:
            raise TypeError(f"np.array(..., {next(iter(kwargs))}=...) is not supported while tracing")
        if isinstance(value, Tracer):
            result = value.operand if not copy_values else copy(value.operand)
        elif isinstance(value, (list, tuple)) and any(isinstance(item, (list, tuple)) for item in value):
            result = stack([array(item, copy_values=False).operand for item in value])
        else:
            result = array_operand(list(value))
        return Tracer(apply_cast(result, dtype) if dtype is not None else result)

    return {
        "zeros": filled("zeros"),
        "ones": filled("ones"),
        "empty": filled("empty"),
        "full": full,
        "arange": lambda *args, **kwargs: Tracer(creation.arange(*args, **kwargs)),
        "eye": lambda *args, **kwargs: Tracer(creation.eye(*args, **kwargs)),
        "identity": lambda n, dtype=float: Tracer(creation.eye(n, None, 0, dtype)),
        # dispatches on start and stop only: a traced num would not reach the tracer
        "linspace": lambda *args, **kwargs: Tracer(creation.linspace(*args, **kwargs)),
        "array": array,
        "asarray": lambda value, dtype=None: array(value, dtype, copy_values=False),
    }


def _replacements() -> dict[tuple[Any, str], Callable[..., Any]]:
    """What to patch while tracing: ``(namespace, name)`` and its traced version."""
    from .scalar_builtins import routed_functions
    from .tracer import traced_len

    # len() is called everywhere: the traced version tells tracers apart itself.
    replacements: dict[tuple[Any, str], Callable[..., Any]] = {(builtins, "len"): traced_len}
    replacements.update(routed_functions())  # max, min, round, math.*: defer unless traced
    for name, traced in _traced_versions().items():
        replacements[np, name] = _routed(getattr(np, name), traced)
    replacements.update(_special_functions())
    return replacements


def _special_functions() -> dict[tuple[Any, str], Callable[..., Any]]:
    """scipy.special's logsumexp, softmax and log_softmax (NumPy code that tracers cannot run:
    SciPy's array-API layer iterates over its arguments), wherever a loaded module holds them
    (``from scipy.special import logsumexp as lse`` too), routed to their traced versions."""
    special = sys.modules.get("scipy.special")
    if special is None:  # not imported: no user code can hold them
        return {}
    from .special import TRACED_FUNCTIONS

    routed: dict[int, tuple[Any, Callable[..., Any]]] = {}
    for name, traced in TRACED_FUNCTIONS.items():
        original = getattr(special, name)
        routed[id(original)] = (original, _routed(original, traced))
    replacements: dict[tuple[Any, str], Callable[..., Any]] = {}
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            found = routed.get(id(value))
            if found is not None and found[0] is value:
                replacements[module, key] = found[1]
    return replacements


@contextlib.contextmanager
def tracing_patches() -> Iterator[None]:
    """Route ``len`` and NumPy's array constructors to their traced versions for a while."""
    replacements = _replacements()
    originals = {(namespace, name): getattr(namespace, name) for namespace, name in replacements}
    try:
        for (namespace, name), replacement in replacements.items():
            setattr(namespace, name, replacement)
        yield
    finally:
        for (namespace, name), original in originals.items():
            setattr(namespace, name, original)
