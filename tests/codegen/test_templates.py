"""Compiled templates kept in the cache: loaded instead of compiled, compiled again when a template
changed or its file is damaged, and never a reason for a build to fail."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from aotbuild.codegen.templates import CompiledTemplates


def _environment(templates: Path, kept: Path) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)), bytecode_cache=CompiledTemplates(kept)
    )


def _never_compiles(env: jinja2.Environment, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("compiled a template the cache holds")

    monkeypatch.setattr(env, "compile", refuse)


def test_a_kept_template_is_loaded_not_compiled(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "op.j2").write_text("x = {{ value }}\n")
    first = _environment(tmp_path / "t", tmp_path / "kept")
    assert first.get_template("op.j2").render(value=1) == "x = 1"
    assert len(list((tmp_path / "kept").iterdir())) == 1
    second = _environment(tmp_path / "t", tmp_path / "kept")
    _never_compiles(second, monkeypatch)
    assert second.get_template("op.j2").render(value=2) == "x = 2"


def test_an_edited_template_is_compiled_again(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    template = tmp_path / "t" / "op.j2"
    template.write_text("x = {{ value }}\n")
    _environment(tmp_path / "t", tmp_path / "kept").get_template("op.j2")
    template.write_text("y = {{ value }}\n")
    assert _environment(tmp_path / "t", tmp_path / "kept").get_template("op.j2").render(value=3) == "y = 3"


def test_a_damaged_or_unwritable_cache_only_loses_the_saving(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "op.j2").write_text("x = {{ value }}\n")
    _environment(tmp_path / "t", tmp_path / "kept").get_template("op.j2")
    (kept,) = (tmp_path / "kept").iterdir()
    kept.write_bytes(kept.read_bytes()[:-20])  # truncated
    assert _environment(tmp_path / "t", tmp_path / "kept").get_template("op.j2").render(value=4) == "x = 4"
    (tmp_path / "a file").write_text("")
    unwritable = _environment(tmp_path / "t", tmp_path / "a file" / "kept")  # cannot be a folder
    assert unwritable.get_template("op.j2").render(value=5) == "x = 5"


def test_conditions_join_without_short_circuits_and_mean_what_and_means() -> None:
    """``all_of`` writes ``&`` (one block for numba, not one per operand): every comparison
    parenthesised (``&`` binds tighter than ``==``), names left bare, and the joined text true
    exactly where ``and`` would be, for every combination."""
    import itertools

    from aotbuild.codegen.templates import all_of

    assert all_of(["s0_0 == 1", "s1_0 == 1", "unit_rows"]) == "(s0_0 == 1) & (s1_0 == 1) & unit_rows"
    assert all_of(["x == 1"]) == "x == 1" and all_of([]) == ""
    terms = ["a == 1", "b == 1", "c"]
    for a, b, c in itertools.product([0, 1, 2], [0, 1], [False, True]):
        names = {"a": a, "b": b, "c": c}
        assert bool(eval(all_of(terms), names)) == all(eval(t, names) for t in terms)  # noqa: S307
