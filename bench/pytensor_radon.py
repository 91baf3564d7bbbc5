"""The radon model of ``../shared/RADON.md`` in PyTensor, compiled by its numba backend.

Run by ``bench_builds.py`` with the Python of a separate venv that has PyTensor (PyTensor pins an
older numba than aotbuild's, so it cannot share the dev venv). It imports neither aotbuild nor
the other bench modules. Each run prints one JSON line:

    python pytensor_radon.py compile     # import, compile logp+gradient, first call (check values)
    python pytensor_radon.py variants    # compile the base model, then time the 8 variants
    python pytensor_radon.py call        # per-call time of the compiled logp+gradient

The caches are where ``PYTENSOR_FLAGS=base_compiledir=...`` and ``NUMBA_CACHE_DIR`` point.
The model is written from RADON.md's description: one 173-vector of parameters, sliced.
"""

from __future__ import annotations

import json
import math
import resource
import sys
import time
import timeit

STARTED = time.perf_counter()

import numpy as np  # noqa: E402
import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402

IMPORTED = time.perf_counter() - STARTED
N_COUNTIES = 85
LOG_SQRT_2PI = math.log(math.sqrt(2.0 * math.pi))


def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    county_idx = np.sort(rng.integers(N_COUNTIES, size=919))
    floor = rng.binomial(n=1, p=0.5, size=919).astype(np.float64)
    log_radon = rng.normal(size=919)
    return county_idx, floor, log_radon


def normal_term(value, sigma):
    """Normal(value | 0, sigma); a Python int sigma lets PyTensor take its log in float32, as the
    reference benchmark does (RADON.md's check values depend on it)."""
    return -0.5 * (value / sigma) ** 2 - LOG_SQRT_2PI - pt.log(sigma)


def halfnormal_log_scale(u):
    """v = exp(u) and the benchmark's HalfNormal(1) term, which adds v (not the Jacobian u)."""
    v = pt.exp(u)
    term = -0.5 * v**2 + math.log(math.sqrt(2.0 / math.pi)) + v
    return v, pt.switch(v >= 0, term, -np.inf)


def zero_sum(raw, sd, centered):
    """County effects from the 84 free values of a ZeroSumNormal, and its term."""
    n = N_COUNTIES
    total = raw.sum(keepdims=True)
    norm = total / (math.sqrt(n) + n)
    value = pt.concatenate([raw, norm - total / math.sqrt(n)]) - norm
    dof = (n - 1) / n
    if centered:
        return value, pt.sum(-0.5 * (value / sd) ** 2 - (LOG_SQRT_2PI + pt.log(sd)) * dof)
    return value * sd, pt.sum(-0.5 * value**2 - LOG_SQRT_2PI * dof)


def radon(intercept="normal", sigma="halfnormal", centered=False):
    """(x, logp, gradient) of one variant, as PyTensor variables."""
    county_idx, floor, log_radon = data()
    x = pt.vector("x", shape=(173,), dtype="float64")
    terms = []
    county_floor_sd, term = halfnormal_log_scale(x[1])
    terms.append(term)
    county_sd, term = halfnormal_log_scale(x[87])
    terms.append(term)
    county_floor_effect, term = zero_sum(x[2:86], county_floor_sd, centered)
    terms.append(term)
    county_effect, term = zero_sum(x[88:172], county_sd, centered)
    terms.append(term)
    terms.append(normal_term(x[86], 2))
    terms.append(normal_term(x[172], 10))
    intercept_value = pt.exp(x[172]) if intercept == "lognormal" else x[172]
    if sigma == "lognormal":
        terms.append(normal_term(x[0], 1.0))
        sigma_value = pt.exp(x[0])
    else:
        sigma_value, term = halfnormal_log_scale(x[0])
        terms.append(term)
    mu = intercept_value + county_effect[county_idx] + x[86] * floor + county_floor_effect[county_idx] * floor
    terms.append(pt.sum(normal_term(log_radon - mu, sigma_value)))
    logp = pt.sum(pt.stack([pt.sum(term) for term in terms]))
    return x, logp, pt.grad(logp, x)


VARIANTS = [
    (intercept, sigma, centered)
    for centered in (True, False)
    for intercept in ("normal", "lognormal")
    for sigma in ("halfnormal", "lognormal")
]


def compile_variant(*options) -> pytensor.compile.function.types.Function:
    x, logp, grad = radon(*options)
    return pytensor.function([x], [logp, grad], mode="NUMBA", trust_input=True)


def point() -> np.ndarray:
    return np.random.default_rng(1).normal(size=173)


def main(what: str) -> dict:
    x = point()
    started = time.perf_counter()
    function = compile_variant()
    logp, grad = function(x)
    figures = {
        "import": IMPORTED,
        "compile": time.perf_counter() - started,
        "logp": float(logp),
        "grad_norm": float(np.linalg.norm(grad)),
        "version": pytensor.__version__,
    }
    if what == "variants":
        started = time.perf_counter()
        for options in VARIANTS:
            compile_variant(*options)(x)
        figures["variants"] = time.perf_counter() - started
    elif what == "call":
        function(x)
        figures["call"] = min(timeit.repeat(lambda: function(x), number=2000, repeat=7)) / 2000
    figures["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
