import numpy as np
from helpers import norm, scale, shift


def scaled(x):
    return np.exp(scale(x)) - 1.0


def shifted(x):
    return np.log1p(np.abs(shift(x)))


def normed(x):
    return x / norm(x)
