"""The numeric format: fixed point in M31 (docs/statement.md "Numbers"), and the exact integer meaning of
every primitive op.

This module is the single definition of what a proof attests numerically. The prover's fixed-point
executor (a numpy twin) and the AIR components are tested against these scalar functions.

A real number x is stored as the signed integer ``raw = floor(x * 2**scale_bits + 1/2)`` with
``VALUE_MIN <= raw <= VALUE_MAX`` (16-bit signed), and enters the field as ``raw mod P``. The 16-bit
bound keeps every product of two values below 2**30, so a product constraint that holds in M31 also
holds over the integers (no wrap-around can make a false statement true).

Lookup tables (exp2, log2, sin) are produced here with integer arithmetic only, so CPython and
Pyodide build identical tables.
"""

from __future__ import annotations

import math
from math import isqrt
from dataclasses import dataclass
from functools import lru_cache

from .fields import P

VALUE_BITS = 16
VALUE_MIN = -(1 << (VALUE_BITS - 1))
VALUE_MAX = (1 << (VALUE_BITS - 1)) - 1
MIN_SCALE_BITS = 4
MAX_SCALE_BITS = 14
DEFAULT_SCALE_BITS = 10
# A node's own scale (docs/statement.md "Scales"): any tensor may hold its values at 2^0 .. 2^24 (a
# tensor of small values, as softmax probabilities over many classes, needs more than 14 bits).
MIN_NODE_SCALE = 0
MAX_NODE_SCALE = 24
MAX_SHIFT = 14  # a rounding shift k: out*2^k + rem stays below 2^30 with a 16-bit out
MAX_RECIP_EXPONENT = 28  # 1/x as 2^c / x: out*x + rem = 2^c below 2^30


class NumericError(ValueError):
    """A value outside the numeric format, or an op outside its domain (names what and where)."""


@dataclass(frozen=True)
class NumericFormat:
    """Fixed point with ``scale_bits`` fractional bits; values are 16-bit signed raw integers."""

    scale_bits: int = DEFAULT_SCALE_BITS

    def __post_init__(self) -> None:
        if not (MIN_SCALE_BITS <= self.scale_bits <= MAX_SCALE_BITS):
            raise NumericError(
                f"scale_bits must be in [{MIN_SCALE_BITS}, {MAX_SCALE_BITS}], got {self.scale_bits}"
            )

    @property
    def one(self) -> int:
        """The raw value of 1.0."""
        return 1 << self.scale_bits

    @property
    def resolution(self) -> float:
        """The real value of one raw unit."""
        return 1.0 / (1 << self.scale_bits)

    @property
    def max_real(self) -> float:
        return VALUE_MAX / (1 << self.scale_bits)

    @property
    def min_real(self) -> float:
        return VALUE_MIN / (1 << self.scale_bits)

    def quantize(self, x: float, what: str = "value") -> int:
        """Real -> raw (round half up). Raises NumericError if x is not finite or out of range."""
        if not math.isfinite(x):
            raise NumericError(f"{what}: {x!r} is not a finite number")
        raw = math.floor(x * (1 << self.scale_bits) + 0.5)
        check_raw(raw, what, self)
        return raw

    def describe(self) -> str:
        return (
            f"fixed point, scale 2^{self.scale_bits} (resolution {self.resolution:.6g}), "
            f"range [{self.min_real:g}, {self.max_real:g}]"
        )


def check_raw(raw: int, what: str, fmt: NumericFormat | None = None) -> int:
    if not VALUE_MIN <= raw <= VALUE_MAX:
        real = f" (= {raw / (1 << fmt.scale_bits):g})" if fmt is not None else ""
        raise NumericError(
            f"{what}: raw value {raw}{real} is outside the 16-bit range [{VALUE_MIN}, {VALUE_MAX}]"
        )
    return raw


def from_field(v: int) -> int:
    """Canonical M31 element -> signed integer in (-P/2, P/2]."""
    return v if v <= P // 2 else v - P


# ---------------------------------------------------------------------------------------------
# Exact semantics of the primitive ops on raw integers (s = scale_bits). Each is the function the
# matching AIR component constrains; the comments give the integer relation it proves.
# ---------------------------------------------------------------------------------------------


