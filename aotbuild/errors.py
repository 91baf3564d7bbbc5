"""The exceptions aotbuild raises for bad input.

Every problem a user can cause is one of these, with a message that says what was wrong, where,
and what to do. The command line prints the message alone (the traceback only under ``-v``);
anything else escaping the pipeline is a bug in aotbuild.
"""

from __future__ import annotations


class AotBuildError(Exception):
    """Base class: a build failed because of its input, not because of a bug in aotbuild."""


class ConfigError(AotBuildError):
    """``graphs.toml`` is malformed, names something missing, or has a bad value."""


class SignatureError(ConfigError):
    """A signature string does not follow the grammar (see ``aotbuild.config.signature``)."""


class TraceError(AotBuildError):
    """A graph function could not be traced into Ops."""


class RunTimeValueError(TraceError):
    """Tracing stopped where Python needs a value known only at run time: ``if``/``while`` on a
    traced value, ``range()`` of one, ``int()``, iteration. ``mode = "auto"`` compiles such a
    function as a kernel instead."""

    stopped: str = ""
    """``file:line (`code`): what`` — where tracing stopped and on what (set by the driver)."""


class KernelError(AotBuildError):
    """A kernel (or a helper it calls) cannot be turned into a self-contained module."""


class CompileError(AotBuildError):
    """numba rejected a generated module; the message points at the module and line.

    ``file`` and ``line`` locate the failure (a generated module's name, or a kernel's source)
    until the build turns them into the message.
    """

    def __init__(self, message: str, file: str = "", line: int = 0) -> None:
        super().__init__(message)
        self.file = file
        self.line = line


class LinkError(AotBuildError):
    """The C compiler or linker failed, or the shared object misses a symbol."""


class OutputError(AotBuildError):
    """The build would replace or remove something aotbuild did not write (or cannot write)."""


class UsageError(AotBuildError):
    """The command line itself was wrong (exit code 2)."""


class AotBuildWarning(UserWarning):
    """Something went wrong that the build repaired by itself (a damaged cache entry rebuilt)."""
