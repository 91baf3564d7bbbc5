"""The setuptools plugin: `pip wheel` of a project with [tool.aotbuild] gives a platform wheel
holding the built package, which runs in a venv with NumPy alone (and SciPy, when the wheel
requires it); projects without the table are left alone.

Offline, as CI runs: wheels are built with ``--no-build-isolation --no-deps`` against the
aotbuild installed in this environment (the README's test command installs it), and installed
with ``--no-deps`` into a fresh venv whose only packages are this environment's NumPy and SciPy.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import aotbuild

from .conftest import REPO

EXAMPLE = REPO / "example_project"
SITE_PACKAGES = Path(sysconfig.get_paths()["purelib"])


def plugin_installed() -> bool:
    group = metadata.entry_points(group="setuptools.finalize_distribution_options")
    return any(entry.value.startswith("aotbuild.plugin") for entry in group)


@pytest.fixture(scope="module", autouse=True)
def _requires_the_installed_plugin() -> None:
    assert plugin_installed(), (
        "aotbuild is not installed in this environment, so setuptools cannot find its plugin: "
        "`pip install .` (the README's test command installs it)"
    )


def copy_project(source: Path, destination: Path) -> Path:
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    return destination


def pip(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=900,
    )


def pip_wheel(project: Path, dist: Path) -> subprocess.CompletedProcess[str]:
    return pip("wheel", str(project), "--no-build-isolation", "--no-deps", "--no-index", "-w", str(dist))


def documented_wheel_command() -> list[str]:
    """The command docs/wheels.md gives for the example's wheel (under ``<!-- wheel-command -->``)."""
    text = (REPO / "docs" / "wheels.md").read_text(encoding="utf-8")
    lines = text.split("<!-- wheel-command -->\n", 1)[1].splitlines()
    assert lines[0] == "```bash", "the wheel command is a bash block right under its marker"
    return shlex.split(lines[1])


@pytest.fixture(scope="module")
def example_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's wheel, built by the command docs/wheels.md gives, as written, run where
    ``./example_project`` is a copy of the example."""
    folder = tmp_path_factory.mktemp("wheel")
    copy_project(EXAMPLE, folder / "example_project")
    command = documented_wheel_command()
    assert command[0] == "pip"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pip", *command[1:]],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (folder / "dist").glob("*.whl")
    return wheel


def test_the_wheel_is_tagged_for_this_platform_and_python(example_wheel: Path) -> None:
    version = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert example_wheel.name == f"example_ext-0.1.0-{version}-{version}-{platform}.whl"
    with zipfile.ZipFile(example_wheel) as wheel:
        names = wheel.namelist()
        wheel_info = wheel.read("example_ext-0.1.0.dist-info/WHEEL").decode()
        metadata_text = wheel.read("example_ext-0.1.0.dist-info/METADATA").decode()
    assert "Root-Is-Purelib: false" in wheel_info
    assert {name.split("/")[0] for name in names} == {"example_ext", "example_ext-0.1.0.dist-info"}
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for name in (
        "__init__.py",
        "__init__.pyi",
        "manifest.json",
        "py.typed",
        "LICENSE.numba",
        f"_native{suffix}",
    ):
        assert f"example_ext/{name}" in names
    assert not [name for name in names if "/." in name], "no work folders in the wheel"
    assert not [name for name in names if "__pycache__" in name], "pip compiles the bytecode"
    assert "Requires-Dist: numpy>=2.0" in metadata_text


def venv_seeing(folder: Path, *paths: Path) -> Path:
    """A fresh venv without pip whose only packages are those in ``paths`` (a .pth file lists
    them, so nothing is downloaded); its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder / "venv")], check=True)
    python = folder / "venv" / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "seen.pth").write_text("".join(f"{path}\n" for path in paths))
    return python


def numpy_only_venv(folder: Path, with_scipy: bool) -> Path:
    """A venv whose only packages are this environment's NumPy (and SciPy), linked in."""
    shelf = folder / "numpy-only"
    shelf.mkdir()
    wanted = ("numpy", "scipy") if with_scipy else ("numpy",)
    for entry in SITE_PACKAGES.iterdir():
        if entry.name.split("-")[0].split(".")[0] in wanted:
            (shelf / entry.name).symlink_to(entry)
    return venv_seeing(folder, shelf)


