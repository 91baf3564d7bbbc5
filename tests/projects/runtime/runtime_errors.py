"""A user's exception class, in a module that imports at run time without numba."""


class OutOfRange(ValueError):
    """Raised from compiled code as itself when this module is importable."""
