"""One expression applied to twenty inputs, and a graph using it again (tests/test_dedupe.py)."""

import numpy as np


def twenty(x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15, x16, x17, x18, x19):
    return tuple(
        np.sin(x) * 2.0
        for x in (
            x0,
            x1,
            x2,
            x3,
            x4,
            x5,
            x6,
            x7,
            x8,
            x9,
            x10,
            x11,
            x12,
            x13,
            x14,
            x15,
            x16,
            x17,
            x18,
            x19,
        )
    )


def again(a, b):
    """Returns ``sin(a) * 2.0`` and uses it again: stored once, the Op ``twenty`` calls."""
    scaled = np.sin(a) * 2.0
    return scaled, np.sin(b) * 2.0 + scaled
