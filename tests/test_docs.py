"""The docs stay true: README is a front page whose example builds and runs, every graphs.toml
key is documented, every graphs.toml in the docs parses, links resolve, and local folders in
commands are paths."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from aotbuild.config import load_config
from aotbuild.config.load import _GRAPH_KEYS, _PACKAGE_KEYS
from aotbuild.plugin.settings import KEYS as TOOL_KEYS

from .conftest import REPO

DOCS = sorted((REPO / "docs").glob("*.md"))
PAGES = [REPO / "README.md", *DOCS]


def blocks(path: Path, language: str) -> list[str]:
    """The fenced code blocks of ``language`` in a markdown file."""
    return re.findall(rf"^```{language}\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    start = text.index(heading + "\n")
    following = re.compile(rf"^#{{1,{level}}} ", re.M)
    after = following.search(text, start + len(heading) + 1)
    return text[start : after.start() if after else len(text)]


def test_the_readme_is_a_front_page() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text) <= 10_000, f"README.md is {len(text)} characters: move reference into docs/"
    for marker in ("<!-- main-command -->", "<!-- test-command -->"):
        after = text.split(marker + "\n", 1)[1].splitlines()
        assert after[0] == "```bash" and after[1].startswith("python3 -m venv .venv && "), marker
    for page in DOCS:
        assert f"(docs/{page.name})" in text, f"README links to {page.name}"


@pytest.mark.parametrize(
    ("table", "keys"), [("## `[package]`", _PACKAGE_KEYS), ("## `[graphs.NAME]`", _GRAPH_KEYS)]
)
def test_every_key_the_loader_accepts_is_documented(table: str, keys: tuple[str, ...]) -> None:
    text = section((REPO / "docs" / "graphs-toml.md").read_text(encoding="utf-8"), table)
    missing = [key for key in keys if f"| `{key}` |" not in text]
    assert missing == [], f"docs/graphs-toml.md, {table}: no row for {missing}"


def test_every_tool_aotbuild_key_is_documented() -> None:
    text = section((REPO / "docs" / "wheels.md").read_text(encoding="utf-8"), "## `[tool.aotbuild]`")
    assert [key for key in TOOL_KEYS if f"| `{key}` |" not in text] == []


def documented_graphs() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for index, text in enumerate(blocks(page, "toml")):
            if re.search(r"^\[package\]", text, re.M):
                found.append((f"{page.name}#{index}", text))
    return found


@pytest.mark.parametrize(("where", "text"), documented_graphs(), ids=[w for w, _ in documented_graphs()])
def test_every_graphs_toml_in_the_docs_parses(tmp_path: Path, where: str, text: str) -> None:
    path = tmp_path / "graphs.toml"
    path.write_text(text)
    project = load_config(path)
    assert project.graphs


def test_every_pyproject_in_the_docs_parses() -> None:
    import tomllib

    for page in PAGES:
        for text in blocks(page, "toml"):
            if "[package]" not in text:
                tomllib.loads(text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def test_links_between_pages_resolve() -> None:
    broken = []
    for page in PAGES:
        prose = re.sub(r"^```.*?^```|`[^`\n]*`", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+://", target):
                continue
            file, _, anchor = target.partition("#")
            linked = (page.parent / file).resolve() if file else page
            if not linked.exists():
                broken.append(f"{page.name}: {target}")
                continue
            if anchor:
                headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.M)
                if anchor not in {slug(h) for h in headings}:
                    broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_local_folders_in_commands_are_paths() -> None:
    """pip reads a bare name as a requirement and downloads it from the index."""
    bare = re.compile(r"\bpip[0-9.]* (?:wheel|install|download)(?: -[-a-zA-Z=]+)* ([a-zA-Z_][\w-]*)(?:\s|$)")
    wrong = []
    for page in PAGES:
        for line in page.read_text(encoding="utf-8").splitlines():
            for name in bare.findall(line):
                if name not in ("aotbuild", "pytensor"):
                    wrong.append(f"{page.name}: {line.strip()}")
    assert wrong == []


def test_the_readmes_first_package_builds_and_runs(tmp_path: Path) -> None:
    readme = REPO / "README.md"
    (model,) = [b for b in blocks(readme, "python") if "def normal_logp" in b]
    (graphs,) = [b for b in blocks(readme, "toml") if 'name = "stats_ext"' in b]
    (caller,) = [b for b in blocks(readme, "python") if "import stats_ext" in b]
    (command,) = [b.strip() for b in blocks(readme, "bash") if b.startswith("aotbuild compile")]
    (tmp_path / "model.py").write_text(model)
    (tmp_path / "graphs.toml").write_text(graphs)
    aotbuild = [sys.executable, "-m", "aotbuild"]
    done = subprocess.run(
        aotbuild + command.split()[1:], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    check = caller + "\nx = np.linspace(-2, 2, 1001)\nprint(stats_ext.normal_logp(x, 0.5, 2.0))\n"
    run = subprocess.run(
        [sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    x = __import__("numpy").linspace(-2, 2, 1001)
    namespace: dict[str, object] = {}
    exec(model, namespace)
    assert float(run.stdout) == pytest.approx(namespace["normal_logp"](x, 0.5, 2.0), rel=1e-12)
