"""A small multi-layer perceptron's forward pass in float32, in plain NumPy.

Eight tanh layers of width 16, each with its own weights and bias passed as arguments, so that a
traced graph calls the same ``dense`` layer eight times on different inputs. Outside a build,
``@aotbuild.subgraph`` changes nothing: this is plain NumPy.
"""

import numpy as np

import aotbuild

WIDTH = 16
N_LAYERS = 8


@aotbuild.subgraph
def dense(x, w, b):
    """One fully connected layer: ``tanh(x @ w + b)`` for x (batch, 16), w (16, 16), b (16,).

    A subgraph: traced once, compiled once, and called by declaration by each of the 8 layers.
    """
    return np.tanh(x @ w + b)


def mlp(x, w0, b0, w1, b1, w2, b2, w3, b3, w4, b4, w5, b5, w6, b6, w7, b7):
    """The activations of eight ``dense`` layers applied in turn to x (float32, (batch, 16)).

    Layer k uses the weight matrix ``wk`` (float32, (16, 16)) and bias ``bk`` (float32, (16,)).
    """
    layers = [(w0, b0), (w1, b1), (w2, b2), (w3, b3), (w4, b4), (w5, b5), (w6, b6), (w7, b7)]
    activations = x
    for w, b in layers:
        activations = dense(activations, w, b)
    return activations


def make_weights(seed):
    """Deterministic float32 arguments for :func:`mlp` after x: ``(w0, b0, ..., w7, b7)``.

    Weights are drawn from Normal(0, 1/sqrt(16)), which keeps pre-activations of order one (tanh
    neither saturates nor collapses towards zero), and biases from Normal(0, 0.1).
    """
    rng = np.random.default_rng(seed)
    parameters = []
    for _ in range(N_LAYERS):
        parameters.append(rng.normal(0.0, WIDTH**-0.5, size=(WIDTH, WIDTH)).astype(np.float32))
        parameters.append(rng.normal(0.0, 0.1, size=WIDTH).astype(np.float32))
    return tuple(parameters)


def loss(x, y, w0, b0, w1, b1, w2, b2, w3, b3, w4, b4, w5, b5, w6, b6, w7, b7):
    """The mean squared error of :func:`mlp` on x against targets y (float32, (batch, 16)):
    graphs.toml asks for its gradient with respect to every weight and bias (``grad = [...]``)."""
    out = mlp(x, w0, b0, w1, b1, w2, b2, w3, b3, w4, b4, w5, b5, w6, b6, w7, b7)
    return np.mean((out - y) ** 2)


def loss_and_grad_by_hand(x, y, *parameters):
    """:func:`loss` and its gradient ``(d_w0, d_b0, ..., d_w7, d_b7)`` by backpropagation written
    out in NumPy: the reference the compiled ``grad`` graph is checked against."""
    layers = list(zip(parameters[0::2], parameters[1::2], strict=True))
    activations = [x]
    for w, b in layers:
        activations.append(np.tanh(activations[-1] @ w + b))
    out = activations[-1]
    value = np.mean((out - y) ** 2)
    g = 2 * (out - y) / np.float32(out.size)
    grads = []
    for k in reversed(range(len(layers))):
        g = g * (1 - activations[k + 1] ** 2)  # through tanh
        grads.append((activations[k].T @ g, g.sum(axis=0)))
        g = g @ layers[k][0].T
    return value, tuple(array for pair in reversed(grads) for array in pair)
