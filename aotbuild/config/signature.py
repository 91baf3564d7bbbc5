"""The signature grammar: numba's spelling, parsed by a small recursive-descent parser.

Signatures are data from a config file, so they are never ``eval``-ed (numba's ``sigutils``
evaluates them in ``numba.types``' namespace; this grammar accepts what that evaluation gives for
the types aotbuild supports)::

    signature := result "(" [value ("," value)*] ")"
    result    := "none" | "void" | tuple | value
    tuple     := "Tuple" "(" items ")"                  (aotbuild's spelling)
               | "Tuple" "(" "(" items ")" ")"          (numba's: one iterable)
               | "Tuple" "(" "[" items "]" ")"
               | "UniTuple" "(" value "," INTEGER ")"
               | "(" items ")"
    items     := value ("," value)* [","]
    value     := dtype ["[" dim ("," dim)* "]"]
               | "Array" "(" dtype "," INTEGER "," LAYOUT ["," keyword]* ")"
    keyword   := "readonly" "=" ("True" | "False") | "aligned" "=" "True"
    dim       := ":" | "::1"            (``::1`` last: C order; first: Fortran order)

Any name may be qualified as numba's code spells it: ``numba.float64``, ``nb.float64``,
``types.float64``, ``numba.types.float64``, ``numba.core.types.float64``.

Errors name the position (1-based column) and what was expected there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import SignatureError
from ..types import NONE, Array, Layout, Result, Scalar, Signature, TupleOf, Value


def _spelled(dtype: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), dtype)


DTYPE_ALIASES = {
    # NumPy's names, their one-letter codes, and numba's aliases for them (numba.core.types on
    # a 64-bit Linux: C's int and long, Python's int and float, numba's `c_`/`np_` spellings).
    **_spelled("bool", "boolean bool bool_ b1 py_bool c_bool np_bool_"),
    **_spelled("int8", "int8 i1 char np_char c_int8 np_int8"),
    **_spelled("int16", "int16 i2 short np_short c_int16 np_int16"),
    **_spelled("int32", "int32 i4 intc np_intc c_int32 np_int32"),
    **_spelled(
        "int64",
        "int64 i8 intp int_ np_int_ long_ np_long longlong np_longlong ssize_t py_int c_int64 "
        "np_int64 c_intp np_intp",
    ),
    **_spelled("uint8", "uint8 u1 byte uchar np_uchar c_uint8 np_uint8"),
    **_spelled("uint16", "uint16 u2 ushort np_ushort c_uint16 np_uint16"),
    **_spelled("uint32", "uint32 u4 uintc np_uintc c_uint32 np_uint32"),
    **_spelled(
        "uint64",
        "uint64 u8 uintp uint np_uint ulong np_ulong ulonglong np_ulonglong size_t c_uint64 "
        "np_uint64 c_uintp np_uintp",
    ),
    # numba's `float_` (NumPy 1 only) and `np_float_` are float32, unlike NumPy's old `np.float_`.
    **_spelled("float32", "float32 f4 float_ np_float_ c_float32 np_float32"),
    **_spelled("float64", "float64 f8 double np_double py_float c_float64 np_float64"),
    **_spelled("complex64", "complex64 c8 np_complex64"),
    **_spelled("complex128", "complex128 c16 py_complex np_complex128"),
}

UNSUPPORTED_TYPES = {
    "float16": "half-precision floats",
    "f2": "half-precision floats",
    "np_float16": "half-precision floats",
    "c_float16": "half-precision floats",
    "unicode_type": "strings",
    "string": "strings",
    "pyobject": "Python objects",
    "voidptr": "raw pointers",
    "CPointer": "raw pointers",
    "optional": "optional values",
    "Optional": "optional values",
    "List": "lists",
    "ListType": "typed lists",
    "DictType": "typed dicts",
    "NamedTuple": "named tuples",
    "NamedUniTuple": "named tuples",
    "Record": "record (structured) dtypes",
    "NestedArray": "record (structured) dtypes",
    "slice2_type": "slices",
    "slice3_type": "slices",
    "Omitted": "omitted arguments (leave the parameter out of the signature: its default is used)",
}
"""numba's names of types aotbuild's calling convention cannot carry: refused by name."""

QUALIFIERS = ("numba.core.types.", "numba.types.", "numba.", "nb.", "types.")
"""How numba code spells a type name from numba's namespaces."""

