"""aotbuild: ahead-of-time compilation of NumPy graphs and numba kernels into one package.

``aotbuild compile graphs.toml`` traces each declared function into a graph of Ops, generates one
module per Op, compiles each with numba into its own object, links them into one extension
module and writes an importable package that needs only NumPy at run time.
"""

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # ``aotbuild.subgraph`` without importing the tracer when only the command line is used.
    if name == "subgraph":
        from .trace.subgraph import subgraph

        return subgraph
    if name in ("value_and_grad", "grad"):
        from .trace import autodiff

        return getattr(autodiff, name)
    raise AttributeError(f"module 'aotbuild' has no attribute {name!r}")
