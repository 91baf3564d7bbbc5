"""Image processing in plain NumPy: aotbuild traces this into a graph of Ops."""

import numpy as np


def normalize_channels(images, eps=1e-6):
    """Each channel of ``images`` (channels, height, width) to zero mean and unit variance."""
    mean = images.mean(axis=(1, 2), keepdims=True)
    centered = images - mean
    std = np.sqrt((centered**2).mean(axis=(1, 2), keepdims=True))
    return centered / (std + eps)
