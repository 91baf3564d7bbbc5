"""The command line: ``aotbuild compile PATH [options]`` and ``aotbuild cache info|clear``.

Exit codes: 0 built, 1 the build failed (a clear one-line message; the traceback only with
``-v``), 2 the command line was wrong.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import sys
import threading
import traceback
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from . import __version__
from .config.model import TARGETS
from .errors import AotBuildError, AotBuildWarning
from .exits import leave_now
from .interrupts import remembered_interrupts
from .progress import Progress

if TYPE_CHECKING:
    from .build import OpTiming

EXIT_OK, EXIT_BUILD_ERROR, EXIT_USAGE = 0, 1, 2
#: What shells and CI runners read as "interrupted by the user" (128 + SIGINT).
EXIT_INTERRUPTED = 130


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
        "-j",
        "--jobs",
        metavar="N",
        type=_positive,
        help="compile N Ops at a time in worker processes (default: the number of CPUs)",
    )
    compile_.add_argument(
        "--executor",
        metavar="URL",
        help="compile on a cluster instead: dask://HOST:PORT (a dask.distributed scheduler)",
    )
    compile_.add_argument(
        "--force",
        action="store_true",
        help="replace OUT/NAME even when it is not a package aotbuild built (its contents are lost)",
    )
    compile_.add_argument("--no-cache", action="store_true", help="neither read nor write the object cache")
    compile_.add_argument(
        "--no-fuse",
        action="store_true",
        help="compile every elementwise Op on its own, as traced (for debugging)",
    )
    compile_.add_argument(
        "--no-regions",
        action="store_true",
        help="leave kernels' array statements to numba, as written (for comparison and debugging)",
    )
    compile_.add_argument(
        "--profile",
        action="store_true",
        help="compile per-Op timers in: `with pkg.profile():` prints each graph's Ops and their times",
    )
    compile_.add_argument(
        "--timings", action="store_true", help="print the slowest Ops compiled by this build"
    )
    compile_.add_argument(
        "-v", "--verbose", action="store_true", help="one line per compiled Op; tracebacks on errors"
    )
    compile_.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    cache = commands.add_parser(
        "cache",
        help="see or empty the object cache",
        description=(
            "The object cache: $AOTBUILD_CACHE_DIR, else the user cache folder; at most "
            "$AOTBUILD_CACHE_SIZE bytes (e.g. 2G; default 1G), least recently used entries evicted."
        ),
    )
    cache.add_argument("action", choices=("info", "clear"), help="info: where and how large; clear: empty it")
    inspect = commands.add_parser(
        "inspect",
        help="show a built package's graphs, Op by Op, and the generated module of an Op",
        description="Read a built package (a folder, or an importable name) without importing it.",
    )
    inspect.add_argument(
        "package", metavar="PKG", nargs="?", help="the package folder, or its importable name"
    )
    inspect.add_argument(
        "--passes", action="store_true", help="list the graph rewrites, in the order they run"
    )
    inspect.add_argument("--graph", metavar="NAME", help="only this graph")
    inspect.add_argument("--op", metavar="SYMBOL", help="print the generated module of this Op")
    inspect.add_argument(
        "--format",
        choices=("svg", "dot", "html"),
        help="draw the --graph (or the --profile's time per Op) instead: svg and html need Graphviz's "
        "`dot` for a graph; html is one page that pans and zooms, offline (default: from -o's suffix)",
    )
    inspect.add_argument(
        "--profile",
        metavar="FILE",
        help="a profile saved by report.save(FILE): with --graph, colour its Ops by time; alone, bars of "
        "every graph's time per Op",
    )
    inspect.add_argument(
        "--contiguous",
        action="store_true",
        help="draw the --graph's variant for C-contiguous arrays (with --profile: the variant it timed)",
    )
    inspect.add_argument("-o", "--output", metavar="FILE", help="write the picture to FILE (default: stdout)")
    return parser


def _inspect_command(args: argparse.Namespace) -> int:
    from .inspect import describe_graphs, describe_passes, find_package, op_module

    if args.passes:
        print(describe_passes())
        return EXIT_OK
    if args.package is None:
        print(
            "aotbuild: error: inspect needs a package (a folder or an importable name), or --passes",
            file=sys.stderr,
        )
        return EXIT_USAGE
    package = find_package(args.package)
    if args.format or args.profile or args.output or args.contiguous:
        return _picture_command(package, args)
    print(op_module(package, args.op) if args.op else describe_graphs(package, args.graph))
    return EXIT_OK


def _picture_command(package: Path, args: argparse.Namespace) -> int:
    """``inspect --graph NAME --format svg|dot|html [-o FILE]``, ``inspect --profile FILE ...``."""
    from .files import atomic_write
    from .inspect import read_manifest
    from .pictures import FORMATS, draw_graph, draw_profile

    form = args.format or (Path(args.output).suffix.lstrip(".").lower() if args.output else "")
    form = "html" if form == "htm" else form
    if form not in FORMATS:
        print("aotbuild: error: give --format svg, dot or html (or -o FILE ending in one)", file=sys.stderr)
        return EXIT_USAGE
    if args.op:
        print("aotbuild: error: --op prints an Op's module; it has no picture", file=sys.stderr)
        return EXIT_USAGE
    manifest = read_manifest(package)
    profile = Path(args.profile) if args.profile else None
    if args.graph:
        text = draw_graph(package, manifest, args.graph, form, profile, args.contiguous)
    elif profile is not None:
        text = draw_profile(manifest, profile, form)
    else:
        print(
            "aotbuild: error: a picture is of one graph: give --graph NAME (or --profile FILE)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.output is None:
        try:
            sys.stdout.buffer.write(text.encode())  # UTF-8 whatever the locale: labels hold · × µ
            sys.stdout.flush()
        except BrokenPipeError:  # `| head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    output = Path(args.output)
    try:
        atomic_write(output, text.encode())
    except OSError as exc:
        print(f"aotbuild: error: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BUILD_ERROR
    print(f"aotbuild: wrote {output} ({len(text.encode()) / 1024:.0f} KB, {form})", file=sys.stderr)
    return EXIT_OK


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return value


def _cache_command(action: str) -> int:
    from .cache.location import cache_dir, human_size, size_cap
    from .cache.store import ObjectCache

    cache = ObjectCache(cache_dir())
    if action == "clear":
        freed = cache.clear()
        print(f"{cache.root}: emptied ({human_size(freed)} freed)")
        return EXIT_OK
    info = cache.info()
    print(f"location  {info.root}")
    print(f"entries   {info.entries}")
    print(f"size      {human_size(info.size)} of {human_size(size_cap())} (AOTBUILD_CACHE_SIZE)")
    if info.oldest_use is not None and info.newest_use is not None:
        print(f"used      {_when(info.oldest_use)} to {_when(info.newest_use)}")
    _print_store(cache.root)
    return EXIT_OK


def _print_store(root: Path) -> None:
    """The shared store configured now, and what the last build that used one did with it."""
    from .cache.location import human_size
    from .cache.remote import configured_url, last_stats, read_only

    url = configured_url()
    mode = " (read-only: AOTBUILD_CACHE_READ_ONLY)" if read_only() else ""
    print(f"shared    {url}{mode}" if url else "shared    none (AOTBUILD_CACHE_URL)")
    stats = last_stats(root)
    if stats is None:
        return
    print(
        f"last build with {stats.url}: {stats.hits} read ({human_size(stats.bytes_read)}), "
        f"{stats.misses} missing, {stats.damaged} damaged, {stats.written} written "
        f"({human_size(stats.bytes_written)})" + (" (read-only)" if stats.read_only else "")
    )
    if stats.unreachable:
        print(f"          left alone: {stats.unreachable}")


def _when(timestamp: float) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def _release_semaphores() -> None:
    """Run multiprocessing's own clean-up of the named semaphores the worker pool's queues made
    (their finalisers unlink them and tell the resource tracker), and nothing else of its exit
    (which would join workers that may be stopping too)."""
    import multiprocessing.util

    with contextlib.suppress(Exception):
        multiprocessing.util._run_finalizers(0)  # type: ignore[attr-defined]


def _print_timings(timings: tuple[OpTiming, ...], count: int = 10) -> None:
    if not timings:
        print("aotbuild: no Op was compiled (all came from the cache)", file=sys.stderr)
        return
    total = sum(timing.seconds for timing in timings)
    print(
        f"aotbuild: the slowest of {len(timings)} compiled Ops ({total:.1f} s of compile in all):",
        file=sys.stderr,
    )
    for timing in timings[:count]:
        print(f"  {timing.seconds:7.2f} s  {timing.symbol}  {timing.title}", file=sys.stderr)


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
    try:
        if args.command == "cache":
            return _cache_command(args.action)
        if args.command == "inspect":
            return _inspect_command(args)
        return _compile_command(args)
    except AotBuildError as exc:
        if getattr(args, "verbose", False):
            traceback.print_exc()
        print(f"aotbuild: error: {exc}", file=sys.stderr)
        return EXIT_BUILD_ERROR


def run() -> NoReturn:
    """The ``aotbuild`` command and ``python -m aotbuild``: :func:`main`, then exit without
    tearing the interpreter down. A build has imported numba, llvmlite, NumPy and SciPy and
    compiled; CPython's finalisation then garbage-collects and frees all of it, module by
    module: 0.5-0.65 s after a build of the radon model's 8 variants (about a tenth of it), and
    more than a nothing-changed rebuild's own work. Exit handlers still run (``atexit``, and
    with it ``weakref.finalize``: temporary folders, multiprocessing's clean-up), and output is
    flushed, as on a normal exit. While another thread of ours still runs (none should), the
    exit is the normal one, which waits for it."""
    code = main()
    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    leave_now(code)


def _show_warning(message: Warning | str, category: type[Warning], *_: object, **__: object) -> None:
    """aotbuild's own warnings as one line each, like its errors; others as Python shows them."""
    if issubclass(category, AotBuildWarning):
        print(f"aotbuild: warning: {message}", file=sys.stderr)
    else:
        print(warnings.formatwarning(message, category, "", 0).strip(), file=sys.stderr)


