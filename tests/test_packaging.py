"""What the repository promises: templates ship with the package, CI runs the README's command."""

from __future__ import annotations

import fnmatch
import re
import sys

from .conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_every_template_is_package_data() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"]["aotbuild.templates"] == "templates"
    patterns = config["package-data"]["aotbuild.templates"]
    for path in (REPO / "templates").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            relative = path.relative_to(REPO / "templates").as_posix()
            assert any(
                fnmatch.fnmatchcase(relative, p) and relative.count("/") == p.count("/") for p in patterns
            ), relative


def test_every_subpackage_is_listed() -> None:
    """Tests run from the checkout; only an installed aotbuild misses an unlisted subpackage."""
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(REPO).parts) for init in (REPO / "aotbuild").rglob("__init__.py")
    }
    assert found <= listed, sorted(found - listed)


def test_ci_runs_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text()
    commands = re.findall(r"<!-- (main|test)-command -->\n```(?:bash|sh)\n(.+?)\n```", readme)
    assert [kind for kind, _ in commands] == ["main", "test"]
    ci = (REPO / ".ci" / "run").read_text()
    assert "test-command" in ci  # .ci/run executes the command found under this marker
