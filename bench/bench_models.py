"""The example project's models: the radon model of PyTensor's compilation benchmark, the MLP and
the image pipeline — build cost, cache size and per-call time against NumPy (and numba's JIT
where numba compiles the same code) in the same run; and an MLP training step
(bench/training_step.py) with its gradient derived by aotbuild, against the same step with the
gradient by hand in NumPy, numba's JIT and aotbuild, in interleaved rounds.

PyTensor is not installed in the dev venv (it pins an older numba), so its figures here are quoted
from ``../shared/RADON.md``, measured on a 2-core machine like this one, and marked so;
``bench_builds.py`` measures PyTensor itself, in a venv of its own, in the same run as aotbuild.
Run from the repository root:

    python bench/bench_models.py              # writes its table into BENCHMARKS.md
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from common import BENCH, REPO, measured_by, microseconds, python_json, write_section

RADON_GRAPHS = {
    "radon_logp": ("radon:logp", "float64(float64[:])"),
    "radon_logp_and_grad": ("radon:logp_and_grad", "Tuple(float64, float64[::1])(float64[:])"),
    # the same gradient, derived by aotbuild (grad = ["x"]) instead of written by hand
    "radon_grad": ("radon:logp", "float64(float64[:])", ["x"]),
}
VARIANTS = [
    f"{intercept}_{sigma}_{centering}"
    for intercept in ("normal", "lognormal")
    for sigma in ("halfnormal", "lognormal")
    for centering in ("noncentered", "centered")
]

#: A build in a new process: wall time, and the peak memory of aotbuild's process.
BUILD = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
subprocess.run({command!r}, check=True, capture_output=True, env={env!r})
seconds = time.perf_counter() - started
print(json.dumps({{"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}}))
"""


def project(work: Path, name: str, graphs: dict[str, tuple]) -> Path:
    """A copy of the example project declaring ``graphs``: name -> (function, signature[, grad])."""
    folder = work / name
    shutil.copytree(REPO / "example_project", folder, ignore=shutil.ignore_patterns("build", "__pycache__"))
    lines = [f'[package]\nname = "{name}_ext"\n']
    for graph, (function, signature, *grad) in graphs.items():
        lines.append(f'[graphs.{graph}]\nfunction = "{function}"\nsignature = "{signature}"\n')
        if grad:
            lines.append(f"grad = {grad[0]!r}\n".replace("'", '"'))
    (folder / "graphs.toml").write_text("\n".join(lines))
    return folder / "graphs.toml"