def test_the_wheel_runs_the_example_in_a_numpy_only_venv(example_wheel: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(example_wheel) as wheel:
        requires = wheel.read("example_ext-0.1.0.dist-info/METADATA").decode()
    needs_scipy = "Requires-Dist: scipy" in requires
    manifest_linalg = json.loads(zipfile.ZipFile(example_wheel).read("example_ext/manifest.json"))["linalg"]
    assert needs_scipy == bool(manifest_linalg["graphs"]), (
        "SciPy is required if, and only if, a graph needs it"
    )
    python = numpy_only_venv(tmp_path, with_scipy=needs_scipy)
    done = pip("--python", str(python), "install", "--no-deps", "--no-index", str(example_wheel))
    assert done.returncode == 0, done.stdout + done.stderr
    scripts = tmp_path / "scripts"  # the example's modules and run.py, without any build folder
    scripts.mkdir()
    for path in EXAMPLE.glob("*.py"):
        shutil.copy(path, scripts / path.name)
    probe = subprocess.run(
        [str(python), "-c", "import numba"], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert probe.returncode != 0, "the venv must not have numba"
    run = subprocess.run(
        [str(python), str(scripts / "run.py")], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "all graphs match NumPy" in run.stdout
    assert f"(the package at {tmp_path / 'venv'}" in run.stdout


def test_the_sdist_carries_graphs_toml_and_the_modules_it_needs(tmp_path: Path) -> None:
    project = copy_project(EXAMPLE, tmp_path / "example_project")
    script = "from setuptools import build_meta; print(build_meta.build_sdist('dist'))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    with tarfile.open(project / "dist" / done.stdout.strip().splitlines()[-1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {
        "graphs.toml",
        "pyproject.toml",
        "stats.py",
        "images.py",
        "linalg.py",
        "mlp.py",
        "radon.py",
    } <= names


SMALL = """
[package]
name = "small_ext"

[graphs.scaled]
function = "model:scaled"
signature = "float64[:](float64[:], float64)"
{extra}
"""

MODEL = """
import numpy as np


def scaled(x, factor):
    return x * factor


def gram(m):
    return m @ m.T
"""

PYPROJECT = """
[build-system]
requires = ["setuptools>=68", "aotbuild"]
build-backend = "setuptools.build_meta"

[project]
name = "small-ext"
version = "0.1.0"
dependencies = [{dependencies}]

[tool.setuptools]
py-modules = []
{tool}
"""


def small_project(
    folder: Path, *, dependencies: str = '"numpy"', tool: str = "[tool.aotbuild]", extra: str = ""
) -> Path:
    folder.mkdir(parents=True)
    (folder / "graphs.toml").write_text(SMALL.format(extra=extra))
    (folder / "model.py").write_text(MODEL)
    (folder / "pyproject.toml").write_text(PYPROJECT.format(dependencies=dependencies, tool=tool))
    return folder


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"tool": '[tool.aotbuild]\ngraph = "graphs.toml"'},
            "[tool.aotbuild] unknown key 'graph' (expected one of: graphs, target, jobs, cache_url); did you mean 'graphs'?",
        ),
        (
            {"extra": '[graphs.broken]\nfunction = "model:scaled"\nsignature = "float64[:](float64[:]"'},
            "aotbuild: error: graphs.toml: [graphs.broken] signature:",
        ),
        ({"dependencies": ""}, 'the package needs NumPy at run time: add "numpy>='),
        (
            {"extra": '[graphs.gram]\nfunction = "model:gram"\nsignature = "float64[:, :](float64[:, :])"'},
            "graph(s) gram of graphs.toml use BLAS/LAPACK, which SciPy provides at run time: "
            'add "scipy" to [project] dependencies',
        ),
    ],
)
def test_a_bad_project_fails_with_the_clis_message(
    tmp_path: Path, options: dict[str, str], message: str
) -> None:
    done = pip_wheel(small_project(tmp_path / "small", **options), tmp_path / "dist")
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert message in output
    assert "Traceback" not in output
    assert not list((tmp_path / "dist").glob("*.whl")) if (tmp_path / "dist").exists() else True


PROBE = """
import sys
from setuptools.dist import Distribution
dist = Distribution({"name": "probe"})
print(sorted(name for name in dist.cmdclass if "aot" in name or name in ("build", "bdist_wheel", "install")))
print(sorted(name for name in sys.modules if name.split(".")[0] in ("numba", "llvmlite", "jinja2")))
print(sorted(name for name in sys.modules if name.startswith("aotbuild")))
"""


