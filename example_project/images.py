"""Image processing in plain NumPy: aotbuild traces this into a graph of Ops.

Images are float32 stacks of shape (channels, height, width), and every result stays float32:
the constants are Python floats, which NumPy 2 does not let widen a float32 array.
"""

import numpy as np


def normalize_channels(images, eps=1e-6):
    """Each channel of ``images`` (channels, height, width) to zero mean and unit variance."""
    mean = images.mean(axis=(1, 2), keepdims=True)
    centered = images - mean
    std = np.sqrt((centered**2).mean(axis=(1, 2), keepdims=True))
    return centered / (std + eps)


def box_blur(images):
    """The 3x3 box blur of each channel, on the interior: shape (channels, height-2, width-2).

    Output pixel (y, x) is the mean of the input's 3x3 neighbourhood centred on (y+1, x+1),
    computed as the mean of the nine shifted slices of ``images``.
    """
    height = images.shape[1]
    width = images.shape[2]
    windows = [images[:, i : height - 2 + i, j : width - 2 + j] for i in range(3) for j in range(3)]
    total = windows[0]
    for window in windows[1:]:
        total = total + window
    return total / 9.0


def gradient_magnitude(images):
    """The magnitude of each channel's gradient on the interior: shape (channels, height-2, width-2).

    Central differences: d/dx at (y, x) is (f(y, x+1) - f(y, x-1)) / 2, likewise d/dy, so the
    factor 0.5 makes the result the gradient per pixel of spacing.
    """
    dx = images[:, 1:-1, 2:] - images[:, 1:-1, :-2]
    dy = images[:, 2:, 1:-1] - images[:, :-2, 1:-1]
    return np.sqrt(dx * dx + dy * dy) * 0.5


def pipeline(images):
    """Edge strength of a stack of images: normalise each channel, blur, then take the gradient
    magnitude. The result has shape (channels, height-4, width-4)."""
    return gradient_magnitude(box_blur(normalize_channels(images)))
