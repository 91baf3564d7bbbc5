"""The C/C++ toolchain, through setuptools' compiler machinery (the one build_ext uses).

Python's own build flags add ``-g`` and, under pyenv and similar, an absolute ``-rpath``; both
put build-machine details into the shared object, so they are removed. Paths of sources are
mapped with ``-ffile-prefix-map`` so no absolute path reaches an object.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import setuptools  # noqa: F401  (provides the `distutils` package on every Python version)

from ..errors import LinkError

#: Flags for every C/C++ object of the extension.
COMMON_FLAGS = (
    "-O2",
    "-fPIC",
    "-fvisibility=hidden",
    "-ffunction-sections",
    "-fdata-sections",
    "-fno-strict-aliasing",
)


def numba_source_dir() -> Path:
    """Where numba's runtime C sources are (inside the installed numba package)."""
    import importlib.util

    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        raise LinkError("numba is not installed; it provides the runtime sources linked into packages")
    return Path(spec.origin).resolve().parent


def include_dirs() -> list[str]:
    import numpy as np

    numba_dir = numba_source_dir()
    return [
        str(numba_dir),
        str(numba_dir / "core" / "runtime"),
        np.get_include(),
        sysconfig.get_paths()["include"],
    ]


def _clean(command: list[str]) -> list[str]:
    cleaned = []
    for part in command:
        if part == "-g" or part.startswith("-g") and part[2:].isdigit():
            continue
        if part.startswith("-Wl,-rpath") or part.startswith("-Wl,-R"):
            continue
        cleaned.append(part)
    return cleaned


@dataclass
class Toolchain:
    """A configured compiler, and the fingerprint that goes into cache keys of its objects."""

    compiler: object

    @staticmethod
    def create() -> Toolchain:
        from distutils.ccompiler import new_compiler
        from distutils.sysconfig import customize_compiler

        compiler = new_compiler()
        customize_compiler(compiler)
        for attribute in compiler.executables:  # type: ignore[attr-defined]  # C, C++, linkers
            command = getattr(compiler, attribute, None)
            if isinstance(command, list):
                setattr(compiler, attribute, _clean(command))
        return Toolchain(compiler)

    @functools.cached_property
    def fingerprint(self) -> str:
        """What the compiler and its flags are: objects built differently never mix."""
        parts = [sys.version, sysconfig.get_config_var("EXT_SUFFIX") or ""]
        executables = sorted(self.compiler.executables)  # type: ignore[attr-defined]
        parts += [" ".join(getattr(self.compiler, a, None) or []) for a in executables]
        parts += COMMON_FLAGS
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def compile(
        self,
        source: Path,
        output_dir: Path,
        *,
        extra: list[str] | None = None,
        prefix_maps: dict[Path, str] | None = None,
        headers: Path | None = None,
    ) -> Path:
        """Compile one C or C++ source into ``output_dir``; returns the object's path.
        ``headers``: a folder of generated headers it includes."""
        from distutils.errors import CompileError as DistutilsCompileError

        flags = list(COMMON_FLAGS) + (extra or [])
        for path, replacement in (prefix_maps or {}).items():
            flags.append(f"-ffile-prefix-map={path}={replacement}")
        # No chdir (several sources compile at once, in threads): -ffile-prefix-map keeps the
        # absolute source path out of the object.
        try:
            objects = self.compiler.compile(  # type: ignore[attr-defined]
                [str(source.resolve())],
                output_dir=str(output_dir),
                include_dirs=[*include_dirs(), *([str(headers)] if headers else [])],
                extra_postargs=flags,
            )
        except DistutilsCompileError as exc:
            raise LinkError(f"compiling {source.name} failed: {exc}") from None
        return (output_dir / objects[0]) if not os.path.isabs(objects[0]) else Path(objects[0])

    @functools.cached_property
    def is_gcc(self) -> bool:
        """Whether the C compiler is GCC (clang also defines ``__GNUC__``, and reads no GCC
        precompiled headers)."""
        command = self.compiler.compiler_so  # type: ignore[attr-defined]
        try:
            done = subprocess.run(
                [*command[:1], "-dM", "-E", "-x", "c", os.devnull],
                capture_output=True,
                text=True,
                check=False,
                timeout=30,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0 and "__GNUC__" in done.stdout and "__clang__" not in done.stdout

    def precompile_header(self, header: Path) -> bool:
        """Compile ``header`` into ``<header>.gch`` beside it, with the flags every source is
        compiled with (GCC then reads it instead of the header wherever a source includes the
        header first, and reads the header itself where the two would differ); whether it did."""
        from distutils.ccompiler import gen_preprocess_options

        output = header.with_name(header.name + ".gch")
        command = [
            *self.compiler.compiler_so,  # type: ignore[attr-defined]
            *gen_preprocess_options([], [*include_dirs(), str(header.parent)]),
            "-x",
            "c-header",
            str(header),
            "-o",
            str(output),
            *COMMON_FLAGS,
        ]
        try:
            made = subprocess.run(command, capture_output=True, check=False, timeout=300).returncode == 0
        except (OSError, subprocess.SubprocessError):
            made = False
        if not made:  # nothing half-written for GCC to read: the sources read the header itself
            output.unlink(missing_ok=True)
        return made

    def link(self, objects: list[Path], output: Path) -> None:
        """Link ``objects`` into the shared object ``output`` (unused sections dropped)."""
        from distutils.errors import LinkError as DistutilsLinkError

        try:
            self.compiler.link_shared_object(  # type: ignore[attr-defined]
                [str(o) for o in objects],
                str(output),
                target_lang="c++",
                extra_postargs=["-Wl,--gc-sections", "-Wl,--as-needed", "-pthread"],
            )
        except DistutilsLinkError as exc:
            raise LinkError(f"linking {output.name} failed: {exc}") from None
