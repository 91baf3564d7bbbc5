"""The signature grammar: numba's spelling, parsed without eval, exact round trips."""

import pytest

from aotbuild.config.signature import parse_signature
from aotbuild.errors import SignatureError
from aotbuild.types import NONE, Array, Scalar, Signature, TupleOf


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("float64(float64[:])", Signature((Array("float64", 1, "A"),), Scalar("float64"))),
        (
            "f8(f4[:, ::1], i8, b1)",
            Signature((Array("float32", 2, "C"), Scalar("int64"), Scalar("bool")), Scalar("float64")),
        ),
        ("boolean(bool_[::1])", Signature((Array("bool", 1, "C"),), Scalar("bool"))),
        ("none(float64[:, :])", Signature((Array("float64", 2, "A"),), NONE)),
        ("void()", Signature((), NONE)),
        (
            "Tuple(float64, float64[:])(int32)",
            Signature((Scalar("int32"),), TupleOf((Scalar("float64"), Array("float64", 1, "A")))),
        ),
        (
            "(float64, int64[::1])(uint8)",
            Signature((Scalar("uint8"),), TupleOf((Scalar("float64"), Array("int64", 1, "C")))),
        ),
        ("(float64,)(c16)", Signature((Scalar("complex128"),), TupleOf((Scalar("float64"),)))),
        (
            "  float32 ( float32 [ : , : , :: 1 ] )  ",
            Signature((Array("float32", 3, "C"),), Scalar("float32")),
        ),
    ],
)
def test_parses(text: str, expected: Signature) -> None:
    assert parse_signature(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "float64(float64[:], float64[:], int64[:], float64[:])",
        "Tuple(float64, float64[:, ::1])(float32[:, :, ::1], int8)",
        "none(uint64[:])",
    ],
)
def test_round_trip(text: str) -> None:
    parsed = parse_signature(text)
    assert parse_signature(str(parsed)) == parsed
    assert str(parsed) == text


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("floatt(float64[:])", 1, "a type name"),
        ("float64(float64[)", 17, "':' or '::1'"),
        ("float64(float64[:] int64)", 20, "',' or ')'"),
        ("float64 float64", 9, "'(' opening the argument list"),
        ("float64(float64[::1, :])", 9, "may only mark the last dimension"),
        ("float64(float64[;])", 17, "unexpected character"),
        ("float64(float64)x", 17, "the end of the signature"),
        ("Tuple(float64(float64)", 14, "',' or ')' closing the tuple"),
    ],
)
def test_errors_name_the_position(text: str, position: int, expected: str) -> None:
    with pytest.raises(SignatureError) as info:
        parse_signature(text)
    message = str(info.value)
    assert f"at position {position}:" in message
    assert expected in message


def test_empty_signature() -> None:
    with pytest.raises(SignatureError, match="empty"):
        parse_signature("   ")


def test_never_evaluates() -> None:
    with pytest.raises(SignatureError):
        parse_signature("__import__('os').system('true')")
