"""Vector-Jacobian rules, by kind of Op: each gives an Op's input cotangents from its output's, in
traced NumPy (the reverse pass that uses them is :mod:`aotbuild.trace.gradients`)."""
