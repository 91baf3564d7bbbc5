"""Module-level dicts of constants in kernels: ``WEIGHTS = {"a": 1.5}``, read as ``WEIGHTS["a"]``.

numba cannot type a global dict, so a kernel's module lifts one as ``constant_dict({...})``: a
read-only mapping whose numba type carries its items. ``d["a"]`` with a constant key compiles to
the value itself (a missing key is a compile-time error naming it); a key known only at run time
is compared with each key in turn (the values must then share one type) and a missing one raises
``KeyError``. ``key in d`` and ``len(d)`` work too. Imported by generated modules only, at
compile time.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping
from typing import Any

from numba.core import cgutils, types
from numba.core.datamodel import models
from numba.core.errors import TypingError
from numba.core.imputils import lower_constant
from numba.extending import overload, register_model, typeof_impl


class ConstantDict(Mapping[Any, Any]):
    """A dict frozen for compiling: keys are strings or integers, values constants."""

    def __init__(self, items: dict[Any, Any]) -> None:
        for key in items:
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise TypeError(f"constant dict keys are strings or integers, not {type(key).__name__}")
        self._items = dict(items)

    def __getitem__(self, key: Any) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"constant_dict({self._items!r})"


def constant_dict(items: dict[Any, Any]) -> ConstantDict:
    """The module-level dict ``items``, as kernels read it."""
    return ConstantDict(items)


class ConstantDictType(types.Opaque):
    """numba's type of one :class:`ConstantDict`: its items are part of the type."""

    def __init__(self, value: ConstantDict) -> None:
        self.value = value
        super().__init__(name=f"ConstantDict({sorted(value.items(), key=repr)!r})")


register_model(ConstantDictType)(models.OpaqueModel)


@typeof_impl.register(ConstantDict)
def _typeof(value: ConstantDict, context: Any) -> ConstantDictType:
    return ConstantDictType(value)


@lower_constant(ConstantDictType)
def _constant(context: Any, builder: Any, ty: Any, pyval: Any) -> Any:
    return cgutils.get_null_value(context.get_value_type(ty))


def _literal_key(key: Any) -> tuple[bool, Any]:
    if isinstance(key, (types.StringLiteral, types.IntegerLiteral)):
        return True, key.literal_value
    return False, None


@overload(operator.getitem)
def _getitem(d, key):  # unannotated: numba compares its parameters with the implementation's
    if not isinstance(d, ConstantDictType):
        return None
    items = d.value
    known, literal = _literal_key(key)
    if known:
        if literal not in items:
            raise TypingError(f"KeyError: {literal!r} is not a key of {items!r}")
        value = items[literal]
        return lambda d, key: value
    return _by_comparison(items, "value", key)


@overload(operator.contains)
def _contains(d, key):  # unannotated, as _getitem
    if not isinstance(d, ConstantDictType):
        return None
    known, literal = _literal_key(key)
    if known:
        present = literal in d.value
        return lambda d, key: present
    return _by_comparison(d.value, "presence", key)


@overload(len)
def _len(d):  # unannotated, as _getitem
    if not isinstance(d, ConstantDictType):
        return None
    size = len(d.value)
    return lambda d: size


def _by_comparison(items: ConstantDict, answer: str, key: Any) -> Any:
    """``d[key]`` (``answer="value"``) or ``key in d`` (``"presence"``) for a run-time key:
    compared with each key of the right kind in turn."""
    kind = str if isinstance(key, types.UnicodeType) else int if isinstance(key, types.Integer) else None
    if kind is None:
        raise TypingError(f"constant dict keys are strings or integers; got a key of type {key}")
    lines = ["def lookup(d, key):"]
    namespace: dict[str, Any] = {}
    for index, (candidate, value) in enumerate(items.items()):
        if not isinstance(candidate, kind):
            continue
        namespace[f"key{index}"] = candidate
        namespace[f"value{index}"] = value
        result = f"value{index}" if answer == "value" else "True"
        lines.append(f"    if key == key{index}:\n        return {result}")
    if answer == "value":
        lines.append("    raise KeyError('key not found in a constant dict')")
    else:
        lines.append("    return False")
    exec("\n".join(lines), namespace)
    return namespace["lookup"]
