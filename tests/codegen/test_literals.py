"""Constants lifted into generated modules reproduce the value bit for bit."""

import numpy as np
import pytest

from aotbuild.codegen.literals import READABLE_ARRAY_LIMIT, constant_literal

NAN_PAYLOAD = np.frombuffer(np.uint64(0x7FF8000000000123).tobytes(), dtype=np.float64)[0]

VALUES = [
    np.float64(0.0),
    np.float64(-0.0),
    np.float64(np.inf),
    np.float64(-np.inf),
    np.float64(np.nan),
    np.float64(0.1),
    np.float64(1e-310),
    np.float32(0.1),
    np.float32(-np.inf),
    np.int64(-(2**63)),
    np.uint64(2**64 - 1),
    np.int8(-128),
    np.bool_(True),
    np.complex128(complex(-0.0, np.nan)),
    np.complex64(1.5 - 2j),
    NAN_PAYLOAD,
    np.array([1.0, -0.0, np.nan, np.inf]),
    np.arange(12, dtype=np.int32).reshape(3, 4),
    np.linspace(0, 1, READABLE_ARRAY_LIMIT + 1),
    np.array([True, False]),
    np.array([NAN_PAYLOAD, 1.0]),
    np.zeros((2, 0, 3)),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: f"{np.asarray(v).dtype}{np.asarray(v).shape}")
def test_round_trip(value) -> None:
    array = np.asarray(value)
    text = constant_literal(array)
    rebuilt = np.asarray(eval(text, {"np": np}))
    assert rebuilt.dtype == array.dtype
    assert rebuilt.shape == array.shape
    assert rebuilt.tobytes() == array.tobytes()


def test_small_arrays_are_readable() -> None:
    assert constant_literal(np.array([1.5, 2.0])) == "np.array([1.5, 2.0], dtype=np.float64)"
    assert constant_literal(np.asarray(np.float32(2.5))) == "np.float32(2.5)"
    assert "fromhex" in constant_literal(np.linspace(0, 1, READABLE_ARRAY_LIMIT + 1))
