"""Kernel analysis: lifted globals, helpers found by typing, and clear refusals."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from aotbuild.config.signature import parse_signature
from aotbuild.errors import KernelError
from aotbuild.trace.kernels import KernelAnalyser

SOURCE = """
import math
import numpy as np
from numba import njit
from numpy import sqrt as square_root

SCALE = 2.5
TABLE = np.array([1.0, 2.0])
SETTINGS = {"a": 1, "b": 2.5}
OPTIONS = {"a": [1, 2]}


def helper(v):
    return v * SCALE


@njit
def jitted(v, w):
    return helper(v) + w


def kernel(x, n):
    total = 0.0
    for i in range(n):
        total += jitted(x[i], TABLE[0]) + square_root(math.fabs(x[i]))
    return total + helper(n)


def uses_module(x):
    m = mod  # a project module used other than as mod.attribute
    return np.sum(x) + m.helper(x)


def uses_dict(x):
    return x[0] + SETTINGS["a"]


def uses_list_dict(x):
    return x[0] + OPTIONS["a"][0]


def recursive(n):
    if n <= 0:
        return 0
    return recursive(n - 1) + 1


def ping(n):
    return 0 if n <= 0 else pong(n - 1)


def pong(n):
    return ping(n)


def runaway(n):
    return runaway(n - 1)


def scaled(v, k=2.0, shift=0):
    return v * k + shift


def square(v):
    return v * v


def apply(v, fn=square):
    return fn(v)


def with_defaults(x):
    return scaled(x[0]) + scaled(x[0], shift=1) + apply(x[1])


def keyword_only(v, *, k=1.0):
    return v * k


def calls_keyword_only(x):
    return keyword_only(x[0])


def passes_a_function(x):
    return apply(x[0], square)


def generator(x):
    return np.zeros(tuple(2 * s for s in x.shape))


def summed_generator(x):
    return sum(v * v for v in x)


def returns_list(x):
    return [x[0]]


@njit(parallel=True)
def parallel(x):
    return x.sum()


def imports_inside(x):
    import numpy as np
    import numpy.linalg
    from math import sqrt as root

    def norm(v):
        import numpy as np  # the same object: one name, one meaning

        return np.sqrt(np.sum(v * v))

    return np.sum(x) + root(2.0) + numpy.linalg.norm(x) + norm(x)


def fabs_of(v):
    from math import fabs; return fabs(v)  # noqa: E702


def calls_importing_helper(x):
    return fabs_of(x[0])


def import_rebound(x):
    import numpy as np
    np = x
    return np


def imports_differ(x, flag):
    if flag:
        import numpy as np
    else:
        import math as np
    return x


def import_shadows_global(x):
    def inner():
        import math as np
        return np.pi
    return np.sum(x) + inner()


def import_missing(x):
    import no_such_module_here
    return x


def class_inside(x):
    class Point:
        pass
    return x


def tuple_generator(a):
    out = np.empty_like(a)
    for pos in np.ndindex(a.shape):
        right = tuple(p + 1 for d, p in enumerate(pos))
        out[pos] = a[right]
    return out
