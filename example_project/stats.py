"""Statistics written in plain NumPy: aotbuild traces these into graphs of Ops."""

import numpy as np

LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


def normal_logp(x, mu, sigma):
    """Log-likelihood of the sample ``x`` under Normal(mu, sigma)."""
    z = (x - mu) / sigma
    return np.sum(-0.5 * z**2 - np.log(sigma) - LOG_SQRT_2PI)