def build(graphs_toml: Path, cache: Path) -> dict[str, float]:
    import os

    command = [sys.executable, "-m", "aotbuild", "compile", str(graphs_toml), "-q"]
    env = {**os.environ, "AOTBUILD_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    return python_json(BUILD.format(command=command, env=env))


def training_package(work: Path) -> str:
    """bench/training_step.py's two steps built (``--target host``), for CALLS: the package's folder."""
    import training_step

    folder = work / "training"
    folder.mkdir()
    shutil.copy(BENCH / "training_step.py", folder)
    graphs = "".join(
        f'\n[graphs.{name}]\nfunction = "training_step:{name}"\nsignature = "{training_step.SIGNATURE}"\n'
        for name in ("step", "step_by_hand")
    )
    (folder / "graphs.toml").write_text(f'[package]\nname = "training_ext"\ntarget = "host"\n{graphs}')
    build(folder / "graphs.toml", work / "cache-training")
    return str(folder / "build")


def cache_size(cache: Path) -> tuple[int, int]:
    files = [p for p in cache.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def build_figures(work: Path) -> dict:
    radon = project(work, "radon", RADON_GRAPHS)
    cold = build(radon, work / "cache-radon")
    size, files = cache_size(work / "cache-radon")
    shutil.rmtree(radon.parent / "build")
    warm = build(radon, work / "cache-radon")  # a new package from a warm object cache
    variants = {f"radon_{v}": (f"radon:logp_{v}", "float64(float64[:])") for v in VARIANTS}
    eight = project(work, "variants", variants)
    eight_cold = build(eight, work / "cache-variants")
    # PyTensor's 22 s compile logp and gradient: the same, with grad = ["x"]
    with_grad = {name: (*graph, ["x"]) for name, graph in variants.items()}
    eight_grad_cold = build(project(work, "variants_grad", with_grad), work / "cache-variants-grad")
    native = next((radon.parent / "build" / "radon_ext").glob("_native*"))
    return {
        "cold": cold,
        "warm": warm,
        "cache_bytes": size,
        "cache_files": files,
        "eight_cold": eight_cold["seconds"],
        "eight_grad_cold": eight_grad_cold["seconds"],
        "native_bytes": native.stat().st_size,
        "package_dir": str(radon.parent / "build"),
    }


IMPORT = """
import json, sys, time
sys.modules["numba"] = None; sys.modules["llvmlite"] = None
sys.path.insert(0, {path!r})
import numpy as np
started = time.perf_counter()
import radon_ext
imported = time.perf_counter() - started
x = np.random.default_rng(1).normal(size=173)
started = time.perf_counter()
radon_ext.radon_logp_and_grad(x)
print(json.dumps({{"import": imported, "first_call": time.perf_counter() - started}}))
"""

CALLS = """
import json, sys, time, timeit
sys.path[:0] = [{radon_package!r}, {example_package!r}, {training_package!r}, {example!r}, {bench!r}]
import numpy as np
import radon_ext, example_ext, training_ext
import images, mlp, radon
import numba_models, training_step

def best(function, *args, number):
    function(*args)
    return min(timeit.repeat(lambda: function(*args), number=number, repeat=7)) / number

x = np.random.default_rng(1).normal(size=173)
for peer in (radon_ext.radon_logp_and_grad, radon_ext.radon_grad, numba_models.radon_logp_and_grad):
    value, gradient = peer(x)
    want_value, want_gradient = radon.logp_and_grad(x)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(gradient, want_gradient, rtol=1e-9, atol=1e-9)
weights = mlp.make_weights(0)
batch = np.random.default_rng(2).normal(size=(32, 16)).astype(np.float32)
stack = np.random.default_rng(3).random((3, 256, 256), dtype=np.float32)
results = {{
    "radon logp": {{
        "aotbuild": best(radon_ext.radon_logp, x, number=2000),
        "NumPy": best(radon.logp, x, number=200),
    }},
    "radon logp and gradient": {{
        "aotbuild": best(radon_ext.radon_logp_and_grad, x, number=2000),
        "NumPy": best(radon.logp_and_grad, x, number=200),
        "numba njit": best(numba_models.radon_logp_and_grad, x, number=2000),
    }},
    "radon logp and gradient, grad = [\\"x\\"]": {{
        "aotbuild": best(radon_ext.radon_grad, x, number=2000),
        "NumPy": best(radon.logp_and_grad, x, number=200),
        "numba njit": best(numba_models.radon_logp_and_grad, x, number=2000),
    }},
    "mlp, batch of 32 (float32)": {{
        "aotbuild": best(example_ext.mlp, batch, *weights, number=2000),
        "NumPy": best(mlp.mlp, batch, *weights, number=500),
        "numba njit": best(numba_models.mlp, batch, *weights, number=2000),
    }},
    "image_pipeline, 3x256x256 (float32)": {{
        "aotbuild": best(example_ext.image_pipeline, stack, number=20),
        "NumPy": best(images.pipeline, stack, number=20),
    }},
}}

# The training step: every peer's result checked against NumPy's first, then timed in interleaved
# rounds (one loop of each peer in turn), best of 7.
step_args = training_step.arguments()
peers = {{
    "aotbuild, grad derived": training_ext.step,
    "aotbuild, grad by hand": training_ext.step_by_hand,
    "NumPy, grad by hand": training_step.step_by_hand,
    "numba njit, grad by hand": numba_models.step_by_hand,
}}
expected = training_step.step_by_hand(*step_args)
for name, function in peers.items():
    for got, want in zip(function(*step_args), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-6, err_msg=name)
step_times = dict.fromkeys(peers, float("inf"))
for _ in range(7):
    for name, function in peers.items():
        started = time.perf_counter()
        for _ in range(500):
            function(*step_args)
        step_times[name] = min(step_times[name], (time.perf_counter() - started) / 500)
results["training step"] = step_times
print(json.dumps(results))
"""


def call_figures(builds: dict, example_package: str, training: str) -> tuple[dict, dict]:
    imports = [python_json(IMPORT.format(path=builds["package_dir"])) for _ in range(5)]
    imports.sort(key=lambda figures: figures["import"])
    calls = python_json(
        CALLS.format(
            radon_package=builds["package_dir"],
            example_package=example_package,
            training_package=training,
            example=str(REPO / "example_project"),
            bench=str(BENCH),
        ),
        # one BLAS thread: on 2 shared cores a second one made small products many times slower
        env={"OPENBLAS_NUM_THREADS": "1"},
    )
    return imports[len(imports) // 2], calls


def table(builds: dict, first: dict, calls: dict) -> str:
    cold = builds["cold"]
    lines = [
        "## Models: the radon model of PyTensor's compilation benchmark, an MLP, an image pipeline",
        "",
        measured_by("bench_models.py"),
        "PyTensor's figures are quoted from `../shared/RADON.md` (pytensor 3.3.7, numba backend, a",
        "2-core machine like this one), not measured in this run: pytensor 3.3.7 needs Python ≥ 3.12,",
        "and pip offers Python 3.11 only pytensor 3.0.7.",
        "",
        "| radon: logp, logp+gradient (by hand and by `grad`) graphs | aotbuild | PyTensor, numba backend (quoted) |",
        "|---|---|---|",
        f"| cold build (empty cache) | {cold['seconds']:.1f} s | 10.4 s |",
        f"| peak memory of the build | {cold['peak_mib']:.0f} MiB | 252 MiB |",
        f"| cache | {builds['cache_bytes'] / 1e6:.1f} MB in {builds['cache_files']} files "
        f"| 0.9 MB in 66 files |",
        f"| new process, warm cache: a new package | {builds['warm']['seconds']:.1f} s | 1.26 s |",
        f"| new process: import the built package, first call | {microseconds(first['import'])}, "
        f"{microseconds(first['first_call'])} | (no package: 1.26 s above) |",
        f"| the 8 variants' logp, one package, cold | {builds['eight_cold']:.1f} s | |",
        f"| the 8 variants' logp and gradient (`grad = [\"x\"]`), one package, cold "
        f"| {builds['eight_grad_cold']:.1f} s | 22 s |",
        f"| shared object (the three graphs) | {builds['native_bytes'] / 1024:.0f} KB | |",
        "",
        "| per call (best of 7) | aotbuild | NumPy | numba njit | aotbuild / NumPy |",
        "|---|---|---|---|---|",
    ]
    steps = calls.pop("training step")
    for case, figures in calls.items():
        njit = microseconds(figures["numba njit"]) if "numba njit" in figures else "—"
        ratio = figures["aotbuild"] / figures["NumPy"]
        lines.append(
            f"| {case} | {microseconds(figures['aotbuild'])} | {microseconds(figures['NumPy'])} "
            f"| {njit} | {ratio:.2f} |"
        )
    lines += [
        "",
        "PyTensor's numba backend calls the radon logp+gradient in 7.5–8 µs (RADON.md; its C backend",
        "22 µs, a hand-written NumPy version ~87 µs). numba's JIT does not compile the radon functions",
        "as written (plain Python helpers, a dataclass of options) nor the image pipeline",
        "(`mean(axis=(1, 2), keepdims=True)`). The radon gradient rows' njit figure is the model",
        "rewritten by hand as one numba function of loops (`bench/numba_models.py`: one pass over the",
        "observations, forward and backward together), checked against NumPy first.",
        "aotbuild compiles each Op once and calls it from the graph's entry; elementwise chains, the",
        "gathers by constant indices that feed them and the reductions that end them are fused into one Op.",
        "The `grad` row differentiates `radon:logp` by reverse mode over its graph (docs/gradients.md);",
        "its NumPy column is the hand-written gradient it is checked against.",
        "",
        "An MLP training step (`bench/training_step.py`: a tanh layer of 32 and a linear layer of 8,",
        "float32, batch 64; the loss, its gradient for the 4 weights, and the update), every peer's",
        "result checked against NumPy's, then timed in interleaved rounds, best of 7 (aotbuild built",
        "with `--target host`; one BLAS thread):",
        "",
        "| training step | per call | ÷ NumPy |",
        "|---|---|---|",
    ]
    numpy_step = steps["NumPy, grad by hand"]
    for peer, seconds in steps.items():
        lines.append(f"| {peer} | {microseconds(seconds)} | {seconds / numpy_step:.2f} |")
    return "\n".join(lines)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="aotbuild-bench-models-") as work:
        builds = build_figures(Path(work))
        example = project(Path(work), "example", {})
        shutil.copy(REPO / "example_project" / "graphs.toml", example)
        build(example, Path(work) / "cache-example")
        training = training_package(Path(work))
        first, calls = call_figures(builds, str(example.parent / "build"), training)
        text = table(builds, first, calls)
    print(text)
    write_section("bench_models", text)


if __name__ == "__main__":
    main()
