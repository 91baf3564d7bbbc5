"""Callees before callers: the order generated code is written and linked in."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

Name = TypeVar("Name", bound=str)


def callees_first(roots: Iterable[Name], callees: Callable[[Name], Iterable[Name]]) -> list[Name]:
    """``roots`` and everything they call, each once, every name after the names it calls;
    roots taken in sorted order and callees in the order given, so the result is the same
    every build."""
    order: list[Name] = []
    seen: set[Name] = set()

    def visit(name: Name) -> None:
        if name in seen:
            return
        seen.add(name)
        for callee in callees(name):
            visit(callee)
        order.append(name)

    for name in sorted(set(roots)):
        visit(name)
    return order
