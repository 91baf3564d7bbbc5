"""A Ctrl-C swallowed by a finaliser is still seen by the build (aotbuild/interrupts.py)."""

from __future__ import annotations

import gc
import os
import signal
import sys
import time

import pytest

from aotbuild.interrupts import raise_if_interrupted, remembered_interrupts


class _InterruptedWhileFinalised:
    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here, inside __del__, where Python drops its exception


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the point of the test
def test_an_interrupt_swallowed_by_a_finaliser_is_raised_again() -> None:
    with remembered_interrupts():
        _InterruptedWhileFinalised()  # dropped at once: __del__ runs, the KeyboardInterrupt is lost
        gc.collect()
        with pytest.raises(KeyboardInterrupt):
            raise_if_interrupted()


def test_without_an_interrupt_nothing_is_raised_and_the_handler_is_restored() -> None:
    before = signal.getsignal(signal.SIGINT)
    with remembered_interrupts():
        raise_if_interrupted()
    assert signal.getsignal(signal.SIGINT) is before
    raise_if_interrupted()


def test_a_swallowed_interrupt_prints_no_traceback(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python reports an exception it drops (here, in a finaliser; in a build, often in one of
    llvmlite's ctypes callbacks) with a traceback on stderr; for the interrupt the user asked for,
    the build says one line instead. Other dropped exceptions are still reported."""

    class _Broken:
        def __del__(self) -> None:
            raise ValueError("reported")

    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)  # Python's, not pytest's
    with remembered_interrupts():
        _InterruptedWhileFinalised()
        gc.collect()
        _Broken()
        gc.collect()
        with pytest.raises(KeyboardInterrupt):
            raise_if_interrupted()
    err = capfd.readouterr().err
    assert "KeyboardInterrupt" not in err
    assert "ValueError: reported" in err
