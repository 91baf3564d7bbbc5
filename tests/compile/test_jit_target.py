"""numba's JIT set to the target in every process that compiles for it: an Op's object does not
depend on the CPU of the machine, or of the process, that built it."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap

import pytest

from aotbuild.compile import jit_target, workers
from aotbuild.compile.compiler import CompileFlags, CompileRequest, compile_request
from aotbuild.compile.keys import toolchain_key
from aotbuild.compile.target import resolve_target
from aotbuild.config.signature import parse_signature

#: A helper with a loop: numba's JIT vectorises it for its own CPU before linking it into the Op.
TEXT = """import numpy as np
from numba.extending import register_jitable


@register_jitable
def axpy(out, a, x, y):
    for i in range(out.shape[0]):
        out[i] = a * x[i] + y[i]


def op(a, x, y):
    out = np.empty_like(x)
    axpy(out, a, x, y)
    return out
"""


def request(target: str = "generic") -> CompileRequest:
    return CompileRequest(
        "aot_axpy_0123456789abcdef",
        TEXT,
        "op",
        parse_signature("float64[::1](float64, float64[::1], float64[::1])"),
        CompileFlags(),
        resolve_target(target),
        toolchain_key(),
    )


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: In a process whose numba set its CPU target up (this machine's) before aotbuild was asked:
#: where each of ``targets`` was compiled, and the objects' digests.
SET_UP_FIRST = textwrap.dedent(
    """
    import hashlib, json, os, sys
    import numba
    numba.njit("int64(int64)")(lambda x: x + 1)
    sys.path.insert(0, {tests!r})
    from compile.test_jit_target import request
    from aotbuild.compile import workers
    from aotbuild.compile.compiler import compile_request
    seen = []
    for target in {targets!r}:
        (result,) = workers.run_jobs([request(target)], jobs=1)
        seen.append({{
            "target": target,
            "elsewhere": result.worker != os.getpid(),
            "digest": hashlib.sha256(result.compiled.data).hexdigest(),
            "here": hashlib.sha256(compile_request(request(target)).data).hexdigest(),
        }})
    print(json.dumps(seen))
    """
)

#: In a process whose numba starts set for ``target``: the object's digest.
SET_FOR = textwrap.dedent(
    """
    import hashlib, json, sys
    sys.path.insert(0, {tests!r})
    from compile.test_jit_target import request
    from aotbuild.compile.compiler import compile_request
    print(json.dumps(hashlib.sha256(compile_request(request({target!r})).data).hexdigest()))
    """
)


def in_process(script: str, **env: str) -> object:
    environment = {k: v for k, v in os.environ.items() if k not in jit_target.VARIABLES} | env
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    output = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
        timeout=300,
        cwd=tests,
    ).stdout
    return json.loads(output.splitlines()[-1])


def set_for(target: str) -> str:
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment = jit_target.environment(resolve_target(target))
    digest_ = in_process(SET_FOR.format(tests=tests, target=target), **environment)
    assert isinstance(digest_, str)
    return digest_


def host_features() -> tuple[str, ...]:
    from aotbuild.compile.target import required_features

    return required_features(resolve_target("host"))


@pytest.mark.skipif("AVX2" not in host_features(), reason="a CPU that cannot run x86-64-v3 code")
def test_a_process_set_up_for_this_cpu_compiles_other_targets_in_workers_set_for_them() -> None:
    """generic, then x86-64-v3 (the workers' server started again for it), then generic again:
    each compiled in workers, with the object a process set for that target gives; compiled in
    that process itself, the helper would have been optimised for this CPU. That generic object
    proves the probe sees the JIT's CPU (this CPU vectorises wider than SSE2); x86-64-v3's may
    not, since on an AVX2 CPU without AVX-512 the JIT writes the same loop for both."""
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    targets = ["generic", "x86-64-v3", "generic"]
    seen = in_process(SET_UP_FIRST.format(tests=tests, targets=targets))
    expected = {target: set_for(target) for target in set(targets)}
    assert isinstance(seen, list) and [result["target"] for result in seen] == targets
    for result in seen:
        target = result["target"]
        assert result["elsewhere"] and result["digest"] == expected[target], target
    assert seen[0]["here"] != expected["generic"], "this probe does not depend on the JIT's CPU"


def test_a_process_set_up_for_another_cpu_has_a_worker_set_for_the_target_compile_the_job() -> None:
    """A cluster's worker that compiled for one target, given a job for another."""
    workers.compile_job(request())  # numba set up in this process, if it was not
    cpu, _ = jit_target.jit_cpu()
    other = "x86-64-v3" if cpu != "x86-64-v3" else "generic"
    result = workers.compile_job(request(other))
    assert result.compiled is not None and result.worker != os.getpid()
    assert digest(result.compiled.data) == set_for(other)


def test_jobs_for_this_processs_own_target_compile_here() -> None:
    cpu, features = jit_target.jit_cpu()
    own = next(
        (resolve_target(name) for name in ("host", "generic") if (cpu, features) == astuple(name)), None
    )
    if own is None:
        pytest.skip("this process's JIT is set for a named CPU")
    (result,) = workers.run_jobs([request(own.name)], jobs=1)
    assert result.worker == os.getpid()


def astuple(name: str) -> tuple[str, str]:
    target = resolve_target(name)
    return target.cpu, target.features


def test_a_build_claims_its_target_before_numba_starts() -> None:
    seen = in_process(
        "import json, os\n"
        "from aotbuild.compile import jit_target\n"
        "from aotbuild.compile.target import resolve_target\n"
        "claimed = jit_target.claim(resolve_target('generic'))\n"
        "import numba\n"
        "numba.njit('int64(int64)')(lambda x: x + 1)\n"
        "print(json.dumps({'claimed': claimed, 'jit': list(jit_target.jit_cpu()),"
        " 'still': jit_target.compiles_for(resolve_target('generic'))}))"
    )
    assert seen == {"claimed": True, "jit": ["generic", ""], "still": True}


def test_compile_request_itself_compiles_with_this_processs_jit() -> None:
    """The low-level call does what it is asked, here: routing is the jobs' business."""
    first = compile_request(request()).data
    assert compile_request(request()).data == first
