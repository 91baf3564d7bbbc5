"""All 17 graphs of the example project under numba's JIT, for ``bench_builds.py``.

Kernels and the functions numba compiles as written are jitted as they are (a function's plain
Python helpers are jitted with it). Where numba rejects the NumPy the tracer takes — ``mean``
over a tuple of axes with ``keepdims``, the radon model's NamedTuples, ``np.stack`` of scalars,
``concatenate`` of an array and a list — the same computation is written in NumPy numba accepts.
``NUMBA_PEER_CACHE=1`` compiles everything with ``cache=True``.

``GRAPHS`` maps each graph of ``example_project/graphs.toml`` to its dispatcher.
"""

from __future__ import annotations

import math
import os
import sys
import types
from pathlib import Path

import numpy as np
from numba import njit
from numba.core.registry import CPUDispatcher

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "example_project"))
import images  # noqa: E402
import linalg  # noqa: E402
import radon  # noqa: E402
import stats  # noqa: E402
from numba_models import dense, mlp  # noqa: E402

CACHE = os.environ.get("NUMBA_PEER_CACHE") == "1"
jit = njit(cache=CACHE)


def jitted(module: types.ModuleType, *names: str) -> list[CPUDispatcher]:
    """``module``'s functions ``names`` under njit, as written; the plain Python functions of the
    module they call are jitted along with them (numba cannot call plain Python)."""
    namespace = dict(module.__dict__)
    for name, value in module.__dict__.items():
        if isinstance(value, CPUDispatcher):
            value = value.py_func
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            copy = types.FunctionType(value.__code__, namespace, name, value.__defaults__, value.__closure__)
            namespace[name] = jit(copy)
    return [namespace[name] for name in names]


(normal_logp,) = jitted(stats, "normal_logp")
det, slogdet = jitted(linalg, "det", "slogdet")
box_blur, gradient_magnitude = jitted(images, "box_blur", "gradient_magnitude")


@jit
def normalize_channels(images):
    """images.normalize_channels: numba's ``mean`` takes no axis, so sums over a flat view.

    (The rest of the pipeline is as written; numba computes ``float32 / 9.0`` in float64, unlike
    NumPy 2, so its image_pipeline returns float64 and pycc cannot export it as declared.)"""
    channels = images.shape[0]
    flat = np.ascontiguousarray(images).reshape(channels, -1)
    count = np.float32(flat.shape[1])  # an int would make the means float64 under numba
    mean = (flat.sum(axis=1) / count).reshape(channels, 1, 1)
    centered = images - mean
    variance = (centered * centered).reshape(channels, -1).sum(axis=1) / count
    return centered / (np.sqrt(variance).reshape(channels, 1, 1) + np.float32(1e-6))


@jit
def image_pipeline(images):
    return gradient_magnitude(box_blur(normalize_channels(images)))


# The radon model (example_project/radon.py), its NamedTuples unpacked into scalars and arrays.
COUNTY_IDX, FLOOR, LOG_RADON = radon.COUNTY_IDX, radon.FLOOR, radon.LOG_RADON
N = radon.N_COUNTIES
SQRT_N = math.sqrt(N)
DOF = (N - 1) / N
LOG_SQRT_2PI = radon.LOG_SQRT_2PI
LOG_SQRT_2_OVER_PI = radon.LOG_SQRT_2_OVER_PI
LOG_10, LOG_2 = radon.LOG_10_FLOAT32, radon.LOG_2_FLOAT32


@jit
def zero_sum_value(raw):
    total = raw.sum()
    norm = total / (SQRT_N + N)
    value = np.empty(N)
    value[:-1] = raw
    value[-1] = norm - total / SQRT_N
    return value - norm


@jit
def zero_sum_value_vjp(value_grad):
    head = value_grad[:-1]
    return head - head.sum() / (SQRT_N + N) - value_grad[-1] / SQRT_N


@jit
def halfnormal_logp(u):
    v = math.exp(u)
    return -0.5 * v * v + LOG_SQRT_2_OVER_PI + v


