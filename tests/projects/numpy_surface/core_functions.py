"""Functions on the core of their operands, writing into their outputs (the last parameters):
the fixture's generalized ufuncs, as numba's @guvectorize takes them."""


def wdot(x, y, w, out):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * y[i] * w[i]
    out[0] = total


def add_scalar(x, k, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + k


def matvec(a, v, out):
    for i in range(a.shape[0]):
        total = 0.0
        for j in range(a.shape[1]):
            total += a[i, j] * v[j]
        out[i] = total


def nonnegative_sum(x, out):
    for i in range(x.shape[0]):
        if x[i] < 0:
            raise ValueError("a negative value")
    out[0] = x.sum()


def extremes(x, low, high):
    low[0] = x.min()
    high[0] = x.max()


def cross3(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
