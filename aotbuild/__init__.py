"""aotbuild: ahead-of-time compilation of NumPy graphs and numba kernels into one package.

``aotbuild compile graphs.toml`` traces each declared function into a graph of Ops, generates one
module per Op, compiles each with numba into its own object, links them into one extension
module and writes an importable package that needs only NumPy at run time.
"""

import os

__version__ = "0.1.0"

# numba picks Intel SVML up when it is installed, and objects built with it need libsvml at run
# time. numba reads this when it is first imported, which may be by the user's own modules while
# they are traced: so it is set as soon as aotbuild is imported (the compile stage checks it).
os.environ["NUMBA_DISABLE_INTEL_SVML"] = "1"


def __getattr__(name: str) -> object:
    # ``aotbuild.subgraph`` without importing the tracer when only the command line is used.
    if name == "subgraph":
        from .trace.subgraph import subgraph

        return subgraph
    raise AttributeError(f"module 'aotbuild' has no attribute {name!r}")
