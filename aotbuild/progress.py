"""Progress on stderr: a line per pipeline stage, and a count of Ops while they compile.

On a terminal the count is one live line, redrawn as Ops finish and every half second (so the
elapsed time moves during a long compile); in a log it is a plain line at every tenth of the
way. ``-v`` adds a line per compiled Op; ``-q`` prints nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

_REDRAW_SECONDS = 0.5


class Progress:
    def __init__(self, *, verbose: bool = False, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.verbose = verbose
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.live = not quiet and _is_terminal(self.stream)
        self.started = time.perf_counter()
        self.stage_times: dict[str, float] = {}
        self._stage = ""
        self._stage_start = self.started
        self._lock = threading.Lock()
        self._count: _Count | None = None
        self._redraw: threading.Event | None = None

    def _write(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def begin(self, stage: str) -> None:
        self._stage = stage
        self._stage_start = time.perf_counter()

    def end(self, message: str) -> None:
        """Report the stage begun last, with how long it took."""
        self._stop_count()
        elapsed = time.perf_counter() - self._stage_start
        self.stage_times[self._stage] = elapsed
        if not self.quiet:
            self._write(f"aotbuild: {self._stage:<8} {message} ({elapsed:.2f} s)")

    def note(self, message: str) -> None:
        """A line under the stage just reported, shown unless quiet."""
        if not self.quiet:
            self._write(f"aotbuild:          {message}")

    def detail(self, message: str) -> None:
        if self.verbose and not self.quiet:
            with self._lock:
                self._clear_line()
                self._write(f"aotbuild:          {message}")
                self._draw()

    def count_ops(self, total: int, cached: int, workers: int, shared: int = 0) -> None:
        """Start counting: ``total`` Ops, ``cached`` of them already done (``shared`` of those
        from the store a fleet shares, :mod:`aotbuild.cache.remote`)."""
        self._count = _Count(total, cached, workers, time.perf_counter(), shared)
        if self.quiet:
            return
        if self.live:
            self._redraw = threading.Event()
            threading.Thread(target=self._redraw_until_stopped, args=(self._redraw,), daemon=True).start()
        elif total > cached:
            self._write(f"aotbuild: compile  {self._count.line()}")

    def op_compiled(self, title: str, seconds: float) -> None:
        count = self._count
        if count is None:
            return
        with self._lock:
            count.compiled += 1
        self.detail(f"{title}  ({seconds:.2f} s)")
        if self.quiet:
            return
        if self.live:
            with self._lock:
                self._draw()
        elif count.crossed_a_tenth():
            self._write(f"aotbuild: compile  {count.line()}")

    def _redraw_until_stopped(self, stop: threading.Event) -> None:
        while not stop.wait(_REDRAW_SECONDS):
            with self._lock:
                self._draw()

    def _draw(self) -> None:
        if self.live and self._count is not None:
            self.stream.write(f"\r\x1b[Kaotbuild: compile  {self._count.line()}")
            self.stream.flush()

    def _clear_line(self) -> None:
        if self.live and self._count is not None:
            self.stream.write("\r\x1b[K")

    def _stop_count(self) -> None:
        if self._redraw is not None:
            self._redraw.set()
            self._redraw = None
        with self._lock:
            self._clear_line()
            self._count = None

    @property
    def total(self) -> float:
        return time.perf_counter() - self.started


class _Count:
    def __init__(self, total: int, cached: int, workers: int, started: float, shared: int = 0) -> None:
        self.total = total
        self.cached = cached
        self.shared = shared
        self.workers = workers
        self.compiled = 0
        self.started = started
        self._tenths = cached * 10 // max(total, 1)

    def line(self) -> str:
        done = self.cached + self.compiled
        elapsed = time.perf_counter() - self.started
        where = f", {self.workers} workers" if self.workers > 1 else ""
        cached = (
            f"{self.cached - self.shared} cached, {self.shared} from the shared cache"
            if self.shared
            else f"{self.cached} cached"
        )
        return f"{done}/{self.total} Ops ({self.compiled} compiled, {cached}{where}) {elapsed:.1f} s"

    def crossed_a_tenth(self) -> bool:
        tenths = (self.cached + self.compiled) * 10 // max(self.total, 1)
        crossed, self._tenths = tenths > self._tenths, max(tenths, self._tenths)
        return crossed


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
