"""The radon model of PyTensor's compilation benchmark, in plain NumPy.

A hierarchical regression of log-radon on floor with county effects. PyTensor's
``tests/benchmarks/test_compilation.py`` (``create_radon_model``) times compiling and calling its
log-density and gradient; the same computation here lets aotbuild be compared with PyTensor's
backends on the same work.

Every variant takes one float64 vector of length 173 with the same layout:

    slot    name                  meaning
    0       sigma_log             u with sigma = exp(u), the likelihood's scale
    1       county_floor_sd_log   u with county_floor_sd = exp(u)
    2:86    county_floor_raw      the 84 free values of the county-floor ZeroSumNormal
    86      floor_effect          the floor effect itself
    87      county_sd_log         u with county_sd = exp(u)
    88:172  county_raw            the 84 free values of the county ZeroSumNormal
    172     intercept             the intercept (Normal), or u with intercept = exp(u) (LogNormal)

Between variants only the prior on slot 0 (HalfNormal or LogNormal sigma), the meaning of slot 172
(Normal or LogNormal intercept) and the form of the county effects (non-centered or centered)
change.

The functions use only constructs aotbuild can trace: the data are module-level constants, Python
control flow depends only on the variant (never on array values), and the gradient's scatter-adds
use ``np.bincount``.
"""

import math
from typing import NamedTuple

import numpy as np

N_COUNTIES = 85
N_OBSERVATIONS = 919
N_PARAMS = 173

# Positions in the flat parameter vector (the table in the module docstring).
SIGMA_LOG = 0
COUNTY_FLOOR_SD_LOG = 1
COUNTY_FLOOR_RAW = slice(2, 86)
FLOOR_EFFECT = 86
COUNTY_SD_LOG = 87
COUNTY_RAW = slice(88, 172)
INTERCEPT = 172


def _make_data():
    """The benchmark's synthetic data: one generator seeded with 1, drawn in this order."""
    rng = np.random.default_rng(1)
    county_idx = np.sort(rng.integers(N_COUNTIES, size=N_OBSERVATIONS))
    floor = rng.binomial(n=1, p=0.5, size=N_OBSERVATIONS).astype(np.float64)
    log_radon = rng.normal(size=N_OBSERVATIONS)
    return county_idx, floor, log_radon


# The county of each observation (int64), whether it was measured on a floor (0.0 or 1.0) and its
# log-radon level (float64): constants baked into the traced graphs, not inputs.
COUNTY_IDX, FLOOR, LOG_RADON = _make_data()

LOG_SQRT_2PI = math.log(math.sqrt(2.0 * math.pi))
LOG_SQRT_2_OVER_PI = math.log(math.sqrt(2.0 / math.pi))

# PyTensor builds log(10) and log(2) (the log-scales of the intercept's and the floor effect's
# Normal priors) from int8 constants, which it upcasts to float32: the logs are computed in float32
# and only then widened to float64. The exact float64 logs would shift logp by about 3.4e-8.
LOG_10_FLOAT32 = float(np.log(np.float32(10.0)))
LOG_2_FLOAT32 = float(np.log(np.float32(2.0)))

# The ZeroSumNormal over n = 85 values has 84 degrees of freedom: each of the 85 elements of its
# term carries 84/85 of a Normal normalising constant.
ZERO_SUM_SQRT_N = math.sqrt(N_COUNTIES)
ZERO_SUM_DOF_FRACTION = (N_COUNTIES - 1) / N_COUNTIES


