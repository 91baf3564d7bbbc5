"""scipy.special in compiled graphs (tests/test_special.py): its ufuncs and logsumexp-style
functions traced, and its Cython exports called from kernels as numba code calls them."""

import ctypes

import numpy as np
from numba.core.types import WrapperAddressProtocol, float64
from numba.extending import get_cython_function_address
from scipy import special
from scipy.special import gammaln, log_softmax, softmax, xlogy
from scipy.special import logsumexp as lse

NAMES = [
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "ndtr",
    "ndtri",
    "log_ndtr",
    "gammaln",
    "gamma",
    "digamma",
    "betaln",
    "expit",
    "logit",
    "log_expit",
    "xlogy",
    "xlog1py",
    "entr",
    "rel_entr",
    "i0e",
    "i1e",
]


def every_function(x):
    """Each traced scipy.special ufunc, on x (any real) or a value in its domain."""
    positive = np.abs(x) + 0.5
    unit = x / (np.abs(x) + 1.0)  # in (-1, 1)
    probability = 0.5 * unit + 0.5  # in (0, 1)
    return (
        special.erf(x),
        special.erfc(x),
        special.erfcx(x),
        special.erfinv(unit),
        special.ndtr(x),
        special.ndtri(probability),
        special.log_ndtr(x),
        gammaln(positive),
        special.gamma(positive),
        special.digamma(positive),
        special.betaln(positive, positive + 1.0),
        special.expit(x),
        special.logit(probability),
        special.log_expit(x),
        xlogy(x, positive),
        special.xlog1py(x, positive),
        special.entr(positive),
        special.rel_entr(positive, positive + 0.25),
        special.i0e(x),
        special.i1e(x),
    )


def poisson_logp(k, rate):
    """A Poisson log-likelihood: xlogy and gammaln fused into the sum's loop."""
    return np.sum(xlogy(k, rate) - rate - gammaln(k + 1.0))


def mixtures(x, w):
    return (
        lse(x),
        lse(x, axis=1),
        lse(x, axis=0, keepdims=True),
        lse(x, axis=1, b=w),
        lse(x, axis=(0, 1), b=w[0]),
        softmax(x, axis=1),
        softmax(x),
        log_softmax(x, axis=0),
        log_softmax(x),
    )


def integer_special(k):
    """An integer argument: SciPy's float64 loop."""
    return gammaln(k)


# ---- kernels calling Cython exports, in numba's idioms ----

_ndtri = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(
    get_cython_function_address("scipy.special.cython_special", "ndtri")
)
_stdtr = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_double)(
    get_cython_function_address("scipy.special.cython_special", "__pyx_fuse_0stdtr")
)


class _Gammaln(WrapperAddressProtocol):
    """numba's other idiom: an object giving the address and the signature."""

    def __wrapper_address__(self):
        return get_cython_function_address("scipy.special.cython_special", "gammaln")

    def signature(self):
        return float64(float64)


_gammaln = _Gammaln()


def normal_quantiles(p, mu, sigma):
    out = np.empty_like(p)
    for i in range(p.shape[0]):
        out[i] = mu + sigma * _ndtri(p[i])
    return out


def student_t_cdf(x, df):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = _stdtr(df, x[i])
    return out


def log_beta(a, b):
    return _lbeta(a, b)


def _lbeta(a, b):
    """A helper using the export: compiled as its own Op, calling it by declaration too."""
    return _gammaln(a) + _gammaln(b) - _gammaln(a + b)
