"""Fused graphs compute what the Op-by-Op graphs compute, bit for bit, on random expressions.

hypothesis draws random elementwise expressions over 1–3 inputs of different dimensions and
dtypes (broadcasting against each other) and rolls of them, some of them reduced (sum, max,
mean over an axis or all); all of them go into one package built fused and one built with
``fuse=False``, whose results are compared on random inputs — equal bit for bit
(the same scalar operations run in the same order and dtypes) and close to NumPy's.
"""

from __future__ import annotations

import importlib
import sys
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aotbuild.build import build
from aotbuild.progress import Progress

from .conftest import spelled

#: The inputs: (name, dtype, shape); their shapes broadcast against each other.
INPUTS = (("x", "float64", (4, 5)), ("y", "float32", (5,)), ("z", "int64", (4, 1)))

BINARY = ("+", "-", "*", "/", "np.maximum", "np.minimum", "np.arctan2", "np.hypot", "//")
UNARY = ("np.sin", "np.exp", "np.sqrt(np.abs({}))", "-", "np.abs", "np.tanh", "np.square")
CONSTANTS = ("2.0", "0.5", "3", "np.float32(1.5)")
#: Leaves read at rolled positions: np.roll by constants joins the loop of its consumer.
ROLLS = (
    "np.roll(x, 2, axis=-1)",
    "np.roll(x, (-1, 3), axis=(0, 1))",
    "np.roll(y, 1)",
    "np.roll(z, 5, axis=0)",
)
#: Programs built with every draw: a roll joined into a loop, and a reduction fused with one (the
#: draw may reduce only vector math, which stays out of reductions).
ALWAYS = ("np.sum((x - np.roll(x, 2, axis=-1)) * z, axis=0)", "np.roll(x, (-1, 3), axis=(0, 1)) * y - x")


@st.composite
def expressions(draw, depth: int = 4) -> str:
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from([name for name, _, _ in INPUTS] + list(CONSTANTS) + list(ROLLS)))
    kind = draw(st.sampled_from(("unary", "binary", "binary", "where")))
    if kind == "unary":
        fn = draw(st.sampled_from(UNARY))
        inner = draw(expressions(depth - 1))
        return fn.format(inner) if "{}" in fn else f"{fn}({inner})"
    if kind == "where":
        a, b, c = (draw(expressions(depth - 1)) for _ in range(3))
        return f"np.where({a} > {b}, {a}, {c})"
    fn = draw(st.sampled_from(BINARY))
    a, b = draw(expressions(depth - 1)), draw(expressions(depth - 1))
    return f"{fn}({a}, {b})" if fn.startswith("np.") else f"({a} {fn} {b})"


REDUCTIONS = (
    "np.sum({})",
    "np.sum({}, axis=0)",
    "np.max({}, axis=-1, keepdims=True)",
    "np.mean({}, axis=-1)",
)


@st.composite
def programs(draw) -> str:
    """An expression, or a reduction of one (fused with it into one loop)."""
    source = draw(expressions())
    if draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(REDUCTIONS)).format(source)
    return source


def sample_inputs(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    values = []
    for _, dtype, shape in INPUTS:
        if dtype.startswith("int"):
            values.append(rng.integers(-5, 6, size=shape).astype(dtype))
        else:
            values.append(rng.normal(scale=3.0, size=shape).astype(dtype))
    return tuple(values)


def c_contiguous(value: np.ndarray) -> str:
    """The spelling of a C-contiguous array argument, ``float64[:, ::1]``: each graph then has
    one variant to build, not also one for any layout (fusion is the point here; layouts are
    test_contiguous's): the test took 76 s instead of 122."""
    spelling = spelled(value)
    return spelling[: -len(":]")] + "::1]" if spelling.endswith(":]") else spelling


def write_project(folder, package: str, sources: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    names = ", ".join(name for name, _, _ in INPUTS)
    module = ["import numpy as np", ""]
    graphs = [f'[package]\nname = "{package}"\n']
    args = sample_inputs(np.random.default_rng(0))
    namespace: dict = {"np": np}
    for i, source in enumerate(sources):
        module += [f"def e{i}({names}):", f"    return np.asarray({source})", ""]
        exec(f"def e{i}({names}):\n    return np.asarray({source})\n", namespace)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result = namespace[f"e{i}"](*args)
        signature = f"{spelled(result)}({', '.join(map(c_contiguous, args))})"
        graphs.append(f'[graphs.e{i}]\nfunction = "expressions:e{i}"\nsignature = "{signature}"\n')
    (folder / "expressions.py").write_text("\n".join(module))
    (folder / "graphs.toml").write_text("\n".join(graphs))


def useful(source: str) -> bool:
    """An expression with at least two array operations (something to fuse)."""
    return source.count("(") >= 2 and any(name in source for name, _, _ in INPUTS)


@settings(
    max_examples=1,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(st.lists(programs().filter(useful), min_size=28, max_size=28, unique=True))
def test_fused_and_unfused_agree_bit_for_bit(tmp_path_factory, sources: list[str]) -> None:
    sources = sources + [source for source in ALWAYS if source not in sources]
    folder = tmp_path_factory.mktemp("fusion")
    packages = {}
    for fuse in (True, False):
        name = "fused_ext" if fuse else "unfused_ext"
        write_project(folder / name, name, sources)
        out = folder / f"out-{name}"
        build(folder / name / "graphs.toml", out_dir=str(out), fuse=fuse, progress=Progress(quiet=True))
        sys.path.insert(0, str(out))
        packages[fuse] = importlib.import_module(name)
    manifest = packages[True].manifest()
    titles = [op["title"] for op in manifest["ops"].values()]
    assert any(title.startswith("fused ") for title in titles), "nothing was fused"
    assert any("(fused " in title for title in titles), "no reduction was fused"
    sys.path.insert(0, str(folder / "fused_ext"))
    import expressions

    for seed in range(3):
        args = sample_inputs(np.random.default_rng(seed))
        for i, source in enumerate(sources):
            fused = getattr(packages[True], f"e{i}")(*args)
            unfused = getattr(packages[False], f"e{i}")(*args)
            np.testing.assert_array_equal(fused, unfused, err_msg=source)
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                expected = getattr(expressions, f"e{i}")(*args)
            np.testing.assert_allclose(fused, expected, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=source)