class Variant(NamedTuple):
    """One of the 8 variants of the model.

    ``intercept``: "normal" (slot 172 is the intercept, prior Normal(0, 10)) or "lognormal"
    (slot 172 is u with prior Normal(u | 0, 10) and intercept = exp(u), no Jacobian term).
    ``sigma``: "halfnormal" (slot 0 is u with sigma = exp(u) and the benchmark's HalfNormal term)
    or "lognormal" (slot 0 is u with prior Normal(u | 0, 1) and sigma = exp(u), no Jacobian term).
    ``centered``: whether the county effects are the ZeroSumNormal values themselves (with scale
    sd in their term) rather than unit-scale values multiplied by sd.
    """

    intercept: str = "normal"
    sigma: str = "halfnormal"
    centered: bool = False

    @property
    def name(self):
        """E.g. ``normal_halfnormal_noncentered``."""
        return f"{self.intercept}_{self.sigma}_{'centered' if self.centered else 'noncentered'}"

    def check(self):
        """Raise ValueError unless the options name a variant; returns the variant."""
        if self.intercept not in ("normal", "lognormal"):
            raise ValueError(f"intercept must be 'normal' or 'lognormal', not {self.intercept!r}")
        if self.sigma not in ("halfnormal", "lognormal"):
            raise ValueError(f"sigma must be 'halfnormal' or 'lognormal', not {self.sigma!r}")
        return self


BASE = Variant("normal", "halfnormal", centered=False)


def normal_logp(x, scale, log_scale):
    """Elementwise log-density of Normal(x | 0, scale), given log(scale) separately.

    ``log_scale`` is passed rather than computed so that callers can supply PyTensor's float32
    logs of constant scales, or the log-scale parameter itself when scale = exp(u).
    """
    return -0.5 * (x / scale) ** 2 - LOG_SQRT_2PI - log_scale


def halfnormal_log_scale_logp(u):
    """The benchmark's HalfNormal(sigma=1) term for v = exp(u), held on the log scale u.

    Quirk kept on purpose: the benchmark adds v (= exp(u)), not the usual Jacobian log|dv/du| = u.
    """
    v = np.exp(u)
    return -0.5 * v**2 + LOG_SQRT_2_OVER_PI + v


def halfnormal_log_scale_grad(u):
    """d/du of :func:`halfnormal_log_scale_logp`: with v = exp(u), dv/du = v, so v - v**2."""
    v = np.exp(u)
    return v - v**2


def zero_sum_value(raw):
    """The 85 zero-sum values of a ZeroSumNormal built from its 84 free values ``raw``.

    PyTensor's construction: with s = sum(raw) and norm = s / (sqrt(n) + n), append
    norm - s / sqrt(n) to ``raw`` and subtract norm from every element.
    """
    total = np.sum(raw)
    norm = total / (ZERO_SUM_SQRT_N + N_COUNTIES)
    return np.concatenate([raw, [norm - total / ZERO_SUM_SQRT_N]]) - norm


def zero_sum_value_vjp(value_grad):
    """Pull a gradient with respect to the 85 zero-sum values back to the 84 free values.

    :func:`zero_sum_value` is linear: value[i] = raw[i] - norm for i < 84 and
    value[84] = -sum(raw) / sqrt(n) (its two norms cancel), so this applies its transpose.
    """
    head = value_grad[:-1]
    return head - np.sum(head) / (ZERO_SUM_SQRT_N + N_COUNTIES) - value_grad[-1] / ZERO_SUM_SQRT_N


class CountyEffect(NamedTuple):
    """Per-county effects from a ZeroSumNormal and a HalfNormal scale, with their prior terms."""

    effect: np.ndarray  # (85,) the effect of each county
    value: np.ndarray  # (85,) the ZeroSumNormal value
    sd_log: np.ndarray  # the scale's slot u
    sd: np.ndarray  # the scale, exp(u)
    logp: np.ndarray  # the ZeroSumNormal term plus the scale's HalfNormal term


def county_effect(raw, sd_log, centered):
    """County effects from the 84 free values ``raw`` and the log-scale ``sd_log``.

    Non-centered: the ZeroSumNormal has unit scale and its value is multiplied by sd.
    Centered: the ZeroSumNormal value is the effect itself, with scale sd in its term (whose
    log(sd) is the slot u itself).
    """
    value = zero_sum_value(raw)
    sd = np.exp(sd_log)
    if centered:
        effect = value
        zero_sum_logp = np.sum(-0.5 * (value / sd) ** 2 - (LOG_SQRT_2PI + sd_log) * ZERO_SUM_DOF_FRACTION)
    else:
        effect = value * sd
        zero_sum_logp = np.sum(-0.5 * value**2 - LOG_SQRT_2PI * ZERO_SUM_DOF_FRACTION)
    logp = zero_sum_logp + halfnormal_log_scale_logp(sd_log)
    return CountyEffect(effect, value, sd_log, sd, logp)


