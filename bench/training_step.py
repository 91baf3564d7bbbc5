"""One training step of a small MLP — its loss, the loss's gradient, a gradient-descent update —
for bench_models.py: with the gradient aotbuild derives (``aotbuild.value_and_grad`` while
tracing), and with the gradient written by hand, which NumPy runs as it is, numba's JIT compiles
(``numba_models.step_by_hand``) and aotbuild traces. float32 throughout; ``rate`` is float32."""

import numpy as np

import aotbuild

#: graphs.toml signature of both steps: the loss and the four updated arrays.
SIGNATURE = (
    "Tuple(float32, float32[:, ::1], float32[::1], float32[:, ::1], float32[::1])"
    "(float32[:, ::1], float32[::1], float32[:, ::1], float32[::1], float32[:, ::1], float32[:, ::1], float32)"
)


def loss(w1, b1, w2, b2, x, y):
    """Mean squared error of a tanh layer and a linear one."""
    h = np.tanh(x @ w1 + b1)
    return np.mean((h @ w2 + b2 - y) ** 2)


def step(w1, b1, w2, b2, x, y, rate):
    """The loss, and each weight moved against its gradient (derived by aotbuild)."""
    value, (g1, c1, g2, c2) = aotbuild.value_and_grad(loss, ("w1", "b1", "w2", "b2"))(w1, b1, w2, b2, x, y)
    return value, w1 - rate * g1, b1 - rate * c1, w2 - rate * g2, b2 - rate * c2


def step_by_hand(w1, b1, w2, b2, x, y, rate):
    """:func:`step` with backpropagation written out (numba's JIT compiles this as it is)."""
    h = np.tanh(x @ w1 + b1)
    diff = h @ w2 + b2 - y
    value = np.mean(diff**2)
    g = diff * 2 / diff.size  # float32 in NumPy 2, numba and aotbuild alike
    g2 = h.T @ g
    c2 = g.sum(axis=0)
    gh = (g @ w2.T) * (1 - h * h)
    g1 = x.T @ gh
    c1 = gh.sum(axis=0)
    return value, w1 - rate * g1, b1 - rate * c1, w2 - rate * g2, b2 - rate * c2


def arguments(batch=64, inputs=16, hidden=32, outputs=8, seed=0):
    """Deterministic float32 arguments of the steps."""
    rng = np.random.default_rng(seed)

    def normal(*shape, scale=1.0):
        return (rng.normal(size=shape) * scale).astype(np.float32)

    return (
        normal(inputs, hidden, scale=inputs**-0.5),
        normal(hidden, scale=0.1),
        normal(hidden, outputs, scale=hidden**-0.5),
        normal(outputs, scale=0.1),
        normal(batch, inputs),
        normal(batch, outputs),
        np.float32(0.05),
    )
