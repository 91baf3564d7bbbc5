"""The setuptools commands a project with ``[tool.aotbuild]`` gets.

``build_aot`` is a sub-command of ``build`` (setuptools' ``SubCommand`` protocol): it runs
:func:`aotbuild.build.build` on the project's graphs.toml and puts the package into the wheel's
files, or, for an editable install, builds it where graphs.toml says (as ``aotbuild compile``
does) and maps it for setuptools' editable finder. ``bdist_wheel`` tags the wheel for the platform
and Python version: the package holds a shared object built for both; ``install`` installs the
built files although setuptools sees no Python module in the project.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from setuptools import Command
from setuptools.command.build import build as setuptools_build
from setuptools.command.install import install as setuptools_install
from setuptools.errors import ExecError

from .settings import PluginSettings


class AotBuildError(ExecError):
    """A build of the graphs failed; setuptools prints ``error: <message>`` without a traceback."""


def add_commands(dist: Any, settings: PluginSettings) -> None:
    """``build_aot``, a ``build`` running it, and a platform-tagged ``bdist_wheel``: subclasses
    of the commands the project has (its own cmdclass, else setuptools')."""
    base_build = dist.cmdclass.get("build", setuptools_build)

    class build(base_build):  # type: ignore[valid-type, misc]
        sub_commands = [*base_build.sub_commands, ("build_aot", None)]

    class build_aot(BuildAot):
        pass

    base_install = dist.cmdclass.get("install", setuptools_install)

    class install(base_install):  # type: ignore[valid-type, misc]
        # install_lib runs only for projects with Python modules or C extensions; the package
        # built by build_aot is neither to setuptools, and is installed all the same.
        sub_commands = [
            (name, _always if name == "install_lib" else test) for name, test in base_install.sub_commands
        ]

        def finalize_options(self) -> None:
            super().finalize_options()
            # A shared object is platform-specific: platlib (the wheel's root), not purelib.
            self.install_lib = self.install_libbase = self.install_platlib

    build_aot.settings = settings
    dist.cmdclass["build"] = build
    dist.cmdclass["build_aot"] = build_aot
    dist.cmdclass["install"] = install
    dist.cmdclass["bdist_wheel"] = _platform_wheel(dist.cmdclass.get("bdist_wheel"))


def _always(command: object) -> bool:
    return True


def _platform_wheel(project_command: type | None) -> type:
    base: type
    if project_command is not None:
        base = project_command
    else:
        try:
            from setuptools.command.bdist_wheel import bdist_wheel as base  # type: ignore[no-redef]
        except ImportError:  # setuptools < 70.1: the wheel package's
            from wheel.bdist_wheel import bdist_wheel as base  # type: ignore[no-redef]

    class bdist_wheel(base):  # type: ignore[valid-type, misc]
        def finalize_options(self) -> None:
            super().finalize_options()
            self.root_is_pure = False  # cp311-cp311-linux_x86_64, not py3-none-any

    return bdist_wheel


class BuildAot(Command):
    """Build the project's aotbuild package (``[tool.aotbuild]`` in pyproject.toml)."""

    description = "compile the graphs of graphs.toml into the project's aotbuild package"
    user_options = [
        ("target=", None, "CPU target (overrides [tool.aotbuild] and graphs.toml)"),
        ("jobs=", "j", "compile workers (default: one per CPU)"),
    ]
    settings: PluginSettings

    def initialize_options(self) -> None:
        self.build_lib: str | None = None
        self.build_temp: str | None = None
        self.editable_mode = False
        self.target: str | tuple[str, ...] | None = None
        self.jobs: int | str | None = None

    def finalize_options(self) -> None:
        self.set_undefined_options("build", ("build_lib", "build_lib"), ("build_temp", "build_temp"))
        self.target = self.target or self.settings.target
        self.jobs = int(self.jobs) if self.jobs is not None else self.settings.jobs

    # -- SubCommand protocol ------------------------------------------------------------------
    def run(self) -> None:
        from .wheel import build_for_wheel

        try:
            built = build_for_wheel(
                self.settings.graphs,
                self.distribution,
                wheel_dir=None if self.editable_mode else Path(self.build_lib or "build/lib"),
                work_dir=Path(self.build_temp or "build/temp") / "aotbuild",
                target=self.target,
                jobs=self.jobs if isinstance(self.jobs, int) else None,
                cache_url=self.settings.cache_url,
            )
        except AotBuildError:  # the CLI's message, raised by build_for_wheel
            raise
        except Exception as exc:  # a bug in aotbuild: said as the CLI says it
            raise AotBuildError(
                f"aotbuild: internal error: {type(exc).__name__}: {exc} (this is a bug in aotbuild; "
                "`aotbuild compile -v` shows the traceback: please report it)"
            ) from exc
        self._outputs = built

    def get_source_files(self) -> list[str]:
        from .sources import project_sources

        return project_sources(self.settings.graphs)

    def get_outputs(self) -> list[str]:
        """The package's files in build_lib once built (setuptools asks again after ``run``)."""
        return [str(path) for path in getattr(self, "_outputs", [])]

    def get_output_mapping(self) -> dict[str, str]:
        return {}  # every file is generated: none is a copy of a source file
