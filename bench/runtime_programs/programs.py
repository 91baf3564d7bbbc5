"""NumPy programs for ``bench/bench_runtime.py``: ordinary NumPy functions, declared in the
``graphs.toml`` beside this file, that aotbuild traces and numba's ``njit`` compiles as written.

Each is a kind of work common in numeric code: elementwise chains, stencils by slicing,
reductions, distance matrices, dense layers, a grid written plane by plane, a reversed scan.
``inputs()`` makes each one's arguments: C-contiguous arrays (float64 unless a program says
otherwise) large enough that the computation, not the call, decides the time.
"""

import numpy as np

EARTH_RADIUS_KM = 6371.0
SQRT_2_OVER_PI = 0.7978845608028654


# --- elementwise chains ---------------------------------------------------------------------


def haversine(lat1, lon1, lat2, lon2):
    """Great-circle distances in km between points given in radians."""
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2.0 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(a))


def softplus_logistic(x):
    """A numerically stable softplus times the logistic function (a smooth gate)."""
    softplus = np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)
    return softplus / (1.0 + np.exp(-x))


def gelu(x):
    """GELU, tanh approximation."""
    return 0.5 * x * (1.0 + np.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x**3)))


def horner(x):
    """A polynomial of degree 7 in Horner form (the Taylor series of sin, to x**7)."""
    return (
        (((((-1.0 / 5040.0 * x + 0.0) * x + 1.0 / 120.0) * x + 0.0) * x - 1.0 / 6.0) * x + 0.0) * x + 1.0
    ) * x


def clip_where(x, y):
    """A chain of comparisons, ``np.where`` and ``np.clip``: a piecewise response."""
    scaled = np.clip(x * 1.5 - y, -2.0, 2.0)
    return np.where(scaled > 0.0, scaled * scaled, np.exp(scaled) - 1.0) + np.where(y > x, y, 0.0)


# --- stencils by slicing --------------------------------------------------------------------


def smooth_1d(x):
    """The [1/4, 1/2, 1/4] smoothing stencil on the interior."""
    return 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:]


def laplacian_2d(u):
    """The 5-point Laplacian on the interior of a 2-d grid (unit spacing)."""
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]


# --- reductions -----------------------------------------------------------------------------


def plain_sum(x):
    """The sum of a vector: the reduction alone."""
    return np.sum(x)


def sum_of_squares(x, y):
    """The squared Euclidean distance between two vectors."""
    return np.sum((x - y) ** 2)


def rms_deviation(x):
    """The root-mean-square deviation from the mean (a standard deviation, by hand)."""
    centered = x - np.mean(x)
    return np.sqrt(np.mean(centered * centered))


def row_norms(x):
    """The Euclidean norm of each row (a reduction along an axis, no ``keepdims``)."""
    return np.sqrt(np.sum(x * x, axis=1))


def standardize_rows(x):
    """Each row to zero mean and unit standard deviation (``keepdims`` reductions)."""
    mean = x.mean(axis=1, keepdims=True)
    std = x.std(axis=1, keepdims=True)
    return (x - mean) / (std + 1e-12)


def logsumexp_rows(x):
    """The log-sum-exp of each row, shifted by the row's maximum for stability."""
    m = x.max(axis=1, keepdims=True)
    return np.log(np.sum(np.exp(x - m), axis=1)) + m[:, 0]


