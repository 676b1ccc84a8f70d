"""Symbolic dimensions: one settings.bin for every batch size or sequence length.

A symbolic graph names its symbols (say ``batch``) with the range of values it accepts, and every
shape or view-step integer that depends on them is an integer polynomial in the symbols, stored
once in an expression table. In the graph body such an integer is written as ``-(k + 1)``: a
reference to expression ``k`` (shapes and view steps are never negative, so the encoding is free).

A proof fixes the symbols: their values are its first public tensor, so they are mixed into the
channel with the other public values. The verifier instantiates the graph for them (each expression
evaluated once, then every reference substituted by its value; verifier/budget.py charges both
before they run), and then reads the result exactly like a graph without symbols: every check of a
concrete settings.bin (shapes, views, bounds, work budget) applies to the instantiated graph. So a
proof made for one batch size is a statement about that size only: another size is another graph,
another AIR and other public values.

Layout (right after the numeric format): u8 n_symbols | n x (string name, u32 lo, u32 hi) |
u32 n_exprs | n x (u8 n_terms | n_terms x (i32 coefficient, n_symbols x u8 exponent)).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import FormatError, StatementError
from ..formats import Reader, Writer

MAX_SYMBOLS = 4
MAX_SYMBOL_VALUE = 1 << 20  # more than any tensor's dimension may be (settings.MAX_NUMEL = 2^24 elements)
MAX_EXPRS = 1 << 12
MAX_TERMS = 16
MAX_EXPONENT = 4

# A polynomial: ((coefficient, (exponent of each symbol, ...)), ...), terms sorted by exponents.
Poly = tuple[tuple[int, tuple[int, ...]], ...]


@dataclass(frozen=True)
class Symbol:
    name: str
    lo: int  # the values a proof may give it, inclusive
    hi: int


def evaluate(poly: Poly, values: tuple[int, ...]) -> int:
    total = 0
    for coef, exps in poly:
        term = coef
        for v, e in zip(values, exps):
            term *= v**e
        total += term
    return total


def is_ref(value: int) -> bool:
    return value < 0


def ref(index: int) -> int:
    """The integer written in the graph body for expression `index`."""
    return -(index + 1)


def write_symbols(w: Writer, symbols: list[Symbol], exprs: list[Poly]) -> None:
    w.u8(len(symbols))
    for s in symbols:
        w.string(s.name)
        w.u32(s.lo)
        w.u32(s.hi)
    w.u32(len(exprs))
    for poly in exprs:
        w.u8(len(poly))
        for coef, exps in poly:
            w.i32(coef)
            for e in exps:
                w.u8(e)


def read_symbols(r: Reader, read_label) -> tuple[list[Symbol], list[Poly]]:  # noqa: ANN001 - settings._read_label
    n = r.u8("graph symbols")
    if n > MAX_SYMBOLS:
        raise r.fail("graph symbols", f"{n} symbols, at most {MAX_SYMBOLS}")
    symbols: list[Symbol] = []
    for i in range(n):
        name = read_label(r, f"symbol {i} name", 64)
        if not name or any(s.name == name for s in symbols):
            raise r.fail(f"symbol {i} name", f"{name!r} is empty or named twice")
        lo, hi = r.u32(f"symbol {name!r} lower bound"), r.u32(f"symbol {name!r} upper bound")
        if not 1 <= lo <= hi <= MAX_SYMBOL_VALUE:
            raise r.fail(f"symbol {name!r} bounds", f"[{lo}, {hi}] is not within [1, {MAX_SYMBOL_VALUE}]")
        symbols.append(Symbol(name, lo, hi))
    exprs: list[Poly] = []
    n_exprs = r.count("graph expressions", MAX_EXPRS, 1)
    if n_exprs and not symbols:
        raise r.fail("graph expressions", "expressions without symbols")
    for k in range(n_exprs):
        where = f"expression {k}"
        n_terms = r.u8(f"{where} terms")
        if not 1 <= n_terms <= MAX_TERMS:
            raise r.fail(f"{where} terms", f"{n_terms} terms, expected 1 to {MAX_TERMS}")
        terms = []
        for t in range(n_terms):
            coef = r.i32(f"{where} term {t} coefficient")
            exps = tuple(r.u8(f"{where} term {t} exponent") for _ in symbols)
            if coef == 0 or any(e > MAX_EXPONENT for e in exps):
                raise r.fail(f"{where} term {t}", f"coefficient {coef}, exponents {exps}: need a nonzero "
                             f"coefficient and exponents at most {MAX_EXPONENT}")
            terms.append((coef, exps))
        if [e for _, e in terms] != sorted({e for _, e in terms}):
            raise r.fail(where, "terms must be sorted by exponents, each exponent tuple once (canonical form)")
        exprs.append(tuple(terms))
    return symbols, exprs


def symbol_values(symbols: list[Symbol], public: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The symbols' values a proof fixes (its first public tensor), each within its bounds."""
    names = ", ".join(s.name for s in symbols)
    if not public or len(public[0]) != len(symbols):
        got = len(public[0]) if public else 0
        raise StatementError(f"the model has symbolic dimensions ({names}): the proof must fix them as its first "
                             f"public tensor of {len(symbols)} values, got {got}")
    for s, v in zip(symbols, public[0]):
        if not s.lo <= v <= s.hi:
            raise StatementError(f"symbol {s.name!r} = {v} is outside the model's range [{s.lo}, {s.hi}]")
    return tuple(public[0])


def expression_values(exprs: list[Poly], values: tuple[int, ...]) -> list[int]:
    """Every expression's value for these symbol values, each evaluated once (substitute checks a
    referenced value's range)."""
    return [evaluate(poly, values) for poly in exprs]


def substitute(vals: tuple[int, ...] | list[int], evaluated: list[int], where: str) -> tuple[int, ...]:
    """`vals` with every expression reference replaced by its value (`expression_values`), which
    must be a positive i32."""
    out = []
    for v in vals:
        if v < 0:
            k = -v - 1
            if k >= len(evaluated):
                raise FormatError(f"settings.bin: {where}: refers to expression {k}, the graph has {len(evaluated)}")
            v = evaluated[k]
            if not 0 <= v < 1 << 31:
                raise FormatError(f"settings.bin: {where}: expression {k} gives {v} for these symbol values")
        out.append(v)
    return tuple(out)


def count_refs(vals: Iterable[int]) -> int:
    return sum(1 for v in vals if v < 0)


def has_refs(vals: tuple[int, ...] | list[int]) -> bool:
    return any(v < 0 for v in vals)


def describe_poly(poly: Poly, symbols: list[Symbol]) -> str:
    """A readable form, e.g. ``784*batch + 16``."""
    parts = []
    for coef, exps in sorted(poly, key=lambda t: t[1], reverse=True):
        names = "*".join(s.name if e == 1 else f"{s.name}^{e}" for s, e in zip(symbols, exps) if e)
        if not names:
            parts.append(str(coef))
        elif coef == 1:
            parts.append(names)
        elif coef == -1:
            parts.append(f"-{names}")
        else:
            parts.append(f"{coef}*{names}")
    return " + ".join(parts).replace("+ -", "- ")


def describe_dims(vals: tuple[int, ...] | list[int], exprs: list[Poly], symbols: list[Symbol]) -> list[int | str]:
    """Shape or step integers, references shown as their expressions."""
    return [describe_poly(exprs[-v - 1], symbols) if v < 0 and -v - 1 < len(exprs) else v for v in vals]
