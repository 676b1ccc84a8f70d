"""Checks of the public entry points' arguments (`verify`, `verify_chain`, `verify_stark`): an argument of the wrong
type or out of range is a one-line usage error (check "usage"), returned as the result like any
rejection, never a TypeError from deep inside nor a value silently read as another (True as 1)."""

from __future__ import annotations

from typing import Any

from .errors import VerificationError

MAX_FLOOR_BITS = 1024  # no configuration reaches more conjectured bits
MAX_MAX_WORK = 10**15  # work units (about 1 us each): decades of CPython


class UsageError(VerificationError):
    """An entry point was called with an argument of the wrong type or value."""

    check = "usage"


def shown(value: Any) -> str:
    """A short description of a value for a usage message (never its full repr: it may be huge)."""
    name = type(value).__name__
    if isinstance(value, bool) or (isinstance(value, (int, float)) and abs(value) < 1 << 64):
        return f"{name} {value!r}"
    if isinstance(value, str):
        return f"str {value[:40]!r}" + ("..." if len(value) > 40 else "")
    return name


def _number(n: int) -> str:
    """n as written in a message: 10^15 and 2^60 - 1 rather than their digits."""
    digits = str(n)
    if n >= 10**6 and digits.strip("0") == "1":
        return f"10^{len(digits) - 1}"
    if n >= 1 << 20 and not n & (n + 1):
        return f"2^{n.bit_length()} - 1"
    return digits


def check_bytes(fn: str, name: str, value: Any) -> None:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise UsageError(f"{fn}(): {name} must be bytes, not {shown(value)}")


def check_int(fn: str, name: str, value: Any, lo: int, hi: int, optional: bool = False) -> None:
    """value is an int in [lo, hi] (None too when optional); bool is not an int here."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        what = f"an int in [{lo}, {_number(hi)}]" + (" or None" if optional else "")
        raise UsageError(f"{fn}(): {name} must be {what}, not {shown(value)}")


def check_type(fn: str, name: str, value: Any, kind: type) -> None:
    if not isinstance(value, kind):
        raise UsageError(f"{fn}(): {name} must be of type {kind.__name__}, not {shown(value)}")


def check_callable(fn: str, name: str, value: Any) -> None:
    if value is not None and not callable(value):
        raise UsageError(f"{fn}(): {name} must be a function or None, not {shown(value)}")


def check_hex_digest(fn: str, name: str, value: Any) -> str | None:
    """A 32-byte digest as 64 hex digits (either case), returned in lower case; None passes."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) != 64 or any(c not in "0123456789abcdefABCDEF" for c in value):
        raise UsageError(f"{fn}(): {name} must be 64 hex digits or None, not {shown(value)}")
    return value.lower()


def check_verify_arguments(fn: str, min_security_bits: Any, max_work: Any, progress: Any = None) -> None:
    check_int(fn, "min_security_bits", min_security_bits, 0, MAX_FLOOR_BITS)
    check_int(fn, "max_work", max_work, 1, MAX_MAX_WORK, optional=True)
    check_callable(fn, "progress", progress)
