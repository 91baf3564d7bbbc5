"""Call every graph of the example package and check it against NumPy.

Run after `aotbuild compile example_project/graphs.toml`, which builds the package into
example_project/build/, or after installing the wheel `pip wheel ./example_project` makes (then the
installed package is used). The package needs only NumPy: this script imports it with numba and
llvmlite blocked to show it.
"""

import sys
import time
from pathlib import Path

sys.modules["numba"] = None  # type: ignore[assignment]  # prove the package never needs them
sys.modules["llvmlite"] = None  # type: ignore[assignment]
BUILT = Path(__file__).resolve().parent / "build"
if (BUILT / "example_ext").is_dir():  # built by `aotbuild compile`; else the installed wheel's
    sys.path.insert(0, str(BUILT))

import numpy as np  # noqa: E402

started = time.perf_counter()
import example_ext  # noqa: E402

import_ms = (time.perf_counter() - started) * 1e3
rng = np.random.default_rng(2026)

# Elementwise-heavy graph, on a contiguous and on a strided sample.
x = rng.normal(1.5, 2.0, size=100_000)
for sample in (x, x[::7]):
    z = (sample - 1.5) / 2.0
    expected = np.sum(-0.5 * z**2 - np.log(2.0) - 0.5 * np.log(2.0 * np.pi))
    got = example_ext.normal_logp(sample, 1.5, 2.0)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
print(f"normal_logp         ok  {got:.6f}")

# Statistics with scipy.special: traced gammaln/xlogy/logsumexp and a kernel calling ndtri,
# against SciPy (which the package imports only when these graphs first run).
import stats  # noqa: E402
from scipy import special  # noqa: E402

counts = rng.poisson(4.0, size=1000).astype(float)
got = example_ext.negative_binomial_logp(counts, 3.5, 0.4)
np.testing.assert_allclose(got, stats.negative_binomial_logp(counts, 3.5, 0.4), rtol=1e-13)
mixture = (rng.normal(size=2000), np.array([0.3, 0.7]), np.array([-1.0, 2.0]), np.array([0.5, 1.5]))
np.testing.assert_allclose(example_ext.mixture_logp(*mixture), stats.mixture_logp(*mixture), rtol=1e-13)
p = np.linspace(0.001, 0.999, 999)
np.testing.assert_array_equal(example_ext.normal_quantiles(p, 1.0, 2.0), 1.0 + 2.0 * special.ndtri(p))
print(f"scipy.special (3)   ok  negative_binomial_logp={got:.6f}")

# Reductions along axes, float32 stays float32 (NumPy 2 promotion).
images = rng.random((3, 64, 48), dtype=np.float32) * 255
centered = images - images.mean(axis=(1, 2), keepdims=True)
expected = centered / (np.sqrt((centered**2).mean(axis=(1, 2), keepdims=True)) + 1e-6)
got = example_ext.normalize_channels(images)
assert got.dtype == np.float32 and got.shape == images.shape
np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
print(f"normalize_channels  ok  {got.dtype} {got.shape}")

# Kernels with loops and a shared helper.
for n in (1, 5, 40):
    a = rng.normal(size=(n, n))
    np.testing.assert_allclose(example_ext.det(a), np.linalg.det(a), rtol=1e-9)
    np.testing.assert_allclose(example_ext.det(a.T), np.linalg.det(a.T), rtol=1e-9)
    sign, logdet = example_ext.slogdet(a)
    expected_sign, expected_logdet = np.linalg.slogdet(a)
    assert sign == expected_sign
    np.testing.assert_allclose(logdet, expected_logdet, rtol=1e-9)
print(f"det, slogdet        ok  det={example_ext.det(a):.6g}")

try:
    example_ext.det(np.ones((2, 3)))
except ValueError as exc:
    print(f"det(2x3 matrix)     raises ValueError({exc})")
else:
    raise AssertionError("det of a non-square matrix must raise")

# The reference NumPy code below is the project's own modules. mlp.py marks its layer with
# @aotbuild.subgraph, which outside a build changes nothing: where aotbuild is not installed (a
# NumPy-only environment running the installed wheel), a stand-in does the same.
try:
    import aotbuild  # noqa: F401
except ImportError:
    import types

    sys.modules["aotbuild"] = types.SimpleNamespace(subgraph=lambda function: function)  # type: ignore[assignment]

# The radon model: 8 variants of the log-density and a hand-written gradient, against the same
# NumPy code and the check values of PyTensor's benchmark (../shared/RADON.md).
import images  # noqa: E402
import mlp  # noqa: E402
import radon  # noqa: E402

point = np.random.default_rng(1).normal(size=radon.N_PARAMS)
logp = example_ext.radon_logp(point)
value, grad = example_ext.radon_logp_and_grad(point)
assert abs(logp - -2447.2341736666) < 1e-9 and value == logp
assert round(float(np.linalg.norm(grad)), 4) == 1659.6778
np.testing.assert_allclose(grad, radon.logp_and_grad(point)[1], rtol=1e-12)
derived_value, derived = example_ext.radon_grad(point)  # grad = ["x"]: by reverse mode
assert derived_value == logp
np.testing.assert_allclose(derived, grad, rtol=1e-12, atol=1e-10)
for name, variant in radon.VARIANTS:
    np.testing.assert_allclose(getattr(example_ext, f"radon_{name}")(point), variant(point), rtol=1e-12)
print(f"radon (10 graphs)   ok  logp={logp:.10f} |grad|={np.linalg.norm(grad):.4f} (by hand and by grad)")

# A float32 MLP whose dense layer is one compiled subgraph called 8 times (BLAS from SciPy).
weights = mlp.make_weights(0)
batch = rng.normal(size=(32, mlp.WIDTH)).astype(np.float32)
got = example_ext.mlp(batch, *weights)
assert got.dtype == np.float32
np.testing.assert_allclose(got, mlp.mlp(batch, *weights), rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(example_ext.dense(batch, *weights[:2]), mlp.dense(batch, *weights[:2]), rtol=1e-5)
targets = rng.normal(size=got.shape).astype(np.float32)
loss, *grads = example_ext.mlp_loss_and_grad(batch, targets, *weights)  # grad = [all 16]
want_loss, want_grads = mlp.loss_and_grad_by_hand(batch, targets, *weights)
assert loss.dtype == np.float32 and len(grads) == 16
np.testing.assert_allclose(loss, want_loss, rtol=1e-5)
for derived, by_hand in zip(grads, want_grads, strict=True):
    assert derived.dtype == np.float32 and derived.shape == by_hand.shape
    np.testing.assert_allclose(derived, by_hand, rtol=1e-3, atol=1e-6)
print(f"mlp, dense, loss    ok  {got.dtype} {got.shape}, 16 gradients")

# The image pipeline, on a stack viewed with a reversed axis (no copy is made).
stack = rng.random((3, 37, 29), dtype=np.float32)[:, ::-1]
got = example_ext.image_pipeline(stack)
np.testing.assert_allclose(got, images.pipeline(stack), rtol=1e-4, atol=1e-5)
print(f"image_pipeline      ok  {got.dtype} {got.shape}")

try:
    example_ext.normal_logp(x.astype(np.float32), 0.0, 1.0)
except TypeError as exc:
    print(f"wrong dtype         raises TypeError({exc})")

print(f"all graphs match NumPy; import took {import_ms:.1f} ms without numba or llvmlite")
print(f"(the package at {Path(example_ext.__file__).parent})")
