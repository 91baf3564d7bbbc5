"""Build the example project's functions with numba.pycc (deprecated AOT), for the benchmark."""

import sys
import warnings
from pathlib import Path

warnings.simplefilter("ignore")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numba_peer  # noqa: E402
from numba.pycc import CC  # noqa: E402

out = Path(sys.argv[1])
cc = CC("example_pycc")
cc.output_dir = str(out)
cc.export("normal_logp", "f8(f8[:], f8, f8)")(numba_peer.normal_logp.py_func)
cc.export("det", "f8(f8[:, :])")(numba_peer.det.py_func)
cc.compile()
