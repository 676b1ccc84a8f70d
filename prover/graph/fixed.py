"""Vectorized fixed-point twins of the scalar op semantics in ``luminair.verifier.numeric``.

Every function here computes, on int64 numpy arrays of raw values, exactly what the matching
``op_*`` function of verifier/numeric.py computes on one Python int (tests/graph cross-check them
bit for bit). Domain violations raise ``DomainViolation`` with the first offending element; the
executor turns it into a ``BoundsError`` that names the node.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from luminair.verifier.graph.tables import table_rows
from luminair.verifier.numeric import DOT_ACC_BITS, DOT_ACC_BOUND, EXPONENTIALS, TABLE_FUNCTIONS, VALUE_MAX, VALUE_MIN, table_domain


class DomainViolation(Exception):
    """An op applied outside its domain at element ``index`` (raw input value ``raw``)."""

    def __init__(self, index: int, raw: int, reason: str, remedy: str):
        super().__init__(reason)
        self.index, self.raw, self.reason, self.remedy = index, raw, reason, remedy


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def fx_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Twin of op_add."""
    return a + b


def fx_mul(a: np.ndarray, b: np.ndarray, s: int) -> np.ndarray:
    """Twin of op_mul: (a*b + 2^(s-1)) >> s, an arithmetic (floor) shift, i.e. round half up."""
    return (a * b + (1 << (s - 1))) >> s


def fx_recip(x: np.ndarray, c: int) -> np.ndarray:
    """Twin of op_recip: sign(x) * floor(2^c / |x|)."""
    zero = x == 0
    if zero.any():
        i = _first(zero)
        raise DomainViolation(
            i, 0, "reciprocal of zero",
            "keep the divisor at least one raw unit away from zero (add an epsilon), or use a larger "
            "scale for finer resolution",
        )
    q = (1 << c) // np.abs(x)
    return np.where(x > 0, q, -q)


def fx_sqrt(x: np.ndarray, e: int) -> np.ndarray:
    """Twin of op_sqrt: floor(sqrt(x * 2^e)) (integer square root, corrected after float sqrt)."""
    neg = x < 0
    if neg.any():
        i = _first(neg)
        raise DomainViolation(
            i, int(x[i]), "square root of a negative value",
            "clamp the input at zero (e.g. relu) or add an epsilon before the square root",
        )
    v = x << e  # < 2^29, so the float estimate is within one of the integer root
    r = np.floor(np.sqrt(v.astype(np.float64))).astype(np.int64)
    r -= (r * r > v).astype(np.int64)
    r += ((r + 1) * (r + 1) <= v).astype(np.int64)
    return r


def fx_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Twin of op_mod: floor modulo (numpy.mod on int64 has Python's sign rule)."""
    zero = b == 0
    if zero.any():
        i = _first(zero)
        raise DomainViolation(i, 0, "modulo by zero", "make sure the divisor is never zero")
    return np.mod(a, b)


def fx_dot(a: np.ndarray, b: np.ndarray, shape: tuple[int, ...], axis: int, s: int) -> np.ndarray:
    """Twin of op_dot over one axis of two flat operands of ``shape``: the exact integer sum of
    products, rounded once (half up); every prefix sum must stay within the accumulator range."""
    prod = np.moveaxis((a * b).reshape(shape), axis, -1)
    prefix = np.cumsum(prod, axis=-1)
    bad = ((prefix < -DOT_ACC_BOUND) | (prefix >= DOT_ACC_BOUND)).any(axis=-1).reshape(-1)
    if bad.any():
        i = _first(bad)
        raise DomainViolation(
            i, int(prefix.reshape(-1, prefix.shape[-1])[i][-1]) if prefix.size else 0,
            f"a partial sum of this dot product leaves the accumulator range +-2^{DOT_ACC_BITS - 1} "
            "(the value shown is the output element's full sum of raw products)",
            "scale the inputs or weights down, or use a smaller scale",
        )
    total = prefix[..., -1] if prefix.shape[-1] else np.zeros(prefix.shape[:-1], dtype=np.int64)
    return ((total + (1 << (s - 1))) >> s).reshape(-1)


def fx_relu(x: np.ndarray) -> np.ndarray:
    """Twin of op_relu: max(x, 0)."""
    return np.maximum(x, 0)


def fx_less_than(a: np.ndarray, b: np.ndarray, s: int) -> np.ndarray:
    """Twin of op_less_than: 2^s (1.0) where a < b, else 0."""
    return (a < b).astype(np.int64) << s


@dataclass(frozen=True)
class LookupTable:
    """The full table of one function at one scale: ``values[x - lo]`` for raw x in [lo, hi]."""

    name: str
    scale: int
    lo: int
    hi: int
    values: np.ndarray


@lru_cache(maxsize=None)
def lookup_table(name: str, s: int) -> LookupTable:
    """Built from TABLE_FUNCTIONS over table_domain, once per (name, scale)."""
    dom = table_domain(name, s)
    if name == "erf" or name in EXPONENTIALS:
        # the verifier's table rows, computed once a process for both (tables.table_rows): every
        # entry of the domain (erf), or those from the first non-zero one (exp, exp2: 0 below it)
        xs, ys = table_rows(name, s)
        values = np.zeros(len(dom), dtype=np.int64)
        values[xs[0] - dom.start :] = ys
    else:
        fn = TABLE_FUNCTIONS[name]
        values = np.fromiter((fn(x, s) for x in dom), dtype=np.int64, count=len(dom))
    values.flags.writeable = False
    return LookupTable(name, s, dom.start, dom.stop - 1, values)


_TABLE_REMEDY = {
    "exp2": "its result would leave the value range: reduce the input (e.g. subtract a maximum first) "
            "or use a smaller scale for a wider range",
    "log2": "log2 needs a positive input at least one raw unit above zero: add an epsilon or clamp it",
    "sin": "use a smaller scale",
    "exp": "its result would leave the value range: reduce the input (e.g. subtract a maximum first) "
           "or use a smaller scale for a wider range",
}


def fx_table(name: str, x: np.ndarray, s: int) -> np.ndarray:
    """Twin of op_table(name, x, s): exp2 / log2 / sin by table lookup (erf: numeric.op_erf, +-1
    beyond its table)."""
    t = lookup_table(name, s)
    if name == "erf":
        inside = t.values[np.clip(x - t.lo, 0, len(t.values) - 1)]
        return np.where(x < t.lo, -(1 << s), np.where(x > t.hi, 1 << s, inside)).astype(np.int64)
    bad = (x < t.lo) | (x > t.hi)
    if bad.any():
        i = _first(bad)
        raise DomainViolation(
            i, int(x[i]),
            f"{name} input outside its table domain [{t.lo}, {t.hi}] (real [{t.lo / (1 << s):g}, "
            f"{t.hi / (1 << s):g}])",
            _TABLE_REMEDY[name],
        )
    return t.values[x - t.lo]


def quantize_floor(x: np.ndarray, s: int) -> np.ndarray:
    """Twin of NumericFormat.quantize without its checks: floor(x * 2^s + 1/2) as float64 (the caller
    checks finiteness and range before casting). x * 2^s is exact in float64, and + 1/2 rounds
    exactly as Python's float addition does."""
    return np.floor(np.asarray(x, dtype=np.float64) * float(1 << s) + 0.5)


def out_of_range(raw: np.ndarray) -> np.ndarray:
    return (raw < VALUE_MIN) | (raw > VALUE_MAX)