@jit
def county_effect(raw, sd_log, centered):
    """(effect, value, sd, logp) of radon.county_effect."""
    value = zero_sum_value(raw)
    sd = math.exp(sd_log)
    if centered:
        logp = np.sum(-0.5 * (value / sd) ** 2 - (LOG_SQRT_2PI + sd_log) * DOF)
        effect = value
    else:
        logp = np.sum(-0.5 * value**2 - LOG_SQRT_2PI * DOF)
        effect = value * sd
    return effect, value, sd, logp + halfnormal_logp(sd_log)


@jit
def county_effect_grad(value, sd, sd_log, effect_grad, centered):
    v = math.exp(sd_log)
    sd_log_grad = v - v * v
    if centered:
        value_grad = effect_grad - value / sd**2
        sd_log_grad += np.sum(value**2) / sd**2 - (N - 1)
    else:
        value_grad = effect_grad * sd - value
        sd_log_grad += np.sum(effect_grad * value) * sd
    return zero_sum_value_vjp(value_grad), sd_log_grad


@jit
def forward(x, lognormal_intercept, lognormal_sigma, centered):
    """(logp, county, county_floor, intercept, sigma, standardized residual) of radon.forward."""
    county = county_effect(x[88:172], x[87], centered)
    county_floor = county_effect(x[2:86], x[1], centered)
    intercept = math.exp(x[172]) if lognormal_intercept else x[172]
    sigma = math.exp(x[0])
    sigma_prior = -0.5 * x[0] ** 2 - LOG_SQRT_2PI if lognormal_sigma else halfnormal_logp(x[0])
    mu = intercept + county[0][COUNTY_IDX] + x[86] * FLOOR + county_floor[0][COUNTY_IDX] * FLOOR
    residual = (LOG_RADON - mu) / sigma
    likelihood = np.sum(-0.5 * residual**2 - LOG_SQRT_2PI - x[0])
    logp = (
        sigma_prior
        + county_floor[3]
        + (-0.5 * (x[86] / 2.0) ** 2 - LOG_SQRT_2PI - LOG_2)
        + county[3]
        + (-0.5 * (x[172] / 10.0) ** 2 - LOG_SQRT_2PI - LOG_10)
        + likelihood
    )
    return logp, county, county_floor, intercept, sigma, residual


@jit
def radon_logp_and_grad(x):
    logp, county, county_floor, intercept, sigma, residual = forward(x, False, False, False)
    mu_grad = residual / sigma
    mu_floor_grad = mu_grad * FLOOR
    grad = np.empty(173)
    raw, sd_log = county_effect_grad(county[1], county[2], x[87], np.bincount(COUNTY_IDX, mu_grad, N), False)
    grad[88:172], grad[87] = raw, sd_log
    raw, sd_log = county_effect_grad(
        county_floor[1], county_floor[2], x[1], np.bincount(COUNTY_IDX, mu_floor_grad, N), False
    )
    grad[2:86], grad[1] = raw, sd_log
    grad[86] = np.sum(mu_floor_grad) - x[86] / 4.0
    grad[172] = np.sum(mu_grad) - x[172] / 100.0
    v = math.exp(x[0])
    grad[0] = v - v * v + np.sum(residual**2) - radon.N_OBSERVATIONS
    return logp, grad


def radon_logp_of(intercept: str, sigma: str, centered: bool) -> CPUDispatcher:
    """One variant's logp: its options are constants of the compiled function."""
    lognormal_intercept, lognormal_sigma = intercept == "lognormal", sigma == "lognormal"

    def variant_logp(x):
        return forward(x, lognormal_intercept, lognormal_sigma, centered)[0]

    variant_logp.__qualname__ = f"logp_{intercept}_{sigma}_{centered}"
    return jit(variant_logp)


GRAPHS: dict[str, CPUDispatcher] = {
    "normal_logp": normal_logp,
    "normalize_channels": normalize_channels,
    "det": det,
    "slogdet": slogdet,
    "radon_logp": radon_logp_of("normal", "halfnormal", False),
    "radon_logp_and_grad": radon_logp_and_grad,
    **{
        f"radon_{name}": radon_logp_of(*name.split("_")[:2], name.endswith("_centered"))
        for name, _ in radon.VARIANTS
    },
    "mlp": mlp,
    "dense": dense,
    "image_pipeline": image_pipeline,
}
