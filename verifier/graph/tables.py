"""Lookup tables of the graph AIR, generated with integer arithmetic (verifier/numeric.py), padded to
a power of two with copies of a real row (never with rows outside the function's graph):

* exp2:  (x, exp2(x)) for every input with a non-zero result; smaller inputs give 0 through a
         proven clamp in the component;
* exp:   (x, e^x) the same way (the fused exp of softmax, sigmoid, tanh);
* log2:  (m, log2(m / 2^14) * 2^s) for normalized mantissas m in [2^14, 2^15): a component scales its
         input by a power of two into that interval (exact, see numeric.log2_entry);
* pow2:  (e, 2^(14 - e)) for e in [0, 14], the normalizing factors;
* sin:   (a, sin(a)) for a in [0, 2^15): sin is odd, the component looks up |x|;
* erf:   (x, erf(x)) for every 16-bit input strictly between the saturation points -h and h; the
         component proves x <= -h or x >= h for the rows it clamps to -1 or 1.

The prover commits the tables inside the main tree; the verifier pins them by evaluating each
column at the out-of-domain point itself (verify.check_known_columns, poly.dense_columns_at: O(rows)
integer work) and requiring the proof's samples to match. No table root is pinned or trusted."""

from __future__ import annotations

from functools import lru_cache

from ..fields import P
from ..numeric import EXPONENTIALS, TABLE_FUNCTIONS, log2_entry, nonzero_start, table_domain

LOG2_MANTISSA_BITS = 14
TABLE_ORDER = ("exp2", "log2", "pow2", "sin", "exp", "erf")  # (range8 and range16: topology columns, components.py)


def _log2_ceil(n: int) -> int:
    return max(0, (n - 1).bit_length())


@lru_cache(maxsize=32)
def table_rows(name: str, scale_bits: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(inputs, outputs) as signed integers, row order, before padding."""
    s = scale_bits
    if name == "log2":
        m0 = 1 << LOG2_MANTISSA_BITS
        xs = tuple(range(m0, 2 * m0))
        shift = (LOG2_MANTISSA_BITS - s) << s  # log2_entry(m) = (14 - s) 2^s + log2(m / 2^14) 2^s
        return xs, tuple(log2_entry(m, s) - shift for m in xs)
    if name == "pow2":
        xs = tuple(range(LOG2_MANTISSA_BITS + 1))
        return xs, tuple(1 << (LOG2_MANTISSA_BITS - e) for e in xs)
    if name in EXPONENTIALS:
        xs = tuple(range(nonzero_start(name, s), table_domain(name, s).stop))
    elif name == "sin":
        xs = tuple(range(1 << 15))
    elif name == "erf":
        xs = tuple(table_domain(name, s))
    else:
        raise ValueError(f"unknown table {name!r}")
    return xs, tuple(TABLE_FUNCTIONS[name](x, s) for x in xs)


def table_log_size(name: str, scale_bits: int) -> int:
    if name == "erf":  # its size from the domain alone (the entries are a series each)
        return max(4, _log2_ceil(len(table_domain(name, scale_bits))))
    return max(4, _log2_ceil(len(table_rows(name, scale_bits)[0])))


def table_start(name: str, scale_bits: int) -> int:
    return table_rows(name, scale_bits)[0][0]


@lru_cache(maxsize=32)
def function_table(name: str, scale_bits: int) -> tuple[list[int], list[int]]:
    """The padded table as field elements (row order)."""
    xs, ys = (list(v) for v in table_rows(name, scale_bits))
    size = 1 << table_log_size(name, scale_bits)
    xs += [xs[-1]] * (size - len(xs))
    ys += [ys[-1]] * (size - len(ys))
    return [x % P for x in xs], [y % P for y in ys]


def table_columns(name: str, scale_bits: int) -> dict[str, list[int]]:
    """Preprocessed columns of a table tree, keyed as the components read them."""
    xs, ys = function_table(name, scale_bits)
    return {f"table.{name}.in": xs, f"table.{name}.out": ys}
