"""Progress output: a live line on a terminal, plain lines in a log, nothing when quiet."""

from __future__ import annotations

import io

from aotbuild.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_stage(progress: Progress, compiled: int = 20, cached: int = 80) -> None:
    progress.begin("compile")
    progress.count_ops(compiled + cached, cached, 2)
    for number in range(compiled):
        progress.op_compiled(f"op {number}", 0.01)
    progress.end("done")


def test_terminal_gets_one_live_line_cleared_at_the_end() -> None:
    stream = Terminal()
    run_stage(Progress(stream=stream))
    text = stream.getvalue()
    assert "\r\x1b[Kaotbuild: compile  100/100 Ops (20 compiled, 80 cached, 2 workers)" in text
    assert text.count("\n") == 1 and text.endswith("aotbuild: compile  done (" + text.split("(")[-1])
    assert text.rsplit("\r\x1b[K", 1)[1].startswith("aotbuild: compile  done")


def test_log_gets_a_plain_line_per_tenth() -> None:
    stream = io.StringIO()
    run_stage(Progress(stream=stream))
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    counts = [line for line in lines if " Ops (" in line]
    assert counts[0].startswith("aotbuild: compile  80/100 Ops (0 compiled, 80 cached, 2 workers)")
    assert [line.split()[2] for line in counts[1:]] == ["90/100", "100/100"]
    assert lines[-1].startswith("aotbuild: compile  done")


def test_nothing_compiled_prints_no_count_in_a_log() -> None:
    stream = io.StringIO()
    run_stage(Progress(stream=stream), compiled=0)
    assert stream.getvalue().count("\n") == 1


def test_verbose_names_each_op_and_quiet_prints_nothing() -> None:
    stream = io.StringIO()
    run_stage(Progress(stream=stream, verbose=True), compiled=3, cached=0)
    assert [line.split()[1:3] for line in stream.getvalue().splitlines() if "(0.01 s)" in line] == [
        ["op", "0"],
        ["op", "1"],
        ["op", "2"],
    ]
    quiet = io.StringIO()
    run_stage(Progress(stream=quiet, quiet=True, verbose=True))
    assert quiet.getvalue() == ""