def county_effect_grad(county, effect_grad, centered):
    """(d/draw, d/dsd_log) of ``county.logp + sum(effect_grad * county.effect)``.

    ``effect_grad`` is the likelihood's gradient with respect to the 85 effects.
    """
    sd_log_grad = halfnormal_log_scale_grad(county.sd_log)
    if centered:
        value_grad = effect_grad - county.value / county.sd**2
        sd_log_grad = sd_log_grad + np.sum(county.value**2) / county.sd**2 - (N_COUNTIES - 1)
    else:
        value_grad = effect_grad * county.sd - county.value
        sd_log_grad = sd_log_grad + np.sum(effect_grad * county.value) * county.sd
    return zero_sum_value_vjp(value_grad), sd_log_grad


class Forward(NamedTuple):
    """The log-density and the intermediate values its gradient needs."""

    logp: np.ndarray
    county: CountyEffect
    county_floor: CountyEffect
    intercept: np.ndarray  # the intercept itself (exp of its slot for LogNormal)
    sigma: np.ndarray
    standardized_residual: np.ndarray  # (919,) (log_radon - mu) / sigma


def forward(x, variant):
    """The log-density of ``variant`` at the 173-vector ``x``, with its intermediate values."""
    county = county_effect(x[COUNTY_RAW], x[COUNTY_SD_LOG], variant.centered)
    county_floor = county_effect(x[COUNTY_FLOOR_RAW], x[COUNTY_FLOOR_SD_LOG], variant.centered)
    floor_effect = x[FLOOR_EFFECT]
    intercept_slot = x[INTERCEPT]
    intercept = np.exp(intercept_slot) if variant.intercept == "lognormal" else intercept_slot
    sigma_log = x[SIGMA_LOG]
    sigma = np.exp(sigma_log)
    if variant.sigma == "lognormal":
        sigma_prior = normal_logp(sigma_log, 1.0, 0.0)
    else:
        sigma_prior = halfnormal_log_scale_logp(sigma_log)

    mu = (
        intercept + county.effect[COUNTY_IDX] + floor_effect * FLOOR + county_floor.effect[COUNTY_IDX] * FLOOR
    )
    standardized_residual = (LOG_RADON - mu) / sigma
    likelihood = np.sum(normal_logp(standardized_residual, 1.0, sigma_log))

    logp = (
        sigma_prior
        + county_floor.logp
        + normal_logp(floor_effect, 2.0, LOG_2_FLOAT32)
        + county.logp
        + normal_logp(intercept_slot, 10.0, LOG_10_FLOAT32)
        + likelihood
    )
    return Forward(logp, county, county_floor, intercept, sigma, standardized_residual)


def gradient(x, state, variant):
    """The gradient of the log-density of ``variant`` at ``x``, given ``state = forward(x, variant)``.

    Reverse mode by hand: the likelihood's gradient with respect to mu is scattered to the county
    effects with ``np.bincount`` and pulled back through each term to the 173 slots.
    """
    residual = state.standardized_residual
    mu_grad = residual / state.sigma
    mu_floor_grad = mu_grad * FLOOR

    county_raw_grad, county_sd_log_grad = county_effect_grad(
        state.county,
        np.bincount(COUNTY_IDX, weights=mu_grad, minlength=N_COUNTIES),
        variant.centered,
    )
    county_floor_raw_grad, county_floor_sd_log_grad = county_effect_grad(
        state.county_floor,
        np.bincount(COUNTY_IDX, weights=mu_floor_grad, minlength=N_COUNTIES),
        variant.centered,
    )
    floor_effect_grad = np.sum(mu_floor_grad) - x[FLOOR_EFFECT] / 4.0

    intercept_grad = np.sum(mu_grad)
    if variant.intercept == "lognormal":
        intercept_grad = intercept_grad * state.intercept
    intercept_grad = intercept_grad - x[INTERCEPT] / 100.0

    sigma_log = x[SIGMA_LOG]
    sigma_prior_grad = -sigma_log if variant.sigma == "lognormal" else halfnormal_log_scale_grad(sigma_log)
    sigma_log_grad = sigma_prior_grad + np.sum(residual**2) - N_OBSERVATIONS

    return np.concatenate(
        [
            np.stack([sigma_log_grad, county_floor_sd_log_grad]),
            county_floor_raw_grad,
            np.stack([floor_effect_grad, county_sd_log_grad]),
            county_raw_grad,
            np.stack([intercept_grad]),
        ]
    )