@pytest.mark.parametrize("tool", ["", "[tool.aotbuild]"])
def test_the_plugin_loads_nothing_heavy_and_touches_only_projects_that_use_it(
    tmp_path: Path, tool: str
) -> None:
    small_project(tmp_path / "p", tool=tool)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=tmp_path / "p", timeout=60
    )
    assert done.returncode == 0, done.stderr
    commands, heavy, loaded = (eval(line) for line in done.stdout.splitlines())
    assert heavy == []
    if tool:
        assert commands == ["bdist_wheel", "build", "build_aot", "install"]
    else:
        assert commands == [] and set(loaded) <= {"aotbuild", "aotbuild.plugin", "aotbuild.plugin.settings"}


def test_an_editable_install_builds_in_place_and_says_how_to_rebuild(tmp_path: Path) -> None:
    project = small_project(tmp_path / "small")
    # This environment's packages (setuptools, aotbuild's metadata and plugin entry point) and
    # the aotbuild under test (an editable install's finder is not run from a linked folder).
    python = venv_seeing(tmp_path, Path(aotbuild.__file__).resolve().parent.parent, SITE_PACKAGES)
    done = pip(
        "--python",
        str(python),
        "install",
        "--no-build-isolation",
        "--no-deps",
        "--no-index",
        "-e",
        str(project),
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert (project / "build" / "small_ext" / "manifest.json").is_file()
    env = {**os.environ, "PYTHONPATH": ""}
    probe = (
        "import numpy as np, small_ext; print(small_ext.__file__, small_ext.scaled(np.ones(3), 2.0).sum())"
    )
    run = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [str(project / "build" / "small_ext" / "__init__.py"), "6.0"]


def test_the_same_sources_give_a_byte_identical_wheel(tmp_path: Path) -> None:
    """Two builds in other folders, other processes, other hash seeds, the second with a cold
    object cache (every object compiled and linked again): the same wheel, byte for byte."""
    wheels = []
    for run, cache in (("first", os.environ["AOTBUILD_CACHE_DIR"]), ("second", str(tmp_path / "cold"))):
        project = small_project(tmp_path / run / "small")
        env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "AOTBUILD_CACHE_DIR": cache}
        env["PYTHONHASHSEED"] = "1" if run == "first" else "2"
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", str(project), "--no-build-isolation", "--no-deps"]
            + ["--no-index", "-w", str(tmp_path / run / "dist")],
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        (wheel,) = (tmp_path / run / "dist").glob("*.whl")
        wheels.append(wheel.read_bytes())
    if wheels[0] != wheels[1]:
        first, second = (zipfile.ZipFile(io.BytesIO(data)) for data in wheels)
        differ = [n for n in first.namelist() if first.read(n) != second.read(n)]
        raise AssertionError(f"the wheels differ in {differ or 'their zip metadata'}")


#: What a manylinux wheel's shared object may link against: the C library, libm, the dynamic
#: loader, libgcc/libstdc++ (numba's runtime is C++), and nothing else.
SYSTEM_LIBRARIES = re.compile(r"^(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+)\.so\.\d+$|^ld-linux")


def native_from(wheel: Path, folder: Path) -> Path:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.startswith("example_ext/_native")]
        return Path(archive.extract(name, folder))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF shared objects")
def test_the_shared_object_needs_only_libc_libm_and_python(example_wheel: Path, tmp_path: Path) -> None:
    native = native_from(example_wheel, tmp_path)
    listing = subprocess.run(
        ["nm", "-D", "--undefined-only", str(native)], capture_output=True, text=True, check=True
    ).stdout
    foreign = []
    for line in listing.splitlines():
        kind, symbol = line.split()[-2:]
        from_system = re.search(r"@(GLIBC|GLIBCXX|CXXABI|GCC)_[\d.]+$", symbol)
        from_python = symbol.startswith(("Py", "_Py"))  # NumPy's C API comes through a capsule
        if kind != "w" and not from_system and not from_python:
            foreign.append(symbol)
    assert foreign == []
    dynamic = subprocess.run(
        ["readelf", "-d", str(native)], capture_output=True, text=True, check=True
    ).stdout
    needed = re.findall(r"\(NEEDED\).*\[(.+)\]", dynamic)
    assert needed and all(SYSTEM_LIBRARIES.match(library) for library in needed), needed
    assert "RPATH" not in dynamic and "RUNPATH" not in dynamic


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="manylinux is Linux's")
def test_auditwheel_finds_a_manylinux_policy(example_wheel: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", str(example_wheel)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r'consistent with the\s+following platform tag: "manylinux_2_\d+_x86_64"', done.stdout)
