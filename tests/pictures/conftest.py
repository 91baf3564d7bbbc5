"""Graphviz's ``dot`` and Chromium for the pictures' tests, installed from Debian's packages by
the tests' own set-up where they are missing (as on a fresh CI machine, where the tests run as
root): the pictures are laid out by ``dot``, and the HTML page is opened in a real browser.

Where they cannot be installed (not root, or no apt-get), or ``AOTBUILD_TESTS_NO_APT=1`` says
not to, the tests that need them are skipped with the command to run; where installing was tried
and failed, they fail.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

#: Program -> the Debian package that installs it.
PROGRAMS = {"dot": "graphviz", "chromium": "chromium"}


def _install(packages: list[str]) -> str:
    """apt-get install ``packages``; what went wrong, or "". apt waits for another apt holding
    its lock (the other pytest-xdist worker, or the machine's own updates) rather than failing."""
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    wait = ["-o", "DPkg::Lock::Timeout=600"]
    for command in (
        ["apt-get", *wait, "update", "-qq"],
        ["apt-get", *wait, "install", "-y", "-qq", *packages],
    ):
        done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=900)
        if done.returncode != 0:
            return f"`{' '.join(command)}` failed: {done.stderr.strip()[-2000:]}"
    return ""


@pytest.fixture(scope="session")
def debian_programs() -> dict[str, str]:
    """Where ``dot`` and ``chromium`` are, installing the missing ones once per session (one
    pytest-xdist worker at a time: the second finds them installed)."""
    with open(Path(tempfile.gettempdir()) / "aotbuild-tests-apt.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing = [name for name in PROGRAMS if shutil.which(name) is None]
        if missing:
            packages = [PROGRAMS[name] for name in missing]
            refused = os.environ.get("AOTBUILD_TESTS_NO_APT") == "1"
            if refused or os.geteuid() != 0 or shutil.which("apt-get") is None:
                pytest.skip(f"{', '.join(missing)} missing: run `sudo apt-get install {' '.join(packages)}`")
            failure = _install(packages)
            if failure:
                pytest.fail(f"installing {', '.join(packages)} for the pictures' tests: {failure}")
    return {name: str(shutil.which(name)) for name in PROGRAMS}


@pytest.fixture(scope="session")
def dot_program(debian_programs: dict[str, str]) -> str:
    return debian_programs["dot"]


@pytest.fixture(scope="session")
def chromium(debian_programs: dict[str, str]) -> str:
    return debian_programs["chromium"]


#: How the tests start Chromium: headless, as root (no sandbox), and without the background
#: connections that a closed network refuses.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def open_page(
    chromium: str, page: Path, folder: Path, size: tuple[int, int] = (1200, 800)
) -> tuple[str, list[str], Path]:
    """Open ``page`` in headless Chromium: the DOM after its scripts ran, what its console said
    (messages and uncaught errors), and a screenshot."""
    window = f"--window-size={size[0]},{size[1]}"
    url = page.resolve().as_uri()
    dom = subprocess.run(
        [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={folder / 'profile-dom'}",
            window,
            "--virtual-time-budget=3000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    screenshot = folder / f"{page.stem}.png"
    shot = subprocess.run(
        [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={folder / 'profile-shot'}",
            window,
            "--enable-logging=stderr",
            "--v=0",
            f"--screenshot={screenshot}",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    console = [line for line in shot.stderr.splitlines() if ":CONSOLE" in line]
    return dom.stdout, console, screenshot