def _describe(function, name, variant, what):
    """Give a variant's function its own name and a docstring saying what it computes."""
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"{what} of the radon model with a {variant.intercept} intercept, a {variant.sigma} sigma "
        f"and {'centered' if variant.centered else 'non-centered'} county effects, at the float64 "
        f"vector x of shape ({N_PARAMS},) laid out as in the module docstring."
    )
    return function


def make_logp(intercept="normal", sigma="halfnormal", centered=False):
    """The log-density function of one variant of the model (the options are :class:`Variant`'s)."""
    variant = Variant(intercept, sigma, centered).check()

    def variant_logp(x):
        return forward(x, variant).logp

    return _describe(variant_logp, f"logp_{variant.name}", variant, "The log-density")


def make_logp_and_grad(intercept="normal", sigma="halfnormal", centered=False):
    """The ``(logp, grad)`` function of one variant, the gradient written by hand."""
    variant = Variant(intercept, sigma, centered).check()

    def variant_logp_and_grad(x):
        state = forward(x, variant)
        return state.logp, gradient(x, state, variant)

    return _describe(variant_logp_and_grad, f"logp_and_grad_{variant.name}", variant, "(logp, gradient)")


def logp(x):
    """The base variant's log-density (Normal intercept, HalfNormal sigma, non-centered county
    effects) at the float64 vector x of shape (173,)."""
    return forward(x, BASE).logp


def logp_and_grad(x):
    """``(logp, grad)`` of the base variant at x of shape (173,); grad has shape (173,)."""
    state = forward(x, BASE)
    return state.logp, gradient(x, state, BASE)


logp_normal_halfnormal_noncentered = make_logp("normal", "halfnormal", centered=False)
logp_normal_halfnormal_centered = make_logp("normal", "halfnormal", centered=True)
logp_normal_lognormal_noncentered = make_logp("normal", "lognormal", centered=False)
logp_normal_lognormal_centered = make_logp("normal", "lognormal", centered=True)
logp_lognormal_halfnormal_noncentered = make_logp("lognormal", "halfnormal", centered=False)
logp_lognormal_halfnormal_centered = make_logp("lognormal", "halfnormal", centered=True)
logp_lognormal_lognormal_noncentered = make_logp("lognormal", "lognormal", centered=False)
logp_lognormal_lognormal_centered = make_logp("lognormal", "lognormal", centered=True)

# The 8 variants (intercept x sigma x centering) as (name, logp function) pairs, base first.
VARIANTS = (
    ("normal_halfnormal_noncentered", logp_normal_halfnormal_noncentered),
    ("normal_halfnormal_centered", logp_normal_halfnormal_centered),
    ("normal_lognormal_noncentered", logp_normal_lognormal_noncentered),
    ("normal_lognormal_centered", logp_normal_lognormal_centered),
    ("lognormal_halfnormal_noncentered", logp_lognormal_halfnormal_noncentered),
    ("lognormal_halfnormal_centered", logp_lognormal_halfnormal_centered),
    ("lognormal_lognormal_noncentered", logp_lognormal_lognormal_noncentered),
    ("lognormal_lognormal_centered", logp_lognormal_lognormal_centered),
)
