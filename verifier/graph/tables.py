"""Lookup tables of the graph AIR: range8 and the function tables (exp2, log2, sin), generated
with integer arithmetic (verifier/numeric.py) and padded to a power of two with copies of a real
row (never with rows that are not in the function's graph).

The verifier never takes a table root from the proof: range8 is recomputed (256 rows), and the
function tables' roots are pinned in table_roots.py for the common (scale, blowup) pairs and
recomputed otherwise (slow in pure Python, then cached)."""

from __future__ import annotations

from functools import lru_cache

from ..commit import commitment_root
from ..fields import P
from ..numeric import TABLE_FUNCTIONS, table_domain
from .table_roots import PINNED_ROOTS


def _log2_ceil(n: int) -> int:
    return max(0, (n - 1).bit_length())


@lru_cache(maxsize=16)
def function_table(name: str, scale_bits: int) -> tuple[list[int], list[int]]:
    """(inputs, outputs) as field elements, row order, padded to a power of two."""
    fn = TABLE_FUNCTIONS[name]
    dom = table_domain(name, scale_bits)
    xs = list(dom)
    ys = [fn(x, scale_bits) for x in xs]
    size = 1 << max(4, _log2_ceil(len(xs)))
    xs += [xs[-1]] * (size - len(xs))
    ys += [ys[-1]] * (size - len(ys))
    return [x % P for x in xs], [y % P for y in ys]


def function_table_log_size(name: str, scale_bits: int) -> int:
    dom = table_domain(name, scale_bits)
    return max(4, _log2_ceil(len(dom)))


def range8_table() -> list[int]:
    return list(range(256))


@lru_cache(maxsize=32)
def table_root(name: str, scale_bits: int, log_blowup: int) -> bytes:
    if name == "range8":
        return commitment_root([range8_table()], log_blowup)
    pinned = PINNED_ROOTS.get((name, scale_bits, log_blowup))
    if pinned is not None:
        return bytes.fromhex(pinned)
    xs, ys = function_table(name, scale_bits)
    return commitment_root([xs, ys], log_blowup)