def op_add(a: int, b: int) -> int:
    return a + b


def op_mul(a: int, b: int, s: int) -> int:
    """Round half up: a*b + 2^(s-1) = out*2^s + rem with 0 <= rem < 2^s."""
    return (a * b + (1 << (s - 1))) >> s


# A fused dot product (Dot) accumulates exact integer products and rounds once. Its accumulator
# is range-checked on every trace row to [-DOT_ACC_BOUND, DOT_ACC_BOUND), which, with the operand
# bounds, keeps every row's integer relation below P (verifier/graph/components.DotComponent).
DOT_ACC_BITS = 29
DOT_ACC_BOUND = 1 << (DOT_ACC_BITS - 1)


def op_dot(a: list[int], b: list[int], s: int) -> int:
    """Round half up of the exact sum of products: sum(a_k b_k) + 2^(s-1) = out*2^s + rem with
    0 <= rem < 2^s. Every prefix sum must stay in [-DOT_ACC_BOUND, DOT_ACC_BOUND) (the AIR checks the
    accumulator after every chunk of lanes; requiring it of every prefix is a little stricter and
    independent of the lane count)."""
    acc = 0
    for x, y in zip(a, b, strict=True):
        acc += x * y
        if not -DOT_ACC_BOUND <= acc < DOT_ACC_BOUND:
            raise NumericError(f"dot product partial sum {acc} leaves the accumulator range +-2^{DOT_ACC_BITS - 1}")
    return (acc + (1 << (s - 1))) >> s


def op_relu(x: int) -> int:
    """max(x, 0): exactly x * (0 < x) of the primitives (a product by 1.0 is exact)."""
    return x if x > 0 else 0


def op_recip(x: int, c: int) -> int:
    """sign(x) * floor(2^c / |x|): 2^c = |out|*|x| + rem with 0 <= rem < |x|. At input scale s_in and
    output scale s_out, c = s_in + s_out (node_constant)."""
    if x == 0:
        raise NumericError("recip of zero")
    q = (1 << c) // abs(x)
    return q if x > 0 else -q


def op_sqrt(x: int, e: int) -> int:
    """floor(sqrt(x * 2^e)): x*2^e = out^2 + rem with 0 <= rem <= 2*out. At input scale s_in and
    output scale s_out, e = 2 s_out - s_in (node_constant)."""
    if x < 0:
        raise NumericError(f"sqrt of negative raw value {x}")
    return math.isqrt(x << e)


def op_mod(a: int, b: int) -> int:
    """Floor modulo (the sign follows b, as numpy.mod and Python's %): a = q*b + r, 0 <= r*sign(b) < |b|."""
    if b == 0:
        raise NumericError("mod by zero")
    return a % b


def op_less_than(a: int, b: int, s: int) -> int:
    """1.0 (raw 2^s) if a < b else 0."""
    return (1 << s) if a < b else 0


# ---------------------------------------------------------------------------------------------
# Scales. Every node holds its values at its own scale; an op's integer meaning takes its inputs'
# and output's scales through one constant, derived here (the verifier never reads it from a file):
#   Mul, Dot        k = s_a + s_b - s_out in [1, MAX_SHIFT]     the rounding shift (a bias: at s_out)
#   Recip           c = s_in + s_out in [0, MAX_RECIP_EXPONENT]  out = 2^c / x
#   Sqrt            e = 2 s_out - s_in in [0, MAX_SHIFT]        out = sqrt(x 2^e)
#   LessThan        s_out <= MAX_SCALE_BITS (1.0 is 2^s_out)    inputs at one scale
#   Log2 .. Erf     s_in = s_out = the graph's scale (one table a function)
#   every other op  all scales equal (Add, Mod, reductions, Relu, Contiguous; a Gather's table and
#                   output): the op is exact on raw integers
# ---------------------------------------------------------------------------------------------

SCALED_PRODUCTS = ("Mul", "Dot")
TABLE_OPS = ("Log2", "Exp2", "Sin", "Exp", "Erf")


