"""The signature grammar: numba's spelling, parsed by a small recursive-descent parser.

Signatures are data from a config file, so they are never ``eval``-ed::

    signature := result "(" [value ("," value)*] ")"
    result    := "none" | "void" | tuple | value
    tuple     := "Tuple" "(" value ("," value)* ")"
               | "(" value ("," value)* [","] ")"
    value     := dtype ["[" dim ("," dim)* "]"]
    dim       := ":" | "::1"            (``::1`` only last: C order)

Errors name the position (1-based column) and what was expected there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..errors import SignatureError
from ..types import NONE, Array, Result, Scalar, Signature, TupleOf, Value

DTYPE_ALIASES = {
    "boolean": "bool",
    "bool_": "bool",
    "b1": "bool",
    "int8": "int8",
    "i1": "int8",
    "int16": "int16",
    "i2": "int16",
    "int32": "int32",
    "i4": "int32",
    "int64": "int64",
    "i8": "int64",
    "intp": "int64",
    "uint8": "uint8",
    "u1": "uint8",
    "uint16": "uint16",
    "u2": "uint16",
    "uint32": "uint32",
    "u4": "uint32",
    "uint64": "uint64",
    "u8": "uint64",
    "uintp": "uint64",
    "float32": "float32",
    "f4": "float32",
    "float64": "float64",
    "f8": "float64",
    "double": "float64",
    "complex64": "complex64",
    "c8": "complex64",
    "complex128": "complex128",
    "c16": "complex128",
}

_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<c_dim>::\s*1)|(?P<punct>[()\[\],:]))")


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
        tokens.append(_Token(value if kind == "punct" else kind, value, column))
        pos = match.end()
    tokens.append(_Token("end", "", len(text) + 1))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
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
        result = self.result()
        self.take("(", "'(' opening the argument list")
        args: list[Value] = []
        if not self.accept(")"):
            args.append(self.value())
            while self.accept(","):
                args.append(self.value())
            self.take(")", "',' or ')' in the argument list")
        self.take("end", "the end of the signature")
        return Signature(tuple(args), result)

    def result(self) -> Result:
        token = self.current
        if token.kind == "name" and token.text in ("none", "void"):
            self.index += 1
            return NONE
        if token.kind == "name" and token.text == "Tuple":
            self.index += 1
            self.take("(", "'(' after Tuple")
            return self.tuple_items()
        if token.kind == "(":
            self.index += 1
            return self.tuple_items()
        return self.value()

    def tuple_items(self) -> TupleOf:
        items = [self.value()]
        while self.accept(","):
            if self.current.kind == ")":
                break
            items.append(self.value())
        self.take(")", "',' or ')' closing the tuple")
        return TupleOf(tuple(items))

    def value(self) -> Value:
        token = self.current
        if token.kind != "name" or token.text not in DTYPE_ALIASES:
            raise self.fail("a type name such as float64, int64 or boolean")
        self.index += 1
        dtype = DTYPE_ALIASES[token.text]
        if not self.accept("["):
            return Scalar(dtype)
        dims = [self.dim()]
        while self.accept(","):
            dims.append(self.dim())
        self.take("]", "',' or ']' closing the array dimensions")
        if "::1" in dims[:-1]:
            raise SignatureError(
                f"at position {token.column}: '::1' may only mark the last dimension "
                "(C order); Fortran order is not supported, declare the array as [:, :]"
            )
        layout: Literal["A", "C"] = "C" if dims[-1] == "::1" else "A"
        return Array(dtype, len(dims), layout)

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
