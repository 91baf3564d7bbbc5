"""graphs.toml validation: every mistake is one line naming the file, the table and the key."""

from pathlib import Path

import pytest

from aotbuild.config import load_config
from aotbuild.errors import ConfigError

GOOD = """
[package]
name = "demo"

[graphs.f]
function = "model:f"
signature = "float64(float64[:])"
"""


UFUNC = """
[package]
name = "demo"

[graphs.u]
function = "model:u"
ufunc = true
signature = ["float32(float32, float32)", "float64(float64, float64)"]
"""


GUFUNC = """
[package]
name = "demo"

[graphs.g]
function = "model:g"
gufunc = "(n),(n)->()"
signature = ["void(float64[:], float64[:], float64[:])"]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "graphs.toml"
    path.write_text(text)
    return path


def test_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.package.name == "demo"
    assert config.package.version == "0.1.0"
    assert config.package.target == "generic"
    assert config.out_dir == (tmp_path / "build").resolve()
    (graph,) = config.graphs
    assert (graph.name, graph.function, graph.mode, graph.nogil) == ("f", "model:f", "auto", False)


def test_a_ufunc_keeps_its_signatures_in_the_declared_order(tmp_path: Path) -> None:
    (graph,) = load_config(write(tmp_path, UFUNC + "identity = 'reorderable'\n")).graphs
    assert graph.ufunc and graph.identity == "reorderable"
    assert graph.signature_texts == ("float32(float32, float32)", "float64(float64, float64)")
    assert [str(s) for s in graph.signatures] == list(graph.signature_texts)
    assert graph.signature == graph.signatures[0]


def test_folder_means_its_graphs_toml(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    assert load_config(tmp_path).package.name == "demo"


def test_command_line_overrides(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD), out_dir="elsewhere", target="host")
    assert config.package.out_dir == "elsewhere"
    assert config.package.target == "host"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD.replace('name = "demo"', ""), "[package] missing required key 'name'"),
        (GOOD + "nogil = 1\n", "[graphs.f] nogil: expected true or false, got 1"),
        (
            GOOD + "sigature = 'x'\n",
            "[graphs.f] unknown key 'sigature' (expected one of: function, signature, mode, nogil, fastmath, out, cast, grad, parallel, ufunc, identity, gufunc); did you mean 'signature'?",
        ),
        (GOOD.replace('name = "demo"', 'name = "demo"\ncolour = "red"'), "[package] unknown key 'colour'"),
        (
            GOOD.replace("float64(float64[:])", "float64(float64[:)"),
            "[graphs.f] signature: 'float64(float64[:)': at position 18: expected ',' or ']'",
        ),
        (
            GOOD.replace('"model:f"', '"model.f"'),
            "[graphs.f] function: expected 'module:function', got 'model.f'",
        ),
        (GOOD + 'mode = "jit"\n', "[graphs.f] mode: expected one of 'auto', 'trace', 'kernel', got 'jit'"),
        (
            GOOD.replace('name = "demo"', 'name = "my-package"'),
            "[package] name: package name 'my-package' is not a valid Python identifier",
        ),
        (
            GOOD.replace('name = "demo"', 'name = "demo"\ntarget = "skylake"'),
            "[package] target: unknown target 'skylake'",
        ),
        (
            GOOD.replace("[graphs.f]", "[graphs.manifest]"),
            "would shadow an attribute of the generated package",
        ),
        (GOOD.replace("[graphs.f]", "[graphs._f]"), "would shadow an attribute of the generated package"),
        (
            GOOD.replace("[graphs.f]", '[graphs."not valid"]'),
            "graph name 'not valid' is not a valid Python identifier",
        ),
        ("[package]\nname = 'demo'\n", "no graphs declared"),
        (GOOD + "[extra]\n", "unknown table or key 'extra'"),
        ("[package\n", "not valid TOML"),
        (GOOD.replace('function = "model:f"\n', ""), "[graphs.f] missing required key 'function'"),
        (GOOD.replace('name = "demo"', "name = 3"), "[package] name: expected a string, got int 3"),
        # ufuncs (docs/ufuncs.md)
        (UFUNC + "identity = 0\n", None),
        (GOOD + "identity = 0\n", "[graphs.f] identity: an identity is a ufunc's: add ufunc = true"),
        (UFUNC + "identity = 'one'\n", "[graphs.u] identity: expected a number or 'reorderable', got 'one'"),
        (UFUNC + "identity = nan\n", "[graphs.u] identity: NaN is no identity"),
        (GOOD + "ufunc = 1\n", "[graphs.f] ufunc: expected true or false, got 1"),
        (
            UFUNC.replace("float64(float64, float64)", "float64[:](float64[:], float64)"),
            "[graphs.u] signature: 'float64[:](float64[:], float64)': a ufunc's function is written on scalars",
        ),
        (
            UFUNC.replace('"float32(float32, float32)"', '"float32(float32)"'),
            "[graphs.u] signature: every signature of a ufunc takes the same number of arguments",
        ),
        (
            UFUNC.replace('"float32(float32, float32)"', '"float32(float64, float64)"'),
            "take the same argument types: NumPy would only ever run the first",
        ),
        (UFUNC + "out = true\n", "[graphs.u] out: is not a setting of a ufunc: NumPy's own out= works"),
        (UFUNC + "grad = ['x']\n", "[graphs.u] grad: is not a setting of a ufunc"),
        (UFUNC + 'mode = "kernel"\n', "[graphs.u] mode: a ufunc's loops are traced"),
        (UFUNC.replace("float64(float64, float64)", "float64()"), "a ufunc takes at least one argument"),
        (GOOD.replace('"float64(float64[:])"', '["float64(float64[:])", "float32(float32[:])"]'), None),
        (
            GOOD.replace('"float64(float64[:])"', '["float64(float64[:])", "float32(float32[:], float32)"]'),
            "[graphs.f] signature: every signature under one name takes the same number of arguments",
        ),
        (
            GOOD.replace('"float64(float64[:])"', '["float64(float64[:])", "float32(double[:])"]'),
            "[graphs.f] signature: 'float32(double[:])' and 'float64(float64[:])' take the same argument types",
        ),
        (
            GOOD.replace('"float64(float64[:])"', '["float64[:](float64[:])", "float32(float32[:])"]')
            + "out = true\n",
            "[graphs.f] out: out = true needs an array result to write into; 'float32(float32[:])' returns float32",
        ),
        (
            GOOD.replace('"float64(float64[:])"', "[]"),
            "[graphs.f] signature: expected a signature or a non-empty list",
        ),
        (GOOD.replace('"float64(float64[:])"', "[3]"), "[graphs.f] signature: expected a string, got int 3"),
        # gufuncs (docs/ufuncs.md)
        (GUFUNC, None),
        (
            GUFUNC.replace("(n),(n)->()", "(n),(n)"),
            "[graphs.g] gufunc: '(n),(n)': expected inputs, '->' and outputs",
        ),
        (
            GUFUNC.replace("(n),(n)->()", "(n,),(n)->()"),
            "[graphs.g] gufunc: '(n,),(n)->()': '(n,),(n)': expected",
        ),
        (
            GUFUNC.replace("(n),(n)->()", "(n),(n),(n)->()"),
            "declares 3 parameter(s) and the layout '(n),(n),(n)->()' 4 operands",
        ),
        (
            GUFUNC.replace("(n),(n)->()", "(n,m),(n)->()"),
            "input 0 (float64[:], core dimensions (n,m)): expected an array of 2 dimension(s)",
        ),
        (GUFUNC.replace("void(", "float64("), "a gufunc's function returns nothing (void)"),
        (
            GUFUNC.replace("float64[:], float64[:])", "float64[:], float64)"),
            "output 2 (float64, core dimensions ()): a scalar is an input",
        ),
        (GUFUNC.replace("void(float64[:],", "void(float64[::1],"), "declare any layout ('[:]')"),
        (GUFUNC + "ufunc = true\n", "[graphs.g] gufunc: a graph is a ufunc or a gufunc, not both"),
        (GUFUNC + "identity = 0\n", "[graphs.g] identity: is not a setting of a gufunc"),
        (GUFUNC + 'mode = "trace"\n', "[graphs.g] mode: a gufunc's function writes into its outputs"),
        (
            GUFUNC.replace('gufunc = "(n),(n)->()"', "gufunc = 3"),
            "[graphs.g] gufunc: expected a layout such as",
        ),
    ],
)
def test_errors(tmp_path: Path, text: str, expected: str | None) -> None:
    if expected is None:  # the case is valid
        load_config(write(tmp_path, text))
        return
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    message = str(info.value)
    assert expected in message
    assert "graphs.toml" in message
    assert "\n" not in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")


def test_unknown_target_on_the_command_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--target: unknown target 'pentium'"):
        load_config(write(tmp_path, GOOD), target="pentium")