def node_constant(op: str, in_scales: list[int], out_scale: int, graph_scale: int) -> int:
    """The constant an op's rows are proven with (0 for the exact ops); NumericError naming the
    rule a scale assignment breaks."""
    if not MIN_NODE_SCALE <= out_scale <= MAX_NODE_SCALE:
        raise NumericError(f"scale 2^{out_scale} outside [2^{MIN_NODE_SCALE}, 2^{MAX_NODE_SCALE}]")
    if op in ("Input", "Constant"):
        return 0
    if op in SCALED_PRODUCTS:
        k = in_scales[0] + in_scales[1] - out_scale
        if not 1 <= k <= MAX_SHIFT:
            raise NumericError(f"{op} of scales 2^{in_scales[0]} x 2^{in_scales[1]} to 2^{out_scale}: rounding "
                               f"shift {k} outside [1, {MAX_SHIFT}]")
        if len(in_scales) == 3 and in_scales[2] != out_scale:
            raise NumericError(f"Dot bias at scale 2^{in_scales[2]}, its output at 2^{out_scale}: a bias is added "
                               "at the output's scale")
        return k
    if op == "Recip":
        c = in_scales[0] + out_scale
        if c > MAX_RECIP_EXPONENT:
            raise NumericError(f"Recip of scale 2^{in_scales[0]} to 2^{out_scale}: 2^{c} exceeds 2^{MAX_RECIP_EXPONENT}")
        return c
    if op == "Sqrt":
        e = 2 * out_scale - in_scales[0]
        if not 0 <= e <= MAX_SHIFT:
            raise NumericError(f"Sqrt of scale 2^{in_scales[0]} to 2^{out_scale}: 2 s_out - s_in = {e} outside "
                               f"[0, {MAX_SHIFT}]")
        return e
    if op == "LessThan":
        if in_scales[0] != in_scales[1]:
            raise NumericError(f"LessThan compares scales 2^{in_scales[0]} and 2^{in_scales[1]}: one scale needed")
        if out_scale > MAX_SCALE_BITS:
            raise NumericError(f"LessThan output at 2^{out_scale}: 1.0 needs a scale of at most 2^{MAX_SCALE_BITS}")
        return out_scale
    if op in TABLE_OPS:
        if in_scales[0] != graph_scale or out_scale != graph_scale:
            raise NumericError(f"{op} of scale 2^{in_scales[0]} to 2^{out_scale}: a function table works at the "
                               f"graph's scale 2^{graph_scale}, in and out")
        return graph_scale
    ins = in_scales[:1] if op == "Gather" else in_scales  # (a Gather's ids are integers)
    if any(s != out_scale for s in ins):
        raise NumericError(f"{op} of scales {', '.join(f'2^{s}' for s in ins)} to 2^{out_scale}: an exact op "
                           "keeps one scale")
    return 0


def default_constant(op: str, s: int) -> int:
    """node_constant when every scale is s (the names of components at other constants say theirs)."""
    return node_constant(op, [s, s, s][: 3 if op in SCALED_PRODUCTS else 2], s, s) if op not in (
        "Input", "Constant") else 0


# ---------------------------------------------------------------------------------------------
# Integer-only transcendental functions for the lookup tables.
# All intermediate values are fixed point with _PREC fractional bits; the table entry is the
# value rounded half up to scale s. These functions *define* the tables, so their exact integer
# behaviour (not the real function) is the specification.
# ---------------------------------------------------------------------------------------------

_PREC = 100
_ONE = 1 << _PREC


def _ln2_fixed() -> int:
    # ln 2 = sum_{k>=1} 1 / (k 2^k), computed with 32 guard bits.
    g = _PREC + 32
    total, k = 0, 1
    while True:
        term = (1 << g) // (k << k)
        if term == 0:
            break
        total += term
        k += 1
    return total >> 32


