"""Helpers a kernel reaches as `kernel_helpers.f(...)` (tests/test_kernels.py)."""

SCALE = 2.5


def clamp_scaled(v, low, high):
    return min(max(v * SCALE, low), high)