def softmax_rows(x):
    """The softmax of each row."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# --- distances and a dense layer ------------------------------------------------------------


def distance_matrix(a, b):
    """Euclidean distances between the rows of ``a`` (n, d) and of ``b`` (m, d): (n, m)."""
    return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))


def dense_relu(x, w, b):
    """A dense layer with a ReLU: ``max(x @ w + b, 0)``."""
    return np.maximum(x @ w + b, 0.0)


# --- programs as users write them -------------------------------------------------------------


def mlp_tanh(x, weights, biases):
    """A float32 multi-layer perceptron: one ``tanh`` layer per weight matrix of the stack."""
    h = x
    for i in range(6):
        h = np.tanh(h @ weights[i] + biases[i])
    return h


def gauss_loglik(x, mu, sigma):
    """The log-likelihood of a sample under Normal(mu, sigma), through its density."""
    density = np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (np.sqrt(2.0 * np.pi) * sigma)
    return np.sum(np.log(density))


def exp_poly3(a, b, c):
    """``exp`` of a quadratic form of three arrays."""
    return np.exp(a * a * 0.5 + b * c - a)


def complex_normalise(z):
    """Complex numbers scaled so that the largest modulus is 1."""
    return z / np.abs(z).max()


def great_circle(lat1, lon1, lat2, lon2):
    """Great-circle distances in km between points given in degrees."""
    to_radians = np.pi / 180.0
    phi1, phi2 = lat1 * to_radians, lat2 * to_radians
    half_dphi = (phi2 - phi1) / 2.0
    half_dlambda = (lon2 - lon1) * to_radians / 2.0
    a = np.sin(half_dphi) ** 2 + np.cos(phi1) * np.cos(phi2) * np.sin(half_dlambda) ** 2
    return 2.0 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(a))


def grid_slices(x, y):
    """An (n, n, 3) grid of points: x, y and their product, written one plane at a time."""
    n = x.shape[0]
    grid = np.zeros((n, n, 3))
    grid[:, :, 0] = x[:, None]
    grid[:, :, 1] = y[None, :]
    grid[:, :, 2] = x[:, None] * y[None, :]
    return grid


def dot_transposed(x1, x2):
    """Squared Euclidean distances between the rows of ``x1`` and of ``x2``, through a product."""
    return -2.0 * np.dot(x1, x2.T) + np.sum(x1**2, axis=1)[:, None] + np.sum(x2**2, axis=1)[None, :]


def pairwise_dist(x):
    """Euclidean distances between all pairs of rows of ``x`` (n, d): (n, n)."""
    return np.sqrt(np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1))


def stencil_5pt(u):
    """One explicit step of the heat equation on the interior of a grid (5-point stencil)."""
    return u[1:-1, 1:-1] + 0.25 * (
        u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    )


def box_blur_3x3(image):
    """The mean of each interior pixel's 3x3 neighbourhood, by nine shifted slices."""
    return (
        image[:-2, :-2]
        + image[:-2, 1:-1]
        + image[:-2, 2:]
        + image[1:-1, :-2]
        + image[1:-1, 1:-1]
        + image[1:-1, 2:]
        + image[2:, :-2]
        + image[2:, 1:-1]
        + image[2:, 2:]
    ) / 9.0


def reversed_cumsum(x):
    """The sums of each element and all after it (a cumulative sum from the end)."""
    return np.cumsum(x[::-1])[::-1]


# --- arguments ------------------------------------------------------------------------------


def inputs(seed=0):
    """The arguments of every program, by graph name: C-contiguous arrays (and scalars)."""
    rng = np.random.default_rng(seed)
    n = 1_000_000
    lat1, lat2 = rng.uniform(-1.5, 1.5, (2, n // 2))
    lon1, lon2 = rng.uniform(-3.1, 3.1, (2, n // 2))
    return {
        "haversine": (lat1, lon1, lat2, lon2),
        "softplus_logistic": (rng.normal(0.0, 3.0, n),),
        "gelu": (rng.normal(0.0, 2.0, n),),
        "horner": (rng.uniform(-1.0, 1.0, n),),
        "clip_where": (rng.normal(size=n), rng.normal(size=n)),
        "smooth_1d": (rng.normal(size=n),),
        "laplacian_2d": (rng.normal(size=(512, 512)),),
        "plain_sum": (rng.normal(size=n),),
        "sum_of_squares": (rng.normal(size=n), rng.normal(size=n)),
        "rms_deviation": (rng.normal(1.0, 2.0, n),),
        "row_norms": (rng.normal(size=(1000, 256)),),
        "standardize_rows": (rng.normal(2.0, 3.0, (1000, 256)),),
        "logsumexp_rows": (rng.normal(0.0, 4.0, (1000, 256)),),
        "softmax_rows": (rng.normal(0.0, 4.0, (1000, 256)),),
        "distance_matrix": (rng.normal(size=(200, 16)), rng.normal(size=(200, 16))),
        "dense_relu": (rng.normal(size=(256, 128)), rng.normal(0.0, 0.1, (128, 128)), rng.normal(size=128)),
        "mlp_tanh": (
            rng.normal(size=(256, 32)).astype(np.float32),
            rng.normal(0.0, 0.2, (6, 32, 32)).astype(np.float32),
            rng.normal(0.0, 0.1, (6, 32)).astype(np.float32),
        ),
        "gauss_loglik": (rng.normal(1.5, 2.0, 100_000), 1.5, 2.0),
        "exp_poly3": tuple(rng.uniform(-1.0, 1.0, 100_000) for _ in range(3)),
        "complex_normalise": (rng.normal(size=100_000) + 1j * rng.normal(size=100_000),),
        "great_circle": (
            rng.uniform(-90.0, 90.0, 100_000),
            rng.uniform(-180.0, 180.0, 100_000),
            rng.uniform(-90.0, 90.0, 100_000),
            rng.uniform(-180.0, 180.0, 100_000),
        ),
        "grid_slices": (np.linspace(-1.0, 1.0, 800), np.linspace(0.0, 2.0, 800)),
        "dot_transposed": (rng.normal(size=(1, 512)), rng.normal(size=(10_000, 512))),
        "pairwise_dist": (rng.normal(size=(300, 3)),),
        "stencil_5pt": (rng.normal(size=(1000, 1000)),),
        "box_blur_3x3": (rng.normal(size=(1000, 1000)),),
        "reversed_cumsum": (rng.normal(size=n),),
    }
