"""The example MLP under numba's JIT, for bench_models.py: the same layer, ``@njit`` instead of
``@aotbuild.subgraph``; bench/training_step.py's step with its gradient by hand; and the radon
log-density with its gradient rewritten as loops. numba does not compile the radon functions or
the image pipeline as written (plain Python helpers, a dataclass of options, ``mean`` over a
tuple of axes with ``keepdims``). ``NUMBA_PEER_CACHE=1`` compiles them with ``cache=True``."""

import os

import numpy as np
import radon
import training_step
from numba import njit

CACHE = os.environ.get("NUMBA_PEER_CACHE") == "1"


@njit(cache=CACHE)
def dense(x, w, b):
    return np.tanh(x @ w + b)


@njit(cache=CACHE)
def mlp(x, w0, b0, w1, b1, w2, b2, w3, b3, w4, b4, w5, b5, w6, b6, w7, b7):
    h = dense(np.ascontiguousarray(x), w0, b0)
    h = dense(h, w1, b1)
    h = dense(h, w2, b2)
    h = dense(h, w3, b3)
    h = dense(h, w4, b4)
    h = dense(h, w5, b5)
    h = dense(h, w6, b6)
    return dense(h, w7, b7)


#: bench/training_step.py's step_by_hand, the same code under numba's JIT.
step_by_hand = njit(cache=CACHE)(training_step.step_by_hand)


# The radon model's base variant (example_project/radon.py, which numba does not compile as
# written): its log-density and gradient as one numba function of loops, the way a numba user
# would write them by hand. The observations are visited once, forward and backward together.
_COUNTY_IDX, _FLOOR, _LOG_RADON = radon.COUNTY_IDX, radon.FLOOR, radon.LOG_RADON
_N = radon.N_COUNTIES
_SQRT_N = radon.ZERO_SUM_SQRT_N
_ZERO_SUM_CONSTANT = radon.LOG_SQRT_2PI * radon.ZERO_SUM_DOF_FRACTION


@njit(cache=CACHE)
def _zero_sum_value(raw, value):
    """radon.zero_sum_value into ``value`` (85), returning the ZeroSumNormal term."""
    total = 0.0
    for r in raw:
        total += r
    norm = total / (_SQRT_N + _N)
    term = 0.0
    for k in range(_N - 1):
        value[k] = raw[k] - norm
    value[_N - 1] = norm - total / _SQRT_N - norm
    for k in range(_N):
        term += -0.5 * value[k] * value[k] - _ZERO_SUM_CONSTANT
    return term


@njit(cache=CACHE)
def _halfnormal(u):
    v = np.exp(u)
    return -0.5 * v * v + radon.LOG_SQRT_2_OVER_PI + v, v - v * v


@njit(cache=CACHE)
def _raw_grad(effect_grad, value, sd, out):
    """radon.county_effect_grad (non-centered) into ``out`` (84); returns d/dsd_log's sum part."""
    head_total = 0.0
    dot = 0.0
    for k in range(_N):
        dot += effect_grad[k] * value[k]
    last = effect_grad[_N - 1] * sd - value[_N - 1]
    for k in range(_N - 1):
        out[k] = effect_grad[k] * sd - value[k]
        head_total += out[k]
    shift = head_total / (_SQRT_N + _N) + last / _SQRT_N
    for k in range(_N - 1):
        out[k] -= shift
    return dot * sd


@njit(cache=CACHE)
def radon_logp_and_grad(x):
    """radon.logp_and_grad of the base variant (HalfNormal sigma, Normal intercept, non-centered)."""
    county_value = np.empty(_N)
    floor_value = np.empty(_N)
    logp = _zero_sum_value(x[88:172], county_value) + _zero_sum_value(x[2:86], floor_value)
    county_prior, county_sd_grad = _halfnormal(x[87])
    floor_prior, floor_sd_grad = _halfnormal(x[1])
    sigma_prior, sigma_grad = _halfnormal(x[0])
    county_sd, floor_sd, sigma = np.exp(x[87]), np.exp(x[1]), np.exp(x[0])
    floor_effect, intercept = x[86], x[172]
    logp += county_prior + floor_prior + sigma_prior
    logp += -0.5 * (floor_effect / 2.0) ** 2 - radon.LOG_SQRT_2PI - radon.LOG_2_FLOAT32
    logp += -0.5 * (intercept / 10.0) ** 2 - radon.LOG_SQRT_2PI - radon.LOG_10_FLOAT32
    county_grad = np.zeros(_N)
    floor_grad = np.zeros(_N)
    likelihood = 0.0
    mu_total = 0.0
    mu_floor_total = 0.0
    squares = 0.0
    for i in range(_COUNTY_IDX.shape[0]):
        c = _COUNTY_IDX[i]
        f = _FLOOR[i]
        mu = intercept + county_value[c] * county_sd + floor_effect * f + floor_value[c] * floor_sd * f
        z = (_LOG_RADON[i] - mu) / sigma
        likelihood += -0.5 * z * z - radon.LOG_SQRT_2PI - x[0]
        squares += z * z
        g = z / sigma
        mu_total += g
        mu_floor_total += g * f
        county_grad[c] += g
        floor_grad[c] += g * f
    grad = np.empty(radon.N_PARAMS)
    grad[0] = sigma_grad + squares - _COUNTY_IDX.shape[0]
    grad[1] = floor_sd_grad + _raw_grad(floor_grad, floor_value, floor_sd, grad[2:86])
    grad[86] = mu_floor_total - floor_effect / 4.0
    grad[87] = county_sd_grad + _raw_grad(county_grad, county_value, county_sd, grad[88:172])
    grad[172] = mu_total - intercept / 100.0
    return logp + likelihood, grad
