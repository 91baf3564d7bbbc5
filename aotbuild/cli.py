"""The command line: ``aotbuild compile PATH [--out DIR] [--target CPU] [-v]``.

Exit codes: 0 built, 1 the build failed (a clear one-line message; the traceback only with
``-v``), 2 the command line was wrong.
"""

from __future__ import annotations

import argparse
import sys
import traceback

from . import __version__
from .config.model import TARGETS
from .errors import AotBuildError
from .progress import Progress

EXIT_OK, EXIT_BUILD_ERROR, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aotbuild",
        description="Ahead-of-time compile NumPy graphs and numba kernels into an importable package.",
    )
    parser.add_argument("--version", action="version", version=f"aotbuild {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    compile_ = commands.add_parser(
        "compile",
        help="build the package a graphs.toml declares",
        description="Trace, generate, compile and link the graphs declared in PATH into a package.",
    )
    compile_.add_argument("path", metavar="PATH", help="a graphs.toml, or the folder holding one")
    compile_.add_argument(
        "--out", metavar="DIR", help="write the package to DIR (overrides [package] out_dir)"
    )
    compile_.add_argument(
        "--target", metavar="CPU", choices=TARGETS, help=f"CPU target: {', '.join(TARGETS)}"
    )
    compile_.add_argument(
        "-v", "--verbose", action="store_true", help="one line per compiled Op; tracebacks on errors"
    )
    compile_.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.command is None:
        parser.print_usage(sys.stderr)
        print("aotbuild: error: a command is required (try: aotbuild compile graphs.toml)", file=sys.stderr)
        return EXIT_USAGE
    from .build import build

    progress = Progress(verbose=args.verbose, quiet=args.quiet)
    try:
        result = build(args.path, out_dir=args.out, target=args.target, progress=progress)
    except AotBuildError as exc:
        if args.verbose:
            traceback.print_exc()
        print(f"aotbuild: error: {exc}", file=sys.stderr)
        return EXIT_BUILD_ERROR
    except KeyboardInterrupt:
        print("aotbuild: interrupted; the previous package (if any) is unchanged", file=sys.stderr)
        return EXIT_BUILD_ERROR
    except Exception as exc:  # a bug in aotbuild: say so, keep the traceback for -v
        if args.verbose:
            traceback.print_exc()
        print(
            f"aotbuild: internal error: {type(exc).__name__}: {exc} (this is a bug in aotbuild; "
            "rerun with -v for the traceback and report it)",
            file=sys.stderr,
        )
        return EXIT_BUILD_ERROR
    if not args.quiet:
        print(result.package_dir)
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