_TOKEN = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)"
    r"|(?P<c_dim>::\s*1)|(?P<integer>[0-9]+)|(?P<string>'[^']*'|\"[^\"]*\")|(?P<punct>[()\[\],:=]))"
)


@dataclass(frozen=True)
class _Token:
    kind: str  # "name", "c_dim", one of "()[],:", or "end"
    text: str
    column: int  # 1-based


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None:
            column = pos + 1 + (len(text[pos:]) - len(text[pos:].lstrip()))
            raise SignatureError(f"at position {column}: unexpected character {text[column - 1]!r}")
        kind = match.lastgroup or ""
        value = match.group(kind)
        column = match.start(kind) + 1
        if kind == "name":
            value = _unqualified(re.sub(r"\s+", "", value), column)
        tokens.append(_Token(value if kind == "punct" else kind, value, column))
        pos = match.end()
    tokens.append(_Token("end", "", len(text) + 1))
    return tokens


def _unqualified(name: str, column: int) -> str:
    """``name`` without a numba namespace (``numba.float64`` is ``float64``)."""
    for qualifier in QUALIFIERS:
        if name.startswith(qualifier):
            name = name[len(qualifier) :]
            break
    if "." in name:
        raise SignatureError(
            f"at position {column}: {name!r} is not a numba type name; write float64, "
            "numba.float64 or types.float64 (numba's namespaces, not NumPy's)"
        )
    return name


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.index = 0

    @property
    def current(self) -> _Token:
        return self.tokens[self.index]

    def fail(self, expected: str) -> SignatureError:
        token = self.current
        found = "the end of the signature" if token.kind == "end" else repr(token.text)
        return SignatureError(f"at position {token.column}: expected {expected}, found {found}")

    def take(self, kind: str, expected: str) -> _Token:
        if self.current.kind != kind:
            raise self.fail(expected)
        token = self.current
        self.index += 1
        return token

    def accept(self, kind: str) -> bool:
        if self.current.kind == kind:
            self.index += 1
            return True
        return False

    def signature(self) -> Signature:
        bare_tuple = self.current.kind == "("
        result = self.result()
        if bare_tuple and self.current.kind == "end":
            raise SignatureError(
                f"{self.text!r} gives the argument types only (numba infers the result); aotbuild "
                f"needs the result type too, as in float64{self.text.strip()}"
            )
        self.take("(", "'(' opening the argument list")
        args: list[Value] = []
        if not self.accept(")"):
            args.append(self.value())
            while self.accept(","):
                args.append(self.value())
            self.take(")", "',' or ')' in the argument list")
        self.take("end", "the end of the signature")
        signature = Signature(tuple(args), result)
        if any(isinstance(value, Array) and value.readonly for value in signature.results):
            raise SignatureError("readonly=True is for arguments: a result is a new array the caller owns")
        return signature

    def result(self) -> Result:
        token = self.current
        if token.kind == "name" and token.text in ("none", "void"):
            self.index += 1
            return NONE
        if token.kind == "name" and token.text == "Tuple":
            self.index += 1
            self.take("(", "'(' after Tuple")
            for opening, closing in (("(", ")"), ("[", "]")):
                if self.accept(opening):  # numba's Tuple((a, b)): one iterable of types
                    items = self.tuple_items(closing)
                    self.take(")", "')' closing Tuple(...)")
                    return items
            return self.tuple_items(")")
        if token.kind == "name" and token.text == "UniTuple":
            self.index += 1
            self.take("(", "'(' after UniTuple")
            item = self.value()
            self.take(",", "',' then the number of items, as in UniTuple(float64, 3)")
            count = int(self.take("integer", "the number of items, as in UniTuple(float64, 3)").text)
            self.take(")", "')' closing UniTuple(...)")
            if count < 1:
                raise SignatureError(f"at position {token.column}: a UniTuple holds at least one item")
            return TupleOf((item,) * count)
        if token.kind == "(":
            self.index += 1
            return self.tuple_items(")")
        return self.value()

    def tuple_items(self, closing: str) -> TupleOf:
        items = [self.value()]
        while self.accept(","):
            if self.current.kind == closing:
                break
            items.append(self.value())
        self.take(closing, f"',' or '{closing}' closing the tuple")
        return TupleOf(tuple(items))

    def dtype(self) -> str:
        token = self.current
        if token.kind == "name" and token.text in DTYPE_ALIASES:
            self.index += 1
            return DTYPE_ALIASES[token.text]
        if token.kind == "name" and token.text in UNSUPPORTED_TYPES:
            raise SignatureError(
                f"at position {token.column}: {token.text} is a numba type aotbuild does not support "
                f"({UNSUPPORTED_TYPES[token.text]}); supported: booleans, integers, float32/64, "
                "complex64/128, arrays of them, and tuples of those as results"
            )
        if token.kind == "name" and token.text in ("Tuple", "UniTuple"):
            raise SignatureError(
                f"at position {token.column}: a tuple is only a result type; pass its items as "
                "separate arguments"
            )
        raise self.fail("a type name such as float64, int64 or boolean")

    def value(self) -> Value:
        token = self.current
        if token.kind == "name" and token.text == "Array":
            return self.array_call()
        dtype = self.dtype()
        if not self.accept("["):
            return Scalar(dtype)
        dims = [self.dim()]
        while self.accept(","):
            dims.append(self.dim())
        self.take("]", "',' or ']' closing the array dimensions")
        marked = [k for k, dim in enumerate(dims) if dim == "::1"]
        if len(marked) > 1 or marked not in ([], [0], [len(dims) - 1]):
            raise SignatureError(
                f"at position {token.column}: '::1' marks the last dimension (C order, [:, ::1]) "
                "or the first (Fortran order, [::1, :]), once"
            )
        layout: Layout = "A" if not marked else "C" if marked == [len(dims) - 1] else "F"
        return Array(dtype, len(dims), layout)

    def array_call(self) -> Array:
        """numba's ``Array(float64, 2, 'C')``, with ``readonly=`` and ``aligned=`` keywords."""
        self.index += 1
        self.take("(", "'(' after Array")
        dtype = self.dtype()
        self.take(",", "',' then the number of dimensions, as in Array(float64, 2, 'C')")
        ndim_token = self.take("integer", "the number of dimensions, as in Array(float64, 2, 'C')")
        if int(ndim_token.text) < 1:
            raise SignatureError(
                f"at position {ndim_token.column}: an array has at least one dimension; use a scalar type"
            )
        self.take(",", "',' then the layout, as in Array(float64, 2, 'C')")
        layout_token = self.take("string", "the layout 'C', 'F' or 'A', as in Array(float64, 2, 'C')")
        layout = layout_token.text[1:-1]
        if layout not in ("C", "F", "A"):
            raise SignatureError(
                f"at position {layout_token.column}: the layout is 'C' (C order), 'F' (Fortran "
                f"order) or 'A' (any), not {layout_token.text}"
            )
        readonly = False
        while self.accept(","):
            keyword = self.take("name", "readonly= or aligned=")
            self.take("=", f"'=' after {keyword.text}")
            flag = self.take("name", "True or False")
            if flag.text not in ("True", "False") or keyword.text not in ("readonly", "aligned"):
                raise SignatureError(
                    f"at position {keyword.column}: Array(...) takes readonly=True/False and "
                    f"aligned=True, not {keyword.text}={flag.text}"
                )
            if keyword.text == "aligned" and flag.text == "False":
                raise SignatureError(f"at position {keyword.column}: unaligned arrays are not supported")
            if keyword.text == "readonly":
                readonly = flag.text == "True"
        self.take(")", "',' or ')' closing Array(...)")
        ndim = int(ndim_token.text)
        shape: Layout = "C" if layout == "F" and ndim == 1 else layout  # type: ignore[assignment]
        return Array(dtype, ndim, shape, readonly)

    def dim(self) -> str:
        if self.accept(":"):
            return ":"
        if self.accept("c_dim"):
            return "::1"
        raise self.fail("':' or '::1' for an array dimension")


def parse_signature(text: str) -> Signature:
    """Parse ``text`` (e.g. ``"float64(float64[:], int64)"``) into a :class:`Signature`.

    Raises :class:`~aotbuild.errors.SignatureError` naming the position and what was expected.
    """
    if not isinstance(text, str) or not text.strip():
        raise SignatureError("the signature is empty; expected e.g. 'float64(float64[:])'")
    return _Parser(text).signature()
