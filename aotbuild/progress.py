"""Progress on stderr: one line per pipeline stage, one per compiled Op under ``-v``."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, *, verbose: bool = False, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.verbose = verbose
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.perf_counter()
        self.stage_times: dict[str, float] = {}
        self._stage = ""
        self._stage_start = self.started

    def _write(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def begin(self, stage: str) -> None:
        self._stage = stage
        self._stage_start = time.perf_counter()

    def end(self, message: str) -> None:
        """Report the stage begun last, with how long it took."""
        elapsed = time.perf_counter() - self._stage_start
        self.stage_times[self._stage] = elapsed
        if not self.quiet:
            self._write(f"aotbuild: {self._stage:<8} {message} ({elapsed:.2f} s)")

    def detail(self, message: str) -> None:
        if self.verbose and not self.quiet:
            self._write(f"aotbuild:          {message}")

    @property
    def total(self) -> float:
        return time.perf_counter() - self.started
