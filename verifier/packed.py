"""Compact decoded lists: what the codecs (formats.py, graph/settings.py) decode a file's large
lists into, so that memory stays within a few bytes per byte of the file (a list of Python ints
or tuples costs 10 to 13 bytes of objects per byte it was decoded from).

* M31 words and 32-bit integers: `array("I")` / `array("i")` (4 bytes a value, as in the file);
* QM31 values: `QM31s`, four M31 words each in one `array("I")`, read back as tuples;
* Merkle digests: `Digests`, one `bytearray`, read back as `bytes`;
* 16-bit public values: `field_from_i16`, straight to M31 words without a Python int a value.

Both classes are mutable sequences (tests tamper with decoded proofs and encode them again) and
compare equal to any sequence of the same items. Arrays hold machine-order words: `from_le` and
`to_le` convert from and to the files' little-endian bytes."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, MutableSequence, Sequence
from typing import Any

from .fields import QM31, P
from .merkle import DIGEST_BYTES

WORD = "I"  # array typecode of an unsigned 32-bit word (an M31 value)
INT = "i"  # a signed 32-bit integer (shapes, steps, weights in settings.bin)
if array(WORD).itemsize != 4 or array(INT).itemsize != 4:  # every platform CPython and Pyodide run on
    raise ImportError("luminair's verifier needs 32-bit array('I') and array('i') items")
_BIG_ENDIAN = sys.byteorder == "big"


def from_le(typecode: str, raw: bytes | memoryview) -> array:
    """The little-endian words of `raw` as an array of `typecode`."""
    out = array(typecode)
    out.frombytes(raw)
    if _BIG_ENDIAN:
        out.byteswap()
    return out


def to_le(values: Iterable[int], typecode: str = WORD) -> bytes:
    """`values` as little-endian words (an array of that typecode is not converted value by value)."""
    words = values if isinstance(values, array) and values.typecode == typecode else array(typecode, values)
    if _BIG_ENDIAN:
        words = array(typecode, words)
        words.byteswap()
    return words.tobytes()


_SIGN = bytes(int(b >= 0x80) for b in range(256))  # bytes.translate: an i16's high byte -> its sign
_CHUNK = 1 << 16  # values converted at a time (a few hundred KB of temporaries)


def field_from_i16(raw: bytes | memoryview) -> array:
    """Little-endian i16 values as canonical M31 words (v, or v + P when negative) in an array("I"),
    in C-speed steps a chunk at a time: each value zero-extended to a 32-bit lane of one big integer,
    plus P - 2^16 in the lanes whose sign bit is set (no lane carries: u16 + P - 2^16 < 2^32)."""
    n = len(raw) // 2
    out = array(WORD, [0]) * n  # allocated once: growing it would copy it
    for start in range(0, n, _CHUNK):
        part = bytes(raw[2 * start : 2 * min(n, start + _CHUNK)])
        k = len(part) // 2
        lanes, signs = bytearray(4 * k), bytearray(4 * k)
        lanes[0::4], lanes[1::4] = part[0::2], part[1::2]
        signs[0::4] = part[1::2].translate(_SIGN)
        x = int.from_bytes(lanes, "little") + int.from_bytes(signs, "little") * (P - (1 << 16))
        out[start : start + k] = from_le(WORD, x.to_bytes(4 * k, "little"))
    return out


class _Packed(MutableSequence):
    """Items of WIDTH consecutive entries of one flat buffer."""

    __slots__ = ("flat",)
    WIDTH = 1

    def __init__(self, items: Iterable[Any] = (), *, flat: Any = None) -> None:
        self.flat = self._empty() if flat is None else flat
        if len(self.flat) % self.WIDTH:
            raise ValueError(f"{len(self.flat)} entries are not whole items of {self.WIDTH}")
        for item in items:
            self.append(item)

    def _empty(self) -> Any:
        raise NotImplementedError

    def _item(self, at: int) -> Any:
        raise NotImplementedError

    def _pack(self, item: Any) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self.flat) // self.WIDTH

    def _at(self, i: int) -> int:
        n = len(self)
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise IndexError(f"index {i} out of range for {n} items")
        return j * self.WIDTH

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step == 1:
                w = self.WIDTH
                return type(self)(flat=self.flat[start * w : max(start, stop) * w])
            return type(self)(self[j] for j in range(start, stop, step))
        return self._item(self._at(i))

    def __setitem__(self, i: int, item: Any) -> None:  # type: ignore[override]
        at = self._at(i)
        self.flat[at : at + self.WIDTH] = self._pack(item)

    def __delitem__(self, i: int) -> None:  # type: ignore[override]
        at = self._at(i)
        del self.flat[at : at + self.WIDTH]

    def insert(self, i: int, item: Any) -> None:
        n = len(self)
        j = max(0, min(n, i + n if i < 0 else i)) * self.WIDTH
        self.flat[j:j] = self._pack(item)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Packed):
            return type(other) is type(self) and self.flat == other.flat
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes, bytearray)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class QM31s(_Packed):
    """QM31 values, each four M31 words of one array("I")."""

    __slots__ = ()
    WIDTH = 4

    def _empty(self) -> array:
        return array(WORD)

    def _item(self, at: int) -> QM31:
        f = self.flat
        return (f[at], f[at + 1], f[at + 2], f[at + 3])

    def _pack(self, item: Any) -> array:
        words = array(WORD, item)
        if len(words) != 4:
            raise ValueError(f"a QM31 value has 4 coordinates, got {len(words)}")
        return words


class Digests(_Packed):
    """Merkle digests of DIGEST_BYTES bytes each, in one bytearray."""

    __slots__ = ()
    WIDTH = DIGEST_BYTES

    def _empty(self) -> bytearray:
        return bytearray()

    def _item(self, at: int) -> bytes:
        return bytes(self.flat[at : at + self.WIDTH])

    def _pack(self, item: Any) -> bytes:
        item = bytes(item)
        if len(item) != self.WIDTH:
            raise ValueError(f"a digest has {self.WIDTH} bytes, got {len(item)}")
        return item
