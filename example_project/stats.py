"""Statistics written in plain NumPy (and scipy.special): aotbuild traces these into graphs of
Ops; scipy.special's functions trace like NumPy's ufuncs, calling SciPy's own C code."""

import numpy as np
from scipy.special import gammaln, logsumexp, xlogy

LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


def normal_logp(x, mu, sigma):
    """Log-likelihood of the sample ``x`` under Normal(mu, sigma)."""
    z = (x - mu) / sigma
    return np.sum(-0.5 * z**2 - np.log(sigma) - LOG_SQRT_2PI)


def negative_binomial_logp(k, n, p):
    """Log-likelihood of counts ``k`` under NegativeBinomial(n, p): gammaln and xlogy fuse into
    the sum's loop."""
    log_comb = gammaln(k + n) - gammaln(n) - gammaln(k + 1.0)
    return np.sum(log_comb + xlogy(n, p) + xlogy(k, 1.0 - p))


def mixture_logp(x, weights, mus, sigmas):
    """Log-likelihood of ``x`` under a mixture of normals: logsumexp over the components."""
    z = (x[:, None] - mus) / sigmas
    component = -0.5 * z**2 - np.log(sigmas) - LOG_SQRT_2PI
    return np.sum(logsumexp(component, axis=1, b=weights))