def _pi_at(g: int) -> int:
    """pi with g fractional bits: Machin, pi = 16 atan(1/5) - 4 atan(1/239), each by its
    alternating series, with 32 guard bits."""
    def atan_inv(n: int) -> int:
        total, power, k, sign = 0, (1 << (g + 32)) // n, 1, 1
        while power:
            total += sign * (power // k)
            power //= n * n
            k += 2
            sign = -sign
        return total

    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> 32


LN2 = _ln2_fixed()
PI = _pi_at(_PREC)


def _exp_fixed(t: int) -> int:
    """e^(t / 2^_PREC) for 0 <= t < _ONE, as fixed point (Taylor series)."""
    total, term, k = _ONE, _ONE, 1
    while term:
        term = (term * t >> _PREC) // k
        total += term
        k += 1
    return total


def _round_shift(v: int, sh: int) -> int:
    """floor(v / 2^sh + 1/2): v 2^-sh exactly for sh <= 0."""
    if sh <= 0:
        return v << (-sh)
    return (v + (1 << (sh - 1))) >> sh


def exp2_entry(x: int, s: int) -> int:
    """Raw result of exp2 on raw input x: round(2^(x / 2^s) * 2^s)."""
    e = x + (s << s)  # 2^(x/2^s) * 2^s = 2^(e / 2^s)
    k, f = e >> s, e & ((1 << s) - 1)
    frac = _exp_fixed((f * LN2) >> s)  # 2^(f / 2^s) in [1, 2)
    return _round_shift(frac, _PREC - k)


def exp_entry(x: int, s: int) -> int:
    """Raw result of e^x on raw input x: round(e^(x / 2^s) * 2^s), as 2^k e^r with
    x / 2^s = k ln 2 + r, 0 <= r < ln 2."""
    t = (x << _PREC) >> s  # exact: x / 2^s in fixed point
    k = t // LN2
    frac = _exp_fixed(t - k * LN2)  # e^r in [1, 2)
    return _round_shift(frac, _PREC - k - s)


def _ln_fixed(r: int) -> int:
    """ln(r / 2^_PREC) for _ONE <= r < 2*_ONE via ln r = 2 atanh((r-1)/(r+1))."""
    u = ((r - _ONE) << _PREC) // (r + _ONE)  # in [0, 1/3)
    u2 = u * u >> _PREC
    total, power, k = 0, u, 1
    while power:
        total += power // k
        power = power * u2 >> _PREC
        k += 2
    return 2 * total


def log2_entry(x: int, s: int) -> int:
    """Raw result of log2 on raw input x > 0: round((log2(x) - s) * 2^s)."""
    if x <= 0:
        raise NumericError(f"log2 of non-positive raw value {x}")
    m = x.bit_length() - 1
    r = (x << _PREC) >> m  # x / 2^m in [1, 2), fixed point
    frac = (_ln_fixed(r) << _PREC) // LN2  # log2(x / 2^m)
    total = ((m - s) << _PREC) + frac  # log2(x / 2^s)
    return _round_shift(total << s, _PREC)


def _sin_fixed(t: int) -> int:
    """sin(t / 2^_PREC) for |t| <= pi/2 (Taylor series)."""
    t2 = t * t >> _PREC
    total, term, k = t, t, 1
    while term:
        term = -(term * t2 >> _PREC) // ((k + 1) * (k + 2))
        total += term
        k += 2
    return total


def sin_entry(x: int, s: int) -> int:
    """Raw result of sin on raw input x: round(sin(x / 2^s) * 2^s) for x >= 0, and exactly odd:
    sin_entry(-x) = -sin_entry(x) (so a proof can look up |x| in a half-size table)."""
    if x < 0:
        return -sin_entry(-x, s)
    theta = (x << _PREC) >> s
    two_pi = 2 * PI
    t = theta % two_pi  # [0, 2pi)
    if t > PI:
        t -= two_pi  # (-pi, pi]
    if t > PI // 2:
        t = PI - t
    elif t < -(PI // 2):
        t = -PI - t
    return _round_shift(_sin_fixed(t) << s, _PREC)


_ERF_BITS = _PREC + 64  # the series for |t| < 4 has terms up to ~2^17: 64 guard bits
_ERF_SATURATE = 4  # erfc(4) = 1.5e-8 < 2^-15: every |x| >= 4 rounds to +-1 at any scale


def _two_over_sqrt_pi(g: int) -> int:
    return (2 << (2 * g)) // isqrt(_pi_at(g) << g)


_ERF_SCALE = _two_over_sqrt_pi(_ERF_BITS)


def erf_entry(x: int, s: int) -> int:
    """Raw result of erf on raw input x: round(erf(|x| / 2^s) * 2^s) (half up) with x's sign, from
    erf(t) = 2/sqrt(pi) sum_n (-1)^n t^(2n+1) / (n! (2n+1)) in fixed point (|t| < 4; beyond, +-1)."""
    a = abs(x)
    if a >= _ERF_SATURATE << s:
        r = 1 << s
    else:
        g = _ERF_BITS
        t = a << (g - s)
        t2 = t * t >> g
        total, term, n = 0, t, 0
        while term:
            total += (term if n % 2 == 0 else -term) // (2 * n + 1)
            n += 1
            term = (term * t2 >> g) // n
        r = _round_shift(total * _ERF_SCALE >> g, g - s)
    return -r if x < 0 else r


@lru_cache(maxsize=64)
def erf_saturation(s: int) -> int:
    """The smallest raw x >= 0 whose erf rounds to 1 (2^s): the table holds (-h, h), a proven clamp
    gives -1 below and 1 above."""
    return _first_above(erf_entry, s, 0, _ERF_SATURATE << s, (1 << s) - 1)


def op_erf(x: int, s: int) -> int:
    h = erf_saturation(s)
    if x >= h:
        return 1 << s
    if x <= -h:
        return -(1 << s)
    return erf_entry(x, s)


TABLE_FUNCTIONS = {"exp2": exp2_entry, "log2": log2_entry, "sin": sin_entry, "exp": exp_entry, "erf": erf_entry}
EXPONENTIALS = ("exp2", "exp")  # increasing, 0 below a start: a table from there, a proven clamp below


def _first_above(fn, s: int, lo: int, hi: int, bound: int) -> int:  # noqa: ANN001 - an entry function
    """The smallest x in [lo, hi] with fn(x, s) > bound (fn increasing); hi + 1 if none."""
    while lo <= hi:
        mid = (lo + hi) // 2
        if fn(mid, s) > bound:
            hi = mid - 1
        else:
            lo = mid + 1
    return lo


@lru_cache(maxsize=64)
def nonzero_start(name: str, s: int) -> int:
    """The smallest raw input whose exp2 (or exp) is not 0: below it every result rounds to 0."""
    return _first_above(TABLE_FUNCTIONS[name], s, VALUE_MIN, VALUE_MAX, 0)


@lru_cache(maxsize=64)
def table_domain(name: str, s: int) -> range:
    """Raw inputs covered by a function table: every input whose result is in the value range.

    exp2 grows with x and log2 grows with x, so the covered inputs are one interval; sin is bounded
    by 2^s <= VALUE_MAX and odd, so it covers the whole symmetric range (all but -2^15)."""
    if name == "sin":
        return range(VALUE_MIN + 1, VALUE_MAX + 1)
    if name == "erf":  # odd and saturating: the 16-bit inputs strictly between the saturation points
        h = erf_saturation(s)
        return range(max(-h + 1, VALUE_MIN), min(h, VALUE_MAX + 1))
    if name in EXPONENTIALS:  # every input up to the last whose result is <= VALUE_MAX
        return range(VALUE_MIN, _first_above(TABLE_FUNCTIONS[name], s, VALUE_MIN, VALUE_MAX, VALUE_MAX))
    if name == "log2":
        lo = 1
        while log2_entry(lo, s) < VALUE_MIN:
            lo += 1
        hi = VALUE_MAX
        while log2_entry(hi, s) > VALUE_MAX:
            hi -= 1
        return range(lo, hi + 1)
    raise NumericError(f"unknown table function {name!r}")


def op_table(name: str, x: int, s: int) -> int:
    """exp2 / log2 / sin on a raw value, with the domain errors the prover reports."""
    dom = table_domain(name, s)
    if x not in dom:
        raise NumericError(
            f"{name} input raw value {x} is outside the table domain [{dom.start}, {dom.stop - 1}] "
            f"(its result would leave the 16-bit range or is undefined)"
        )
    return TABLE_FUNCTIONS[name](x, s)
