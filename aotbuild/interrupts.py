"""Ctrl-C that a build cannot lose.

Python turns SIGINT into a KeyboardInterrupt raised wherever the main thread happens to be. During a
compile that is often a finaliser (llvmlite frees its LLVM objects in ``__del__``), and an
exception raised in a finaliser is printed and discarded: the build went on and replaced the
package the user had just asked it to leave alone. So the command line remembers the signal as
well as raising it, and the build asks again where going on would cost the user something: as each
Op's object arrives, and before the new package replaces the old.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

_interrupted = threading.Event()


def _remember_and_raise(signum: int, frame: FrameType | None) -> None:
    _interrupted.set()
    raise KeyboardInterrupt


@contextmanager
def remembered_interrupts() -> Iterator[None]:
    """Within this block a Ctrl-C is remembered even when the KeyboardInterrupt it raises is
    swallowed; ``raise_if_interrupted`` raises it again. Main thread only (as signals are)."""
    _interrupted.clear()
    previous = signal.signal(signal.SIGINT, _remember_and_raise)
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _quiet_about_interrupts(previous_hook)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = previous_hook
        _interrupted.clear()


def _quiet_about_interrupts(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    """``sys.unraisablehook`` without the traceback Python prints for a KeyboardInterrupt it
    swallowed (in a finaliser, or in one of llvmlite's ctypes callbacks): the interrupt is
    remembered and raised again, and the user asked for it; any other report is printed."""

    def report(unraisable: Any) -> object:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and _interrupted.is_set():
            return None
        return hook(unraisable)

    return report


def raise_if_interrupted() -> None:
    """Raise the KeyboardInterrupt a finaliser swallowed, if there was one."""
    if _interrupted.is_set():
        raise KeyboardInterrupt