"""


@pytest.fixture()
def module(tmp_path: Path, monkeypatch):
    name = f"kernel_source_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{name}.py").write_text(SOURCE)
    (tmp_path / "mod.py").write_text("def helper(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    loaded = importlib.import_module(name)
    loaded.mod = importlib.import_module("mod")
    yield loaded, tmp_path
    sys.modules.pop(name, None)


def analyse(module, function: str, signature: str):
    loaded, root = module
    return KernelAnalyser(root).kernel(getattr(loaded, function), parse_signature(signature))


def test_globals_are_lifted_and_helpers_found(module) -> None:
    unit = analyse(module, "kernel", "float64(float64[:], int64)")
    assert unit.origin == f"{module[0].__name__}.py:22"
    assert "import math" in unit.imports and "import numpy as np" in unit.imports
    assert "from numpy import sqrt as square_root" in unit.imports
    assert "TABLE = np.array([1.0, 2.0], dtype=np.float64)" in unit.constants
    helpers = dict(unit.helpers)
    assert set(helpers) == {"jitted", "helper"}
    (jitted,) = helpers["jitted"]
    assert str(jitted.signature) == "float64(float64, float64)"
    # jitted calls helper with a float; the kernel calls it with an int: two variants.
    assert str(dict(jitted.helpers)["helper"][0].signature) == "float64(float64)"
    assert [str(v.signature) for v in helpers["helper"]] == ["float64(int64)"]
    assert "SCALE = 2.5" in helpers["helper"][0].constants
    assert unit.source.startswith("def kernel(x, n):")


def test_declared_result_must_match(module) -> None:
    with pytest.raises(KernelError, match=r"returns float64, but its signature declares int64"):
        analyse(module, "kernel", "int64(float64[:], int64)")


def test_dicts_defaults_and_recursion_are_lifted(module) -> None:
    unit = analyse(module, "uses_dict", "float64(float64[:])")
    assert "SETTINGS = constant_dict({'a': 1, 'b': 2.5})" in unit.constants
    assert "from aotbuild.compile.constants import constant_dict" in unit.imports

    unit = analyse(module, "with_defaults", "float64(float64[:])")
    helpers = dict(unit.helpers)
    # scaled(x) and scaled(x, shift=1): both fill every parameter, one variant
    assert [str(v.signature) for v in helpers["scaled"]] == ["float64(float64, float64, int64)"]
    assert helpers["scaled"][0].parameters == "v, k=2.0, shift=0"
    (apply,) = helpers["apply"]
    assert str(apply.signature) == "float64(float64)" and apply.parameters == "v"  # fn compiled in
    assert [str(v.signature) for v in dict(apply.helpers)["square"]] == ["float64(float64)"]

    unit = analyse(module, "recursive", "int64(int64)")
    assert unit.calls_itself and not unit.helpers


@pytest.mark.parametrize(
    ("function", "signature", "message"),
    [
        (
            "uses_module",
            "float64(float64[:])",
            r"uses the module `mod` \(mod\) other than as `mod.function\(...\)` or `mod.CONSTANT`",
        ),
        (
            "uses_list_dict",
            "float64(float64[:])",
            r"uses the global `OPTIONS` \(dict\), which aotbuild cannot lift",
        ),
        (
            "ping",
            "int64(int64)",
            r"`kernel_source_\d+.ping` \(kernel_source_\d+.py:\d+\) calls itself through",
        ),
        (
            "runaway",
            "int64(int64)",
            r"calls itself, but none of its returns is reached without calling itself",
        ),
        ("calls_keyword_only", "float64(float64[:])", r"keyword_only` \(kernel_source_\d+.py:\d+\) takes"),
        (
            "passes_a_function",
            "float64(float64[:])",
            r"a function is passed to `fn` of `kernel_source_\d+.apply`",
        ),
        (
            "summed_generator",
            "float64(float64[:])",
            r"\(kernel_source_\d+.py:93\) uses a generator expression \(`... for v in x`\), .* use a list "
            r"comprehension or a loop",
        ),
        ("returns_list", "float64(float64[:])", r"returns list\(float64\)"),
        (
            "generator",
            "float64[:, :](float64[:, :])",
            r"\(kernel_source_\d+.py:89\) builds a tuple from a generator expression \(`tuple\(... for s in "
            r"x.shape\)`\)",
        ),
        (
            "tuple_generator",
            "float64[:, :](float64[:, :])",
            r"\(kernel_source_\d+.py:161\) builds a tuple from a generator expression \(`tuple\(... for d, p "
            r"in enumerate\(pos\)\)`\), .* write the tuple's items out, e.g. `\(f\(0, pos\[0\]\), f\(1, "
            r"pos\[1\]\)\)` for a 2-d array \(a list would not do as an index",
        ),
        (
            "import_rebound",
            "float64[:](float64[:])",
            r"\(kernel_source_\d+.py:128\) binds `np`, which it also imports",
        ),
        (
            "imports_differ",
            "float64(float64, boolean)",
            r"\(kernel_source_\d+.py:136\) imports `np` again as another",
        ),
        (
            "import_shadows_global",
            "float64(float64[:])",
            r"\(kernel_source_\d+.py:140\) imports `np` inside and also reads the module's `np`",
        ),
        (
            "import_missing",
            "float64(float64)",
            r"\(kernel_source_\d+.py:148\): `import no_such_module_here` fails here: No module named",
        ),
        ("class_inside", "float64(float64)", r"Use of unsupported opcode \(LOAD_BUILD_CLASS\)"),
    ],
)
def test_refusals(module, function: str, signature: str, message: str) -> None:
    with pytest.raises(KernelError, match=message):
        analyse(module, function, signature)


def test_imports_inside_are_lifted_into_the_module(module) -> None:
    """numba compiles no import inside a function: each becomes `pass` (lines keep their numbers)
    and an import of the kernel's module, in helpers too."""
    unit = analyse(module, "imports_inside", "float64(float64[:])")
    assert {"import numpy as np", "import numpy", "from math import sqrt as root"} <= set(unit.imports)
    lines = unit.source.splitlines()
    assert lines[1:4] == [
        "    pass  # lifted: import numpy as np",
        "    pass  # lifted: import numpy.linalg",
        "    pass  # lifted: from math import sqrt as root",
    ]
    assert "        pass  # lifted: import numpy as np  # the same object: one name, one meaning" in lines
    (helper,) = dict(analyse(module, "calls_importing_helper", "float64(float64[:])").helpers)["fabs_of"]
    assert "from math import fabs" in helper.imports
    assert helper.source.splitlines()[1] == "    pass; return fabs(v)  # noqa: E702"


def test_parallel_kernels_are_compiled_parallel(module) -> None:
    """@njit(parallel=True) is honoured (the package's own threads run it, tests/test_parallel.py);
    parallel = true on a graph asks the same of a kernel without the decorator."""
    assert analyse(module, "parallel", "float64(float64[:])").flags.parallel
    assert not analyse(module, "kernel", "float64(float64[:], int64)").flags.parallel
    loaded, root = module
    signature = parse_signature("float64(float64[:], int64)")
    assert KernelAnalyser(root).kernel(loaded.kernel, signature, parallel=True).flags.parallel


def test_modules_installed_in_any_site_packages_on_the_path_are_libraries(tmp_path, monkeypatch) -> None:
    """pip's isolated build environments install NumPy and numba into a site-packages of their
    own, on sys.path but not among sysconfig's folders: their modules are still libraries."""
    import importlib
    import sys

    from aotbuild.trace.lifting import _is_library_module

    site = tmp_path / "pip-build-env" / "overlay" / "lib" / "site-packages"
    (site / "isolated_lib").mkdir(parents=True)
    (site / "isolated_lib" / "__init__.py").write_text("")
    (tmp_path / "project").mkdir()
    monkeypatch.syspath_prepend(str(site))
    module = importlib.import_module("isolated_lib")
    assert _is_library_module(module, tmp_path / "project")
    monkeypatch.delitem(sys.modules, "isolated_lib")