def _compile_command(args: argparse.Namespace) -> int:
    from .build import build

    progress = Progress(verbose=args.verbose, quiet=args.quiet)
    try:
        with warnings.catch_warnings(), remembered_interrupts():
            warnings.simplefilter("always", AotBuildWarning)
            warnings.showwarning = _show_warning
            result = build(
                args.path,
                out_dir=args.out,
                target=args.target,
                progress=progress,
                jobs=args.jobs,
                executor=args.executor,
                use_cache=not args.no_cache,
                profile=args.profile,
                fuse=not args.no_fuse,
                regions=not args.no_regions,
                force=args.force,
            )
    except AotBuildError as exc:
        if args.verbose:
            traceback.print_exc()
        print(f"aotbuild: error: {exc}", file=sys.stderr)
        return EXIT_BUILD_ERROR
    except KeyboardInterrupt:
        print("aotbuild: interrupted; the previous package (if any) is unchanged", file=sys.stderr)
        # The build cleaned up on the way out (staging folder, lock). What it leaves in memory —
        # a numba compile cut short inside LLVM — is not safe to finalise: leave at once, once
        # the worker pool's semaphores are released (else multiprocessing's resource tracker
        # reports them as leaked when it exits after us).
        _release_semaphores()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    except Exception as exc:  # a bug in aotbuild: say so, keep the traceback for -v
        if args.verbose:
            traceback.print_exc()
        print(
            f"aotbuild: internal error: {type(exc).__name__}: {exc} (this is a bug in aotbuild; "
            "rerun with -v for the traceback and report it)",
            file=sys.stderr,
        )
        return EXIT_BUILD_ERROR
    if args.timings:
        _print_timings(result.timings)
    if not args.quiet:
        print(result.package_dir)
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
