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
        "float64[:](float64[::1, :], float32[::1, :, :])",
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
        ("float64(float64[:, ::1, :])", 9, "marks the last dimension (C order, [:, ::1]) or the first"),
        ("float64(float64[::1, ::1])", 9, "marks the last dimension (C order, [:, ::1]) or the first"),
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


NUMBA_SPELLINGS = [
    "Tuple((float64, float64))(float64[:], float64[:])",
    "Tuple([int64, float32[:, ::1]])(float32[:, :, ::1])",
    "UniTuple(float64, 3)(float64[::1])",
    "UniTuple(int32[:], 2)(int32[:, :], intp)",
    "Array(float64, 2, 'C')(Array(float64, 2, 'A'), Array(int8, 1, 'C'))",
    'Array(float32, 1, "A")(Array(float32, 3, "C", readonly=True), uintp)',
    "float64(Array(float64, 1, 'A', readonly=False, aligned=True))",
    "types.float64(types.float64[:], numba.int64, nb.boolean, numba.types.complex128)",
    "numba.core.types.void(numba.core.types.float32[:, ::1])",
    "float64[:](float64[::1, :], Array(float64, 3, 'F'))",
    "void(double[:], int_, uint, intc, uintc, long_, ulong, longlong, ulonglong)",
    "double(byte, char, uchar, short, ushort, ssize_t, size_t, py_int, py_float, py_complex)",
    "none(np_float64[:], c_int32, np_intp, np_uintp, bool_, b1, c8, c16, np_double, np_float_)",
]


@pytest.mark.parametrize("text", NUMBA_SPELLINGS)
def test_numbas_spellings_parse_to_numbas_types(text: str) -> None:
    """Every spelling gives the types numba gives: its string parser evaluates them in
    ``numba.types``; code spelling them qualified (``@njit(types.float64(...))``) evaluates them
    as Python, with ``numba``, ``nb`` and ``types`` imported."""
    import numba
    from numba.core import sigutils

    from aotbuild.compile.numba_types import signature_to_numba

    evaluated = eval(text, {"numba": numba, "nb": numba, "types": numba.types}, vars(numba.types))
    args, result = sigutils.normalize_signature(evaluated)
    assert signature_to_numba(parse_signature(text)) == (tuple(args), result)


def test_every_numba_alias_of_a_supported_type_is_accepted() -> None:
    from numba.core import types as nbtypes

    from aotbuild.compile.numba_types import to_numba
    from aotbuild.config.signature import DTYPE_ALIASES

    supported = {to_numba(Scalar(dtype)) for dtype in set(DTYPE_ALIASES.values())}
    names = [name for name, value in vars(nbtypes).items() if isinstance(value, nbtypes.Type)]
    missing = [name for name in names if vars(nbtypes)[name] in supported and name not in DTYPE_ALIASES]
    assert not missing, f"numba spells supported types {missing}; accept them"
    for name in names:
        if name in DTYPE_ALIASES:
            assert to_numba(Scalar(DTYPE_ALIASES[name])) == vars(nbtypes)[name], name


@pytest.mark.parametrize(
    "text",
    [
        "Array(float64, 2, 'A', readonly=True)(int64)",
        "Tuple((float64, Array(int32, 1, 'C', readonly=True)))(int64)",
    ],
)
def test_readonly_results_are_refused(text: str) -> None:
    with pytest.raises(SignatureError, match="readonly=True is for arguments"):
        parse_signature(text)


def test_fortran_order_in_both_spellings() -> None:
    parsed = parse_signature("float64[:](float64[::1, :], Array(float32, 3, 'F'), float64[::1])")
    assert parsed.args == (Array("float64", 2, "F"), Array("float32", 3, "F"), Array("float64", 1, "C"))
    assert str(parsed) == "float64[:](float64[::1, :], float32[::1, :, :], float64[::1])"
    assert parse_signature("void(Array(float64, 1, 'F'))").args == (Array("float64", 1, "C"),)


def test_readonly_arrays_round_trip() -> None:
    parsed = parse_signature("float64(Array(float64, 2, 'C', readonly=True), float64[:])")
    assert parsed.args[0] == Array("float64", 2, "C", readonly=True)
    assert str(parsed) == "float64(Array(float64, 2, 'C', readonly=True), float64[:])"
    assert parse_signature(str(parsed)) == parsed


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("float16(float64)", 1, "float16 is a numba type aotbuild does not support (half-precision"),
        ("float64(unicode_type)", 9, "does not support (strings)"),
        ("f8(np.float64)", 4, "'np.float64' is not a numba type name"),
        ("f8(Array(f8, 2, 'X'))", 17, "the layout is 'C' (C order), 'F' (Fortran order) or 'A' (any)"),
        ("f8(Array(f8, 0, 'C'))", 14, "at least one dimension"),
        ("f8(Array(f8, 2))", 15, "',' then the layout"),
        ("f8(Array(f8, 2, 'C', aligned=False))", 22, "unaligned arrays are not supported"),
        ("f8(Array(f8, 2, 'C', mutable=True))", 22, "takes readonly=True/False"),
        ("f8(UniTuple(f8, 2))", 4, "a tuple is only a result type"),
        ("UniTuple(f8)(f8)", 12, "the number of items"),
        ("UniTuple(f8, 0)(f8)", 1, "at least one item"),
        ("Tuple((f8, f8)(f8)", 15, "')' closing Tuple(...)"),
    ],
)
def test_numba_spelling_errors_name_the_position(text: str, position: int, expected: str) -> None:
    with pytest.raises(SignatureError) as info:
        parse_signature(text)
    assert f"at position {position}:" in str(info.value)
    assert expected in str(info.value)


def test_argument_types_alone_ask_for_the_result() -> None:
    with pytest.raises(SignatureError, match=r"argument types only .* as in float64\(float64\[:\], int64\)"):
        parse_signature("(float64[:], int64)")
