"""One AIR component per primitive op (plus the values the verifier knows, private inputs and
lookup tables).

Data flow is one LogUp relation over (address, value), where node n's element i has the address
base[n] + i (verifier/graph/topology.py). A producing row yields its element with a witness
multiplicity (how often it is read; forced to zero on rows that yield nothing), every read
consumes it once (multiplicity -1 on real reads), and public outputs enter through terms the
verifier computes itself (graph/statement.py). Which address a row yields and reads is not a
witness: the topology columns are pinned by constraints against sparse columns the verifier
derives from the graph. Since every address is yielded by exactly one row, every read gets that
row's value whatever the multiplicities say (a read of a value nobody yields leaves a pole in the
LogUp sum). Weights and public inputs come from the `known` relation, whose other side the
verifier adds from settings.bin and proof.bin. Nothing a row claims is free:
* every arithmetic output is tied to its inputs by a constraint that holds over the integers,
  because every operand is a 16-bit value and every remainder or difference is range-checked with
  8-bit limbs looked up in a table the verifier pins (range8), or 16-bit limbs in range16 in a large graph
  (RANGE16_MIN_LOG);
* reductions chain an accumulator across rows with a mask at offset -1 and sparse group-start
  and group-end columns; MaxReduce proves each step's comparison;
* exp2, log2 and sin are lookups into tables generated with integer arithmetic
  (verifier/numeric.py) whose roots the verifier knows itself.
Rows past the real ones (padding) hold valid dummy computations and take part in no data flow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..air.framework import (
    HEADS, AirDefinitionError, Component, GeometricColumn, RunningColumn, constrain_geometric, constrain_running,
)
from ..fields import P, QM31, q_add, q_mul
from ..numeric import DOT_ACC_BITS, DOT_ACC_BOUND, VALUE_BITS, erf_saturation, nonzero_start
from .topology import DOT_LANE_CHOICES, KNOWN_LANES

DATA = "data"
KNOWN = "known"
WEIGHTS = "weights"  # (address of a row's first weight, its lanes' weights): terms the verifier adds
CHUNKS = "chunks"  # (address, KNOWN_LANES values): a whole known row, yielded to Dots that read it whole
RANGE = "range8"
RANGE16 = "range16"
# A graph whose largest component has at least 2^RANGE16_MIN_LOG rows range-checks with 16-bit
# limbs, looked up in a table of 2^16 rows that then adds no height to the trace: a 29-bit sum
# takes 2 limbs and 3 lookups instead of 4 and 5. A smaller graph keeps 8-bit limbs: the table
# would be its tallest component.
RANGE16_MIN_LOG = 16


def value_table_bits(bits: int) -> int:
    """The range table a committed value of `bits` bits is looked up in: range8 for up to 8 bits (a
    second lookup bounds it below), else a table of exactly `bits` bits (range9 .. range16)."""
    return max(8, bits)
WeightColumns = Callable[[dict[str, QM31]], dict[str, tuple[int, list[QM31]]]]  # challenges -> MatIn's periodic columns
HALF = 1 << (VALUE_BITS - 1)  # 2^15: shifts a 16-bit signed value to [0, 2^16)
INV2 = (P + 1) // 2  # 1/2 mod P (2^30): 2^k * INV2 = 2^(k-1) for k >= 1
# MatOut's limb sums (graph/matmul.py): |S_hi| < 2^22; S_lo + 2^28 and the total + 2^28 in [0, 2^29)
HI_BOUND = 1 << 22
S_BITS = 29
HI_BITS = 23


def limb_names(prefix: str, bits: int, width: int = 8) -> list[str]:
    return [f"{prefix}_l{i}" for i in range(-(-bits // width))]


class GraphComponent(Component):
    """An op component. Its topology columns (verifier/graph/topology.py) are the prover-committed
    `topology` preprocessed columns "<name>.<column>", opened with the main trace (in its tree):
    `addr` (the address a row yields), `mult` (how often it is read: a witness, zero on rows that
    yield nothing), `is_real`, and per input `in{k}_addr`, `in{k}_real`. None depends on the inputs,
    so the prover extends them once per model; none is trusted: each (but `mult`) is pinned by a
    difference constraint against a sparse column the verifier computes from the graph
    (`d.<column>`) and an anchor at row 0."""

    tables: tuple[str, ...] = ()  # function tables it looks up (verifier/graph/tables.py)
    n_inputs = 0
    reduce = False
    op_columns: tuple[str, ...] = ()
    ranges: tuple[tuple[str, int], ...] = ()  # (prefix, bits) of each range check, limbs after op_columns
    byte_limbs = False  # looks up 8-bit limbs of its own in range8 (MatIn, MatPair)
    limb_bits = 8
    rounds = False  # divides by 2^constant with a remainder in [0, 2^constant) (Mul, Dot, MatOut)
    variable = False  # rows of several constants (vary)

    def __init__(self, log_size: int, scale_bits: int) -> None:
        self.log_size = log_size
        self.s = scale_bits
        self.sparse_columns: dict[str, dict[int, int]] = {}
        self.anchors: dict[str, int] = {}
        self.use_limbs(self.limb_bits)

    def set_topology(self, patterns: dict[str, Any]) -> None:
        """Every topology column's sparse difference column and anchor, from its ColumnPattern
        (verifier/graph/topology.py)."""
        for col in self.topology_kinds():
            self.sparse_columns[f"d.{col}"], self.anchors[col] = patterns[col].sparse()

    def vary(self) -> None:
        """Rows of several constants in one component (graph/plan.vary_constants): each row's
        2^constant is the step topology column `pow`, derived from the graph and pinned like every
        topology column; the padding rows take the largest constant, `s`. Where the constant is a
        rounding shift, 2^constant - 1 - rem is range-checked to s bits beside rem (rem < 2^constant)."""
        self.variable = True
        if self.rounds:
            self.ranges = self.ranges + (("gap", self.s),)
            self.use_limbs(self.limb_bits)

    def power(self, ev: Any) -> Any:
        """2^constant on this row."""
        return self.t(ev, "pow") if self.variable else 1 << self.s

    def half(self, ev: Any) -> Any:
        """2^(constant - 1) on this row (a rounding shift is at least 1)."""
        return self.t(ev, "pow") * INV2 if self.variable else 1 << (self.s - 1)

    def check_remainder(self, ev: Any, rem: Any, mult: Any = 1, gate: Any = None) -> None:
        """0 <= rem < 2^constant: rem in s bits, and where the constant varies 2^constant - 1 - rem too
        (each term then lies in [0, 2^s), s >= the row's constant, so rem <= 2^constant - 1)."""
        self.check_range(ev, rem, "rem", self.s, mult, gate)
        if self.variable:
            self.check_range(ev, self.t(ev, "pow") - 1 - rem, "gap", self.s, mult, gate)

    def use_limbs(self, width: int) -> None:
        """Range-check with limbs of `width` bits (8 or 16: RANGE16_MIN_LOG)."""
        self.limb_bits = width
        self.main_columns = self.op_columns + tuple(n for p, bits in self.ranges for n in limb_names(p, bits, width))

    def range_tables(self) -> set[str]:
        """The range tables its lookups need."""
        return ({RANGE if self.limb_bits == 8 else RANGE16} if self.ranges else set()) | (
            {RANGE} if self.byte_limbs else set())

    def check_range(self, ev: Any, expr: Any, prefix: str, bits: int, mult: Any = 1, gate: Any = None) -> None:
        """expr is in [0, 2^bits): it equals its limbs' sum (limb_bits each: 8, looked up in range8,
        or 16, in range16), every limb is in the table, and a partial top limb l also has
        l + 2^width - 2^top in it (so l < 2^top). `gate` (0/1) switches the check off on rows where
        it does not apply; `mult` must then be the same gate."""
        width = self.limb_bits
        table = RANGE if width == 8 else RANGE16
        limbs = [ev.main(n) for n in limb_names(prefix, bits, width)]
        total = limbs[0]
        for i in range(1, len(limbs)):
            total = total + limbs[i] * (1 << (width * i))
        c = expr - total
        ev.add_constraint(c if gate is None else gate * c)
        for limb in limbs:
            ev.add_to_relation(table, mult, [limb])
        top = bits - width * (len(limbs) - 1)
        if top < width:
            ev.add_to_relation(table, mult, [limbs[-1] + ((1 << width) - (1 << top))])

    def check_value_range(self, ev: Any, expr: Any, bits: int) -> None:
        """expr in [0, 2^bits), bits <= 16, with no main column: expr looked up in the range table of
        value_table_bits(bits) bits and, below those, expr + 2^table - 2^bits too."""
        table = value_table_bits(bits)
        ev.add_to_relation(f"range{table}", 1, [expr])
        if bits < table:
            ev.add_to_relation(f"range{table}", 1, [expr + ((1 << table) - (1 << bits))])

    def t(self, ev: Any, col: str, offset: int = 0) -> Any:
        """A topology column."""
        return ev.pre(f"{self.name}.{col}", offset)

    def topology_kinds(self) -> dict[str, str]:
        kinds = {"addr": "step" if self.reduce else "affine", "is_real": "step"}
        for k in range(self.n_inputs):
            kinds[f"in{k}_addr"] = "affine"
            kinds[f"in{k}_real"] = "step"
        return kinds | ({"pow": "step"} if self.variable else {})

    def topology_columns(self) -> tuple[str, ...]:
        cols = ["addr", "mult", "is_real"]
        for k in range(self.n_inputs):
            cols += [f"in{k}_addr", f"in{k}_real"]
        return tuple(cols) + (("pow",) if self.variable else ())

    stride = 1  # S > 1: S nodes' rows interleaved (row l S + i is node i's row l), see GeometricColumn

    def constrain_topology(self, ev: Any) -> None:
        """Differences along each node's rows (rows S apart), anchored on its first row: sparse
        column a.<col> (node i's anchor on row i) where S > 1."""
        first = ev.selector(0) if self.stride == 1 else ev.sparse(HEADS)
        s = self.stride
        for col, kind in self.topology_kinds().items():
            c = self.t(ev, col)
            if kind == "affine":
                diff = c - 2 * self.t(ev, col, -s) + self.t(ev, col, -2 * s)
            else:
                diff = c - self.t(ev, col, -s)
            ev.add_constraint(diff - ev.sparse(f"d.{col}"))
            if s == 1:
                ev.add_constraint(first * (c - self.anchors.get(col, 0)))
            else:
                ev.add_constraint(first * c - ev.sparse(f"a.{col}"))

    def consume(self, ev: Any, k: int, value: Any, lane: int = 0, padding_zero: bool = True) -> None:
        real = self.t(ev, f"in{k}_real")
        addr = self.t(ev, f"in{k}_addr")
        if lane:
            addr = addr + lane * self.t(ev, f"in{k}_step")
        ev.add_to_relation(DATA, -real, [addr, value])
        if padding_zero:  # a real row that reads padding of a view reads the value 0
            ev.add_constraint((self.t(ev, "is_real") - real) * value)

    def produce(self, ev: Any, value: Any) -> None:
        mult = self.t(ev, "mult")
        gate = ev.sparse("last") if self.reduce else self.t(ev, "is_real")
        ev.add_constraint(mult * (1 - gate))  # rows that hold no element yield nothing
        ev.add_to_relation(DATA, mult, [self.t(ev, "addr"), value])

    def evaluate(self, ev: Any) -> None:
        self.constrain_topology(ev)
        self.evaluate_op(ev)

    def evaluate_op(self, ev: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class AddComponent(GraphComponent):
    name = "add"
    n_inputs = 2
    op_columns = ("a", "b", "out")
    ranges = (("out", 16),)

    def evaluate_op(self, ev: Any) -> None:
        a, b, out = ev.main("a"), ev.main("b"), ev.main("out")
        self.consume(ev, 0, a)
        self.consume(ev, 1, b)
        ev.add_constraint(out - a - b)
        self.check_range(ev, out + HALF, "out", 16)
        self.produce(ev, out)


class MulComponent(GraphComponent):
    """a*b + 2^(k-1) = out*2^k + rem, 0 <= rem < 2^k: out is a*b/2^k rounded half up (k the
    node's shift: s, or the row's where the component varies)."""

    name = "mul"
    n_inputs = 2
    rounds = True

    def __init__(self, log_size: int, scale_bits: int) -> None:
        self.op_columns = ("a", "b", "out", "rem")
        self.ranges = (("out", 16), ("rem", scale_bits))
        super().__init__(log_size, scale_bits)

    def evaluate_op(self, ev: Any) -> None:
        a, b, out, rem = ev.main("a"), ev.main("b"), ev.main("out"), ev.main("rem")
        self.consume(ev, 0, a)
        self.consume(ev, 1, b)
        ev.add_constraint(a * b + self.half(ev) - out * self.power(ev) - rem)
        self.check_range(ev, out + HALF, "out", 16)
        self.check_remainder(ev, rem)
        self.produce(ev, out)


class LessThanComponent(GraphComponent):
    """lt in {0,1}; d = b - a - 1 + (1 - lt) * 2^16 in [0, 2^16); output lt * 2^s."""

    name = "less_than"
    n_inputs = 2
    op_columns = ("a", "b", "lt")
    ranges = (("d", 16),)

    def evaluate_op(self, ev: Any) -> None:
        a, b, lt = ev.main("a"), ev.main("b"), ev.main("lt")
        self.consume(ev, 0, a)
        self.consume(ev, 1, b)
        ev.add_constraint(lt * (lt - 1))
        self.check_range(ev, b - a - 1 + (1 - lt) * (1 << 16), "d", 16)
        self.produce(ev, lt * (1 << self.s))


class ModComponent(GraphComponent):
    """a = q*b + r with the sign of r that of b (floor modulo): with neg = [b < 0] and
    |b| = b(1 - 2neg): |b| - 1, r(1 - 2neg) and |b| - 1 - r(1 - 2neg) in [0, 2^15), q + 2^15 in
    [0, 2^16) (so |q*b| <= 2^30 and the relation holds over the integers; the one quotient this
    excludes, -2^15 mod -1, is refused by the prover)."""

    name = "mod"
    n_inputs = 2
    op_columns = ("a", "b", "q", "r", "neg")
    ranges = (("babs", 15), ("rabs", 15), ("gap", 15), ("q", 16))

    def evaluate_op(self, ev: Any) -> None:
        a, b, q, r, neg = (ev.main(c) for c in ("a", "b", "q", "r", "neg"))
        self.consume(ev, 0, a)
        self.consume(ev, 1, b)
        ev.add_constraint(neg * (neg - 1))
        ev.add_constraint(a - q * b - r)
        sign = 1 - 2 * neg
        babs = b * sign
        rabs = r * sign
        self.check_range(ev, babs - 1, "babs", 15)
        self.check_range(ev, rabs, "rabs", 15)
        self.check_range(ev, babs - 1 - rabs, "gap", 15)
        self.check_range(ev, q + HALF, "q", 16)
        self.produce(ev, r)


class RecipComponent(GraphComponent):
    """out = sign(x) floor(2^c/|x|): out*x + rem = 2^c with 0 <= rem < |x|, x != 0 (its constant c
    = s_in + s_out, numeric.node_constant; 2s at the graph's scale)."""

    name = "recip"
    n_inputs = 1
    op_columns = ("x", "out", "rem", "neg")
    ranges = (("xabs", 15), ("rem", 15), ("gap", 15), ("out", 16))

    def evaluate_op(self, ev: Any) -> None:
        x, out, rem, neg = (ev.main(c) for c in ("x", "out", "rem", "neg"))
        self.consume(ev, 0, x)
        ev.add_constraint(neg * (neg - 1))
        ev.add_constraint(out * x + rem - self.power(ev))
        xabs = x * (1 - 2 * neg)
        self.check_range(ev, xabs - 1, "xabs", 15)
        self.check_range(ev, rem, "rem", 15)
        self.check_range(ev, xabs - 1 - rem, "gap", 15)
        self.check_range(ev, out + HALF, "out", 16)
        self.produce(ev, out)


class SqrtComponent(GraphComponent):
    """out = floor(sqrt(x*2^e)): x*2^e = out^2 + rem with 0 <= rem <= 2*out, x >= 0 (its constant e =
    2 s_out - s_in, numeric.node_constant; s at the graph's scale)."""

    name = "sqrt"
    n_inputs = 1
    op_columns = ("x", "out", "rem")
    ranges = (("x", 15), ("out", 15), ("rem", 16), ("gap", 16))

    def evaluate_op(self, ev: Any) -> None:
        x, out, rem = ev.main("x"), ev.main("out"), ev.main("rem")
        self.consume(ev, 0, x)
        ev.add_constraint(x * self.power(ev) - out * out - rem)
        self.check_range(ev, x, "x", 15)
        self.check_range(ev, out, "out", 15)
        self.check_range(ev, rem, "rem", 16)
        self.check_range(ev, out * 2 - rem, "gap", 16)
        self.produce(ev, out)


class MergedKindsComponent(GraphComponent):
    """Two op kinds in one component (statement.MERGED_KINDS): the topology column q, 1 on the
    second kind's rows, derived from the graph and pinned like every topology column, selects
    each row's constraints."""

    def topology_columns(self) -> tuple[str, ...]:
        return super().topology_columns() + ("q",)

    def topology_kinds(self) -> dict[str, str]:
        return {**super().topology_kinds(), "q": "step"}


class RecipSqrtComponent(MergedKindsComponent):
    """Recip and Sqrt rows in one component, when a graph has both (layer norm's 1/sqrt(var)): the
    topology column q (1 on Sqrt rows, derived from the graph like every topology column) selects
    each row's equation, and the two ops share their range limbs, so the proof opens one set of
    columns instead of two.
      q = 0 (Recip): out*x + rem = 2^(2s); xabs - 1, rem, xabs - 1 - rem in [0, 2^15); out + 2^15 in [0, 2^16)
      q = 1 (Sqrt):  x*2^s = out^2 + rem; x, out in [0, 2^15); rem, 2*out - rem in [0, 2^16); neg = 0
    as RecipComponent and SqrtComponent state them (slot c checks 16 bits: on Recip rows the gap,
    xabs - 1 - rem with both terms in [0, 2^15), is then in [0, 2^15))."""

    name = "recipsqrt"
    n_inputs = 1
    op_columns = ("x", "out", "rem", "neg")
    ranges = (("a", 15), ("b", 15), ("c", 16), ("d", 16))

    def evaluate_op(self, ev: Any) -> None:
        x, out, rem, neg = (ev.main(c) for c in ("x", "out", "rem", "neg"))
        q = self.t(ev, "q")
        r = 1 - q
        self.consume(ev, 0, x)
        ev.add_constraint(neg * (neg - 1))
        ev.add_constraint(q * neg)
        # fixed: 2^(2s) and 2^s; varied: each row's own power (2^c on Recip rows, 2^e on Sqrt rows)
        recip_c, sqrt_e = (self.t(ev, "pow"),) * 2 if self.variable else (1 << (2 * self.s), 1 << self.s)
        ev.add_constraint(r * (out * x + rem - recip_c))
        ev.add_constraint(q * (x * sqrt_e - out * out - rem))
        xabs = x * (1 - 2 * neg)
        self.check_range(ev, q * x + r * (xabs - 1), "a", 15)
        self.check_range(ev, q * out + r * rem, "b", 15)
        # Recip's gap is below 2^15 already: xabs - 1 and rem are (slots a and b), and it is >= 0
        self.check_range(ev, q * rem + r * (xabs - 1 - rem), "c", 16)
        self.check_range(ev, q * (out * 2 - rem) + r * (out + HALF), "d", 16)
        self.produce(ev, out)


class Exp2Component(GraphComponent):
    """y = exp2(x): clamped rows (c = 1) prove x < lo and give 0; the others look (x, y) up in the
    exp2 table, which holds every input >= lo (lo = the smallest input with a non-zero result)."""

    name = "exp2"
    tables = ("exp2",)
    n_inputs = 1
    op_columns = ("x", "y", "c")
    ranges = (("under", 16),)

    def evaluate_op(self, ev: Any) -> None:
        table = self.tables[0]
        x, y, c = ev.main("x"), ev.main("y"), ev.main("c")
        self.consume(ev, 0, x)
        ev.add_constraint(c * (c - 1))
        ev.add_constraint(c * y)
        self.check_range(ev, nonzero_start(table, self.s) - 1 - x, "under", 16, mult=c, gate=c)
        ev.add_to_relation(f"table.{table}", 1 - c, [x, y])
        self.produce(ev, y)


class ExpComponent(Exp2Component):
    """y = e^x (fused: FuseOpCompiler's exp of softmax, sigmoid, tanh), the same way through the exp
    table: one lookup instead of two exp2 lookups and two products."""

    name = "exp"
    tables = ("exp",)


class ErfComponent(GraphComponent):
    """y = erf(x) (fused: the importer's erf, GELU's), one lookup in the erf table, which holds every
    input strictly between the saturation points -h and h. A row with lo = 1 proves x <= -h and gives
    -1; a row with hi = 1 proves x >= h and gives 1 (numeric.op_erf)."""

    name = "erf"
    tables = ("erf",)
    n_inputs = 1
    op_columns = ("x", "y", "lo", "hi")
    ranges = (("under", 16), ("over", 16))

    def evaluate_op(self, ev: Any) -> None:
        h, one = erf_saturation(self.s), 1 << self.s
        x, y, lo, hi = ev.main("x"), ev.main("y"), ev.main("lo"), ev.main("hi")
        self.consume(ev, 0, x)
        ev.add_constraint(lo * (lo - 1))
        ev.add_constraint(hi * (hi - 1))
        ev.add_constraint(lo * hi)
        ev.add_constraint(lo * (y + one))
        ev.add_constraint(hi * (y - one))
        self.check_range(ev, -h - x, "under", 16, mult=lo, gate=lo)
        self.check_range(ev, x - h, "over", 16, mult=hi, gate=hi)
        ev.add_to_relation("table.erf", 1 - lo - hi, [x, y])
        self.produce(ev, y)


class ExpErfComponent(MergedKindsComponent):
    """Exp and Erf rows in one component, when a graph has both (softmax and GELU): q (1 on Erf
    rows, a topology column derived from the graph) selects each row's table, clamp and results;
    the two share x, y, the lower clamp and its range limbs.
      q = 0 (Exp): lo = 1 proves x < start and gives 0; else (x, y) is in the exp table
      q = 1 (Erf): lo = 1 proves x <= -h and gives -1, hi = 1 proves x >= h and gives 1; else
                   (x, y) is in the erf table
    as ExpComponent (its c is lo) and ErfComponent state them."""

    name = "experf"
    tables = ("exp", "erf")
    n_inputs = 1
    # te, tf: whether a row looks up the exp / the erf table (LogUp multiplicities have degree 1)
    op_columns = ("x", "y", "lo", "hi", "te", "tf")
    ranges = (("under", 16), ("over", 16))

    def evaluate_op(self, ev: Any) -> None:
        h, one, start = erf_saturation(self.s), 1 << self.s, nonzero_start("exp", self.s)
        x, y, lo, hi = ev.main("x"), ev.main("y"), ev.main("lo"), ev.main("hi")
        q = self.t(ev, "q")
        r = 1 - q
        self.consume(ev, 0, x)
        ev.add_constraint(lo * (lo - 1))
        ev.add_constraint(hi * (hi - 1))
        ev.add_constraint(lo * hi)
        ev.add_constraint(r * hi)  # Exp has no upper clamp
        ev.add_constraint(lo * (y + q * one))  # below: Exp gives 0, Erf -1
        ev.add_constraint(hi * (y - one))
        self.check_range(ev, r * (start - 1) - q * h - x, "under", 16, mult=lo, gate=lo)
        self.check_range(ev, x - h, "over", 16, mult=hi, gate=hi)
        te, tf = ev.main("te"), ev.main("tf")
        ev.add_constraint(te - r * (1 - lo))
        ev.add_constraint(tf - q * (1 - lo - hi))
        ev.add_to_relation("table.exp", te, [x, y])
        ev.add_to_relation("table.erf", tf, [x, y])
        self.produce(ev, y)


class Log2Component(GraphComponent):
    """y = log2(x): m = x * 2^(14-e) is the normalized mantissa in [2^14, 2^15) (looked up with its
    log), (e, 2^(14-e)) is a row of pow2, and y = (e - s) 2^s + log2(m / 2^14) 2^s, range-checked.
    A non-positive x has no normalized mantissa, so it cannot be proven."""

    name = "log2"
    tables = ("log2", "pow2")
    n_inputs = 1
    op_columns = ("x", "y", "e", "p", "m", "t")
    ranges = (("out", 16),)

    def evaluate_op(self, ev: Any) -> None:
        x, y, e, p, m, t = (ev.main(c) for c in ("x", "y", "e", "p", "m", "t"))
        self.consume(ev, 0, x)
        ev.add_constraint(m - x * p)
        ev.add_to_relation("table.pow2", 1, [e, p])
        ev.add_to_relation("table.log2", 1, [m, t])
        ev.add_constraint(y - (e - self.s) * (1 << self.s) - t)
        self.check_range(ev, y + HALF, "out", 16)
        self.produce(ev, y)


class SinComponent(GraphComponent):
    """y = sin(x) = sign(x) sin(|x|): a = x(1 - 2neg) is looked up in the table over [0, 2^15)
    (which also proves the sign), y = t(1 - 2neg)."""

    name = "sin"
    tables = ("sin",)
    n_inputs = 1
    op_columns = ("x", "y", "a", "neg", "t")

    def evaluate_op(self, ev: Any) -> None:
        x, y, a, neg, t = (ev.main(c) for c in ("x", "y", "a", "neg", "t"))
        self.consume(ev, 0, x)
        ev.add_constraint(neg * (neg - 1))
        sign = 1 - 2 * neg
        ev.add_constraint(a - x * sign)
        ev.add_constraint(y - t * sign)
        ev.add_to_relation("table.sin", 1, [a, t])
        self.produce(ev, y)


class ReluComponent(GraphComponent):
    """A fused ReLU (x * (0 < x) of the primitives): out = g x with g in {0, 1} and
    d = g (x - 1) - (1 - g) x in [0, 2^16): g = 1 forces x >= 1, g = 0 forces x <= 0 (x is a 16-bit
    value, so a wrong sign leaves d negative, far outside the range)."""

    name = "relu"
    n_inputs = 1
    op_columns = ("x", "out", "g")
    ranges = (("d", 16),)

    def evaluate_op(self, ev: Any) -> None:
        x, out, g = ev.main("x"), ev.main("out"), ev.main("g")
        self.consume(ev, 0, x)
        ev.add_constraint(g * (g - 1))
        ev.add_constraint(out - g * x)
        self.check_range(ev, g * (x - 1) - (1 - g) * x, "d", 16)
        self.produce(ev, out)


class ContiguousComponent(GraphComponent):
    """Materializes a view: reads (src, src_idx, v) and yields (node, idx, v)."""

    name = "contiguous"
    n_inputs = 1
    op_columns = ("v",)

    def evaluate_op(self, ev: Any) -> None:
        v = ev.main("v")
        self.consume(ev, 0, v)
        self.produce(ev, v)


class SumReduceComponent(GraphComponent):
    """One row per input element, groups of consecutive rows per output element (sparse `first` and
    `last` mark them): acc = x + (1 - first) * acc[row - 1]; a group's last row yields acc
    (range-checked)."""

    name = "sum_reduce"
    n_inputs = 1
    reduce = True
    op_columns = ("x", "acc")
    ranges = (("out", 16),)

    def evaluate_op(self, ev: Any) -> None:
        x, acc = ev.main("x"), ev.main("acc")
        first, last = ev.sparse("first"), ev.sparse("last")
        self.consume(ev, 0, x)
        ev.add_constraint(acc - x - (1 - first) * ev.main("acc", -1))
        self.check_range(ev, acc + HALF, "out", 16, mult=last, gate=last)
        self.produce(ev, acc)


class MaxReduceComponent(GraphComponent):
    """m = x on a group's first row, else m = max(m[row - 1], x) with ge = [x >= m[row - 1]]
    proven by diff = (2ge - 1)(x - m[row - 1]) - (1 - ge) in [0, 2^16)."""

    name = "max_reduce"
    n_inputs = 1
    reduce = True
    op_columns = ("x", "m", "ge")
    ranges = (("diff", 16),)

    def evaluate_op(self, ev: Any) -> None:
        x, m, ge = ev.main("x"), ev.main("m"), ev.main("ge")
        prev = ev.main("m", -1)
        rest = 1 - ev.sparse("first")
        self.consume(ev, 0, x)
        ev.add_constraint(ge * (ge - 1))
        ev.add_constraint(m - x - rest * (1 - ge) * (prev - x))
        diff = (2 * ge - 1) * (x - prev) - (1 - ge)
        self.check_range(ev, diff, "diff", 16, mult=rest, gate=rest)
        self.produce(ev, m)


class SumMaxReduceComponent(MergedKindsComponent):
    """SumReduce and MaxReduce rows in one component, when a graph has both (softmax: the max, then
    the sum of the exps): q (1 on MaxReduce rows, a topology column derived from the graph) selects
    each row's recurrence; both run over the same sparse group starts and ends. Helper columns keep
    every constraint at degree 3: t = (1 - ge)(m[-1] - x), g the range gate (last on SumReduce
    rows, not-first on MaxReduce rows) and w the value it checks:
      q = 0: m = x + (1 - first) m[-1], ge = 0; w = m + 2^15 in [0, 2^16) on the group's last row
      q = 1: m = x + (1 - first) t; w = (2ge - 1)(x - m[-1]) - (1 - ge) in [0, 2^16) past its first
    as SumReduceComponent and MaxReduceComponent state them."""

    name = "sum_max_reduce"
    n_inputs = 1
    reduce = True
    op_columns = ("x", "m", "ge", "t", "g", "w")
    ranges = (("w", 16),)

    def evaluate_op(self, ev: Any) -> None:
        x, m, ge, t, g, w = (ev.main(c) for c in ("x", "m", "ge", "t", "g", "w"))
        prev = ev.main("m", -1)
        first, last = ev.sparse("first"), ev.sparse("last")
        rest = 1 - first
        q = self.t(ev, "q")
        r = 1 - q
        self.consume(ev, 0, x)
        ev.add_constraint(ge * (ge - 1))
        ev.add_constraint(r * ge)
        ev.add_constraint(t - (1 - ge) * (prev - x))
        ev.add_constraint(r * (m - x - rest * prev))
        ev.add_constraint(q * (m - x - rest * t))
        ev.add_constraint(g - r * last - q * rest)
        ev.add_constraint(w - r * (m + HALF) - q * ((2 * ge - 1) * (x - prev) - (1 - ge)))
        self.check_range(ev, w, "w", 16, mult=g, gate=g)
        self.produce(ev, m)


class DotComponent(GraphComponent):
    """A fused dot product (MatMul, Gemm, Conv): out = round(sum_k a_k b_k / 2^s), one group of
    rows per output element, `lanes` products a row. Lane j of a row reads input k at
    in{k}_addr + j * in{k}_step (in{k}_step: the reduced axis' stride, a topology column).
    acc = (1 - first) acc[row - 1] + sum_j a_j b_j, with acc + 2^28 range-checked to [0, 2^29) on
    every row; the verifier chose `lanes` so that lanes * max|a| * max|b| + 2^29 < P
    (verifier/graph/topology.dot_lanes), so the relation holds over the integers and acc is the
    exact integer sum so far. A group's last row proves acc + 2^(s-1) = out 2^s + rem with
    0 <= rem < 2^s and out a 16-bit value, and yields out: one rounding per output element.

    With a bias (a fused Add of the product and a third input c, read once per output element on
    the group's last row at in2_addr, a step topology column): acc + 2^(s-1) + c 2^s = out 2^s + rem,
    so out = round(acc / 2^s) + c exactly (|each term| <= 2^29, so the relation holds over the
    integers). s is the node's shift, or each row's own where the component varies (vary)."""

    n_inputs = 2
    reduce = True
    rounds = True

    def __init__(
        self, log_size: int, scale_bits: int, lanes: int, direct: bool = False, bias: bool = False,
        chunked: tuple[bool, bool] = (False, False),
    ) -> None:
        self.lanes = lanes
        self.direct = direct  # weights read straight from the verifier's `weights` terms
        self.bias = bias
        self.chunked = chunked  # per operand: read in whole known rows (topology.chunked_reads)
        self.name = (("dotw" if direct else "dot") + str(lanes) + ("b" if bias else "") + ("c" if chunked[0] else "")
                     + ("d" if chunked[1] else ""))
        ab = tuple(f"a{j}" for j in range(lanes)) + tuple(f"b{j}" for j in range(lanes))
        self.op_columns = ab + ("acc", "out", "rem") + (("bias",) if bias else ())
        self.ranges = (("acc", DOT_ACC_BITS), ("out", 16), ("rem", scale_bits))
        super().__init__(log_size, scale_bits)

    def _unused(self) -> tuple[str, ...]:
        # direct weights are read whole (no lane steps) and never padded (in1_real = is_real);
        # chunked reads take a whole known row (no lane steps)
        return (("in1_real", "in1_step") if self.direct else ()) + tuple(
            f"in{k}_step" for k in (0, 1) if self.chunked[k])

    def topology_kinds(self) -> dict[str, str]:
        kinds = super().topology_kinds()
        kinds.update({f"in{k}_step": "step" for k in range(self.n_inputs)})
        if self.bias:
            kinds["in2_addr"] = "step"
        return {k: v for k, v in kinds.items() if k not in self._unused()}

    def topology_columns(self) -> tuple[str, ...]:
        cols = super().topology_columns() + tuple(f"in{k}_step" for k in range(self.n_inputs))
        cols += ("in2_addr",) if self.bias else ()
        return tuple(c for c in cols if c not in self._unused())

    def evaluate_op(self, ev: Any) -> None:
        first, last = ev.sparse("first"), ev.sparse("last")
        total = 0
        for j in range(self.lanes):
            a, b = ev.main(f"a{j}"), ev.main(f"b{j}")
            if not self.chunked[0]:
                self.consume(ev, 0, a, j, padding_zero=False)
            if not self.direct and not self.chunked[1]:
                self.consume(ev, 1, b, j, padding_zero=False)
            total = total + a * b
        for k, prefix in ((0, "a"), (1, "b")):
            if not self.chunked[k]:
                continue
            # every KNOWN_LANES lanes are one known row, matched whole at its address
            real, addr = self.t(ev, f"in{k}_real"), self.t(ev, f"in{k}_addr")
            for c in range(0, self.lanes, KNOWN_LANES):
                lanes = [ev.main(f"{prefix}{j}") for j in range(c, c + KNOWN_LANES)]
                ev.add_to_relation(CHUNKS, -real, [addr + c if c else addr, *lanes])
        # A real row that reads padding (the masks split into whole rows, topology.dot_lanes) adds
        # nothing: one constraint per input on the row's sum instead of one per lane on its values.
        real = self.t(ev, "is_real")
        for k in range(1 if self.direct else self.n_inputs):
            ev.add_constraint((real - self.t(ev, f"in{k}_real")) * total)
        if self.direct:
            # one tuple a row: the verifier adds (address, weights) for every row of this node from
            # settings.bin, so the lanes hold exactly the displayed weights at the pinned address
            weights = [ev.main(f"b{j}") for j in range(self.lanes)]
            ev.add_to_relation(WEIGHTS, -self.t(ev, "is_real"), [self.t(ev, "in1_addr"), *weights])
        acc, out, rem = ev.main("acc"), ev.main("out"), ev.main("rem")
        ev.add_constraint(acc - (1 - first) * ev.main("acc", -1) - total)
        self.check_range(ev, acc + DOT_ACC_BOUND, "acc", DOT_ACC_BITS)
        rounded = acc + self.half(ev)
        if self.bias:
            bias = ev.main("bias")
            ev.add_to_relation(DATA, -last, [self.t(ev, "in2_addr"), bias])
            rounded = rounded + bias * self.power(ev)
        ev.add_constraint(last * (rounded - out * self.power(ev) - rem))
        self.check_range(ev, out + HALF, "out", 16, mult=last, gate=last)
        self.check_remainder(ev, rem, mult=last, gate=last)
        self.produce(ev, out)


class KnownComponent(GraphComponent):
    """Values the verifier knows: the model's weights (from settings.bin) and the public inputs
    (from proof.bin), KNOWN_LANES consecutive elements per row. Each real row consumes its whole
    tuple (addr, v_0..v_(KNOWN_LANES-1)) once from the `known` relation, into which the verifier adds one term
    per row it computes itself from those files; each lane yields (addr + j, v_j) with its own
    multiplicity m_j, and the whole row yields (addr, v_0, ...) to the `chunks` relation with
    multiplicity cm (the Dot rows that read it whole); all are zero on padding rows."""

    name = "known"

    op_columns = tuple(f"v{j}" for j in range(KNOWN_LANES))

    def topology_columns(self) -> tuple[str, ...]:
        return ("addr", "is_real") + tuple(f"m{j}" for j in range(KNOWN_LANES)) + ("cm",)

    def lane_mult(self, ev: Any, j: int) -> Any:
        return self.t(ev, f"m{j}")

    def evaluate_op(self, ev: Any) -> None:
        addr, real = self.t(ev, "addr"), self.t(ev, "is_real")
        values = [ev.main(f"v{j}") for j in range(KNOWN_LANES)]
        ev.add_to_relation(KNOWN, -real, [addr, *values])
        for j, v in enumerate(values):
            m = self.lane_mult(ev, j)
            ev.add_constraint(m * (1 - real))
            ev.add_to_relation(DATA, m, [addr + j, v])
        cm = self.t(ev, "cm")
        ev.add_constraint(cm * (1 - real))
        ev.add_to_relation(CHUNKS, cm, [addr, *values])


class GatherTableComponent(KnownComponent):
    """Known rows of the tables that Gathers at private ids read: as KnownComponent, but each lane's
    multiplicity is a main-trace witness, since which rows are read depends on the ids."""

    name = "known_table"
    op_columns = KnownComponent.op_columns + tuple(f"m{j}" for j in range(KNOWN_LANES))

    def topology_columns(self) -> tuple[str, ...]:
        return ("addr", "is_real", "cm")

    def lane_mult(self, ev: Any, j: int) -> Any:
        return ev.main(f"m{j}")


class PrivateInputComponent(GraphComponent):
    """Private inputs: values only the prover knows, range-checked and yielded with their fan-out."""

    name = "private_input"
    op_columns = ("v",)
    ranges = (("v", 16),)

    def evaluate_op(self, ev: Any) -> None:
        v = ev.main("v")
        self.check_range(ev, v + HALF, "v", 16)
        self.produce(ev, v)


class CommittedComponent(GraphComponent):
    """Committed weights (docs/committed-models.md): each row's value is the model tree's column
    `<name>.v`, a preprocessed column of the statement's own tree whose root settings.bin holds, so
    the verifier never reads a weight. Every value is range-checked to |v| < 2^(bits-1) (the
    settings' model bits, the bound the products' lanes are sized for) and yielded with its fan-out,
    as a private input is. Here `s` is those bits."""

    name = "committed"

    def range_tables(self) -> set[str]:
        return {f"range{value_table_bits(self.s)}"}

    def evaluate_op(self, ev: Any) -> None:
        v = self.t(ev, "v")
        self.check_value_range(ev, v + (1 << (self.s - 1)), self.s)
        self.produce(ev, v)


class CommittedInputComponent(CommittedComponent):
    """Committed inputs: as committed weights, from the input tree, committed by the prover for each
    proof (its root, in proof.bin, is the input digest the verifier reports); 16-bit values."""

    name = "committed_input"


class CommittedOutputComponent(GraphComponent):
    """Committed outputs: one row a committed output element, whose value is the output tree's
    column `<name>.v` (committed by the prover for each proof; its root, in proof.bin, is the output
    digest the verifier reports). A real row consumes (addr, v) from the data relation, as the
    verifier's own term does for a public output element; an element that reads padding (and a
    padding row) holds 0."""

    name = "committed_output"

    def topology_columns(self) -> tuple[str, ...]:
        return ("addr", "is_real")

    def topology_kinds(self) -> dict[str, str]:
        return {"addr": "affine", "is_real": "step"}

    def evaluate_op(self, ev: Any) -> None:
        v, real = self.t(ev, "v"), self.t(ev, "is_real")
        ev.add_to_relation(DATA, -real, [self.t(ev, "addr"), v])
        ev.add_constraint((1 - real) * v)


def gamma_series(gamma: QM31, v: Sequence[QM31]) -> QM31:
    """sum_k gamma^(k+1) v_k, by Horner: ((v_(K-1) gamma + v_(K-2)) gamma + ...) gamma (a vector's
    public term: MatW's and the boundary components')."""
    acc: QM31 = (0, 0, 0, 0)
    for x in reversed(v):
        acc = q_mul(q_add(acc, x), gamma)
    return acc


BUNDLE_RHO = "bundle.rho"  # a segmented proof's fingerprint challenge: the bundle's, shared by every segment


class FingerprintMixin(GraphComponent):
    """A segment's boundary tensors (docs/segments.md), each fingerprinted as f = sum_j rho^j t_j
    over its rows (its elements in row-major order, one a row, tensor after tensor from row 0;
    padding rows extend the last one). rho is the bundle's challenge (BUNDLE_RHO), derived from
    every segment's boundary roots, so the same for the segment that writes a tensor and every one
    that reads it. The proof sends f of each tensor (the vector); then this component's own gamma
    is drawn and each row adds -gamma g r v (g = gamma^G on tensor G's rows, r = rho^j its j-th
    row's) while the verifier adds sum_G gamma^(G+1) f_G: they cancel, for random gamma, only if
    every f_G is tensor G's fingerprint (a polynomial in gamma without constant term, of this
    component alone). The bundle verifier compares the writer's f with each reader's."""

    def _fingerprint(self, n_tensors: int) -> None:
        self.gamma = f"{self.name}.gamma"
        self.challenges = (BUNDLE_RHO,)
        self.late_challenges = (self.gamma,)
        self.vector_length = n_tensors
        self.counters = {"g": GeometricColumn("first", self.gamma, False), "r": GeometricColumn("first", BUNDLE_RHO, True)}
        self.aux_columns = dict(self.counters)
        self.sparse_columns["first"] = {0: 1}  # (one tensor; the planner marks each tensor's first row)
        # gamma's polynomial has degree n_tensors + 1 (drawn after the interaction grinding); a tensor
        # that differs between two segments keeps its fingerprint only at a root of a polynomial of
        # degree < 2^log_size in rho, which comes from the bundle's seed (no grinding before it)
        self.challenge_degree = n_tensors + 1
        self.shared_degree = 1 << self.log_size

    def _fingerprint_rows(self, ev: Any, v: Any) -> None:
        for name, col in self.counters.items():
            constrain_geometric(ev, name, col)
        ev.add_to_sum(-(ev.challenge(self.gamma) * ev.aux("g") * ev.aux("r") * v))

    def public_term(self, challenges: dict[str, QM31], v: list[QM31]) -> QM31:
        """sum_G gamma^(G+1) f_G: the verifier's side of the check."""
        return gamma_series(challenges[self.gamma], v)


class BoundaryInputComponent(FingerprintMixin, CommittedInputComponent):
    """A segment's boundary inputs: tensors an earlier segment wrote, in the input tree (a root of
    proof.bin, mixed before the bundle's seed is known) and fingerprinted. Not range-checked: the
    writer's own rows prove what each value may be, and the fingerprints make the reader's values
    the writer's."""

    name = "boundary_input"

    def __init__(self, log_size: int, n_tensors: int, name: str = "") -> None:
        super().__init__(log_size, 0)
        self.name = name or self.name  # (before the challenge named after it)
        self._fingerprint(n_tensors)

    def range_tables(self) -> set[str]:
        return set()

    def evaluate_op(self, ev: Any) -> None:
        v = self.t(ev, "v")
        self.produce(ev, v)
        self._fingerprint_rows(ev, v)


class BoundaryOutputComponent(FingerprintMixin, CommittedOutputComponent):
    """A segment's boundary outputs: tensors a later segment reads, consumed from the data relation
    as committed outputs are (the output tree) and fingerprinted."""

    name = "boundary_output"

    def __init__(self, log_size: int, n_tensors: int, name: str = "") -> None:
        super().__init__(log_size, 0)
        self.name = name or self.name  # (before the challenge named after it)
        self._fingerprint(n_tensors)

    def evaluate_op(self, ev: Any) -> None:
        super().evaluate_op(ev)
        self._fingerprint_rows(ev, self.t(ev, "v"))


class PrivateIndexComponent(GraphComponent):
    """Private index inputs (token ids): yielded with their fan-out and not range-checked here; only
    Gathers read them (settings.bin), and each Gather checks every id it reads against its table."""

    name = "private_index"
    op_columns = ("v",)

    def evaluate_op(self, ev: Any) -> None:
        self.produce(ev, ev.main("v"))


class GatherComponent(GraphComponent):
    """Rows of a constant (V, d) table at private ids, one output element (t, j) a row: it reads
    id = ids[t] (input 1), proves 0 <= id <= top = V - 1 (two 24-bit range checks; V <= 2^24), and
    reads the table element at src = in0_addr + width id, where in0_addr is element (0, j)'s address
    and width = d (per-node topology columns). So src is an address of the table's own elements,
    which only the table's known rows yield, with the weights the verifier adds from settings.bin."""

    name = "gather"
    n_inputs = 2
    op_columns = ("id", "src", "out")
    ranges = (("id", 24), ("rest", 24))

    def topology_kinds(self) -> dict[str, str]:
        return {**super().topology_kinds(), "width": "step", "top": "step"}

    def topology_columns(self) -> tuple[str, ...]:
        return super().topology_columns() + ("width", "top")

    def evaluate_op(self, ev: Any) -> None:
        idv, src, out = ev.main("id"), ev.main("src"), ev.main("out")
        self.consume(ev, 1, idv)
        ev.add_constraint(src - self.t(ev, "in0_addr") - self.t(ev, "width") * idv)
        ev.add_to_relation(DATA, -self.t(ev, "in0_real"), [src, out])
        self.check_range(ev, idv, "id", 24)
        self.check_range(ev, self.t(ev, "top") - idv, "rest", 24)
        self.produce(ev, out)


class RangeTableComponent(GraphComponent):
    """range8 / range16 (and range<b>, committed values of b bits): the values 0..2^bits - 1, each
    with the multiplicity it is looked up. The
    values are a topology column (committed with the main trace, no tree of their own to open): an
    affine column anchored at 0 whose second difference is zero but where the cycle wraps (rows 0
    and 1), so it holds exactly value[r] = r (topology.py: the only solution on a cyclic trace)."""

    def __init__(self, bits: int) -> None:
        super().__init__(bits, 0)
        self.name = f"table.range{bits}"
        self.relation = f"range{bits}"  # (RANGE, RANGE16, or a committed value's table)
        n = 1 << bits
        self.main_columns = ("multiplicity",)
        self.sparse_columns = {"d.value": {0: P - n, 1: n}}
        self.anchors = {"value": 0}

    def topology_columns(self) -> tuple[str, ...]:
        return ("value",)

    def topology_kinds(self) -> dict[str, str]:
        return {"value": "affine"}

    def evaluate_op(self, ev: Any) -> None:
        ev.add_to_relation(self.relation, -ev.main("multiplicity"), [self.t(ev, "value")])


class FunctionTableComponent(Component):
    """An (x, f(x)) table (exp2, log2, pow2, sin) with lookup multiplicities."""

    def __init__(self, table: str, log_size: int) -> None:
        self.name = f"table.{table}"
        self.table = table
        self.log_size = log_size
        self.main_columns = ("multiplicity",)

    def evaluate(self, ev: Any) -> None:
        ev.add_to_relation(
            self.name,
            -ev.main("multiplicity"),
            [ev.pre(f"table.{self.table}.in"), ev.pre(f"table.{self.table}.out")],
        )


OP_COMPONENTS: dict[str, type[GraphComponent]] = {
    "Exp2": Exp2Component,
    "Log2": Log2Component,
    "Sin": SinComponent,
    "Add": AddComponent,
    "Mul": MulComponent,
    "LessThan": LessThanComponent,
    "Mod": ModComponent,
    "Recip": RecipComponent,
    "Sqrt": SqrtComponent,
    "RecipSqrt": RecipSqrtComponent,
    "Contiguous": ContiguousComponent,
    "Relu": ReluComponent,
    "Exp": ExpComponent,
    "Erf": ErfComponent,
    "ExpErf": ExpErfComponent,
    "SumReduce": SumReduceComponent,
    "MaxReduce": MaxReduceComponent,
    "SumMaxReduce": SumMaxReduceComponent,
    "Gather": GatherComponent,
}

@dataclass(frozen=True)
class DotVariant:
    """What the planner decided for a Dot (verifier/graph/planner.py): weights read directly from
    the verifier's terms (topology.direct_weight_reads), products a row, a bias input, and which
    operands are read in whole known rows (topology.chunked_reads)."""

    direct: bool
    lanes: int
    bias: bool
    chunked_a: bool = False
    chunked_b: bool = False

    @property
    def key(self) -> str:
        """The kind's name ("DotW8B"): its place in COMPONENT_ORDER."""
        return (f"Dot{'W' if self.direct else ''}{self.lanes}{'B' if self.bias else ''}"
                f"{'C' if self.chunked_a else ''}{'D' if self.chunked_b else ''}")


# Component order in the AIR: fixed, independent of the graph. A chunked read takes whole known
# rows (lanes a multiple of KNOWN_LANES); direct weights are never chunked.
DOT_VARIANTS = {
    v.key: v
    for v in (DotVariant(w, lanes, b, c, d) for w in (False, True) for lanes in DOT_LANE_CHOICES for b in (False, True)
              for c in (False, True) for d in (False, True))
    if (not (v.chunked_a or v.chunked_b) or v.lanes % KNOWN_LANES == 0) and not (v.direct and v.chunked_b)
}
COMPONENT_ORDER = (
    "Known", "GatherTable", "PrivateInput", "Committed", "CommittedInput", "BoundaryInput", "PrivateIndex", "Gather", "Add", "Mul", "LessThan", "Mod", "Recip", "Sqrt", "RecipSqrt",
    "Exp2", "Log2", "Sin", "Contiguous", "SumReduce", "MaxReduce", "SumMaxReduce", "Relu", "Exp", "Erf", "ExpErf",
    *DOT_VARIANTS,
)  # fmt: skip


def make_component(kind: str, log_size: int, scale_bits: int) -> GraphComponent:
    if kind == "Known":
        return KnownComponent(log_size, scale_bits)
    if kind == "GatherTable":
        return GatherTableComponent(log_size, scale_bits)
    if kind == "PrivateInput":
        return PrivateInputComponent(log_size, scale_bits)
    if kind == "PrivateIndex":
        return PrivateIndexComponent(log_size, scale_bits)
    if kind == "Committed":
        return CommittedComponent(log_size, scale_bits)
    if kind == "CommittedInput":
        return CommittedInputComponent(log_size, scale_bits)
    if kind == "CommittedOutput":
        return CommittedOutputComponent(log_size, scale_bits)
    if kind == "BoundaryInput":  # (one tensor: the planner builds it with its own count)
        return BoundaryInputComponent(log_size, 1)
    v = DOT_VARIANTS.get(kind)
    if v is not None:
        return DotComponent(log_size, scale_bits, v.lanes, v.direct, v.bias, (v.chunked_a, v.chunked_b))
    return OP_COMPONENTS[kind](log_size, scale_bits)


class MatInComponent(GraphComponent):
    """The input side of Freivalds-checked matrix products (verifier/graph/matmul.py) that share a
    MatOut (`tag`, whose challenges they read): row t of group m of a node holds
    A[m, tL + j] = lo_j + 256 hi_j for its L lanes, read at in0_addr + j in0_step; lo_j and
    hi_j + 128 are in range8; a lane that reads padding (or a padding row) holds 0. Each row adds
    mu u sum_j (lo_j + lambda hi_j) v_j to the running sum (the factor mu: framework.py's plain-term
    rule): u = mu^(offset + m) (aux; `offset` the
    MatOut groups before the node's, the periodic column `head` mu^offset) and v_j the periodic
    column of v_(tL + j) (public weights: v = (W_lo + lambda2 W_hi) rho). Several nodes' rows are
    interleaved (stride: the number of nodes, up to a power of two)."""

    n_inputs = 1
    byte_limbs = True

    def __init__(
        self, log_size: int, scale_bits: int, lanes: int, nodes: list[int], periodic: "WeightColumns | None" = None,
        split_w: bool = False, tag: str = "",
    ) -> None:
        self.lanes = lanes
        self.nodes = nodes
        self.stride = 1 << (len(nodes) - 1).bit_length()
        self.periodic = periodic
        self.name = f"matin{lanes}.n{nodes[0]}" + (f"+{len(nodes) - 1}" if len(nodes) > 1 else "")
        self.challenges = mat_challenges(tag or self.name, split_w)
        self.counter = GeometricColumn("first", self.challenges[0], False, stride=self.stride, head="head")
        self.aux_columns = {"u": self.counter}
        self.op_columns = tuple(f"lo{j}" for j in range(lanes)) + tuple(f"hi{j}" for j in range(lanes))
        super().__init__(log_size, scale_bits)

    def topology_columns(self) -> tuple[str, ...]:
        return ("is_real", "in0_addr", "in0_real", "in0_step")

    def topology_kinds(self) -> dict[str, str]:
        return {"is_real": "step", "in0_addr": "affine", "in0_real": "step", "in0_step": "step"}

    def periodic_values(self, challenges: dict[str, QM31]) -> dict[str, tuple[int, list[QM31]]]:
        if self.periodic is None:
            raise AirDefinitionError(f"{self.name}: built without its weights")
        return self.periodic(challenges)

    def evaluate_op(self, ev: Any) -> None:
        constrain_geometric(ev, "u", self.counter)
        lam = ev.challenge(self.challenges[2])
        real = self.t(ev, "in0_real")
        total = 0
        for j in range(self.lanes):
            lo, hi = ev.main(f"lo{j}"), ev.main(f"hi{j}")
            a = lo + hi * 256
            self.consume(ev, 0, a, j, padding_zero=False)
            ev.add_constraint((1 - real) * a)
            ev.add_to_relation(RANGE, 1, [lo])
            ev.add_to_relation(RANGE, 1, [hi + 128])
            total = total + (lo + lam * hi) * ev.periodic(f"v{j}")
        ev.add_to_sum(ev.challenge(self.challenges[0]) * ev.aux("u") * total)


def mat_challenges(tag: str, split_w: bool) -> tuple[str, ...]:
    """mu, rho, lambda (and lambda2 for weights split into limbs) of the checked products that share
    the MatOut component `tag`."""
    return tuple(f"{tag}.{c}" for c in ("mu", "rho", "lam") + (("lam2",) if split_w else ()))


class MatOutComponent(GraphComponent):
    """The output side of Freivalds-checked matrix products: one row per output element (m, n) of
    each of its nodes (one after another), groups of N rows per m. S_lo + 2^28, S_hi + 2^22 and the
    total S_lo + 256 S_hi + 2^28 are range-checked; total + 2^(s-1) + 2^s bias = 2^s out + rem with
    out a 16-bit value and 0 <= rem < 2^s; it yields out and adds -mu u r (S_lo + lambda S_hi) to the
    running sum, u = mu^g and r = rho^n (aux), g the group's index over all its nodes: a node's
    MatIn or MatPair scales its own terms by mu^(its first group's index), so the component's terms
    are those of one product with the nodes' rows stacked, and every node's output is checked.

    Public weights (split_w: W = W_lo + 256 W_hi, both limbs from the proof's public values): four
    sums S_ll, S_hl, S_lh (|.| < 2^28) and S_hh (|.| < 2^22) of (A limb) x (W limb); t1 = 256 S_hh +
    S_hl + S_lh is a column in +-2^22 and the total 256 t1 + S_ll (every step below 2^31, exact); the
    term is -mu u r (S_ll + lambda S_hl + lambda2 S_lh + lambda lambda2 S_hh).

    s is the products' rounding shift, or each row's own where their shifts differ (vary)."""

    rounds = True

    def __init__(self, log_size: int, scale_bits: int, tag: str, bias: bool, split_w: bool = False) -> None:
        self.bias = bias
        self.split_w = split_w
        self.n_inputs = 1 if bias else 0
        self.name = tag
        self.challenges = mat_challenges(tag, split_w)
        # sum M + max N <= its rows + 2, one more for the factor mu of every term: the degree its
        # challenges must avoid (security.py)
        self.challenge_degree = (1 << log_size) + 3
        self.aux_columns = {
            "u": GeometricColumn("first", self.challenges[0], False),
            "r": GeometricColumn("first", self.challenges[1], True),
        }
        sums = ("sll", "shl", "slh", "shh", "t1") if split_w else ("slo", "shi")
        limbs = ([("sll", S_BITS), ("shl", S_BITS), ("slh", S_BITS), ("shh", HI_BITS), ("t1", HI_BITS)] if split_w
                 else [("slo", S_BITS), ("shi", HI_BITS)])
        self.op_columns = sums + ("out", "rem") + (("bias",) if bias else ())
        self.ranges = tuple(limbs) + (("tot", S_BITS), ("out", 16), ("rem", scale_bits))
        super().__init__(log_size, scale_bits)

    @staticmethod
    def tag(bias: bool, split_w: bool, part: int = 0) -> str:
        """The name of the MatOut instance that holds the products of one variant."""
        return f"matout{'b' if bias else ''}{'w' if split_w else ''}" + (f".{part}" if part else "")

    def topology_columns(self) -> tuple[str, ...]:
        return (("addr", "mult", "is_real") + (("in0_addr", "in0_real") if self.bias else ())
                + (("pow",) if self.variable else ()))

    def topology_kinds(self) -> dict[str, str]:
        kinds = {"addr": "affine", "is_real": "step"}
        if self.bias:
            kinds.update(in0_addr="affine", in0_real="step")
        return kinds | ({"pow": "step"} if self.variable else {})

    def evaluate_op(self, ev: Any) -> None:
        for name, col in self.aux_columns.items():
            assert isinstance(col, GeometricColumn)
            constrain_geometric(ev, name, col)
        lam = ev.challenge(self.challenges[2])
        if self.split_w:
            sll, shl, slh, shh, t1 = (ev.main(c) for c in ("sll", "shl", "slh", "shh", "t1"))
            for name, v in (("sll", sll), ("shl", shl), ("slh", slh)):
                self.check_range(ev, v + DOT_ACC_BOUND, name, S_BITS)
            self.check_range(ev, shh + HI_BOUND, "shh", HI_BITS)
            self.check_range(ev, t1 + HI_BOUND, "t1", HI_BITS)
            ev.add_constraint(t1 - shh * 256 - shl - slh)
            total = t1 * 256 + sll
            lam2 = ev.challenge(self.challenges[3])
            combined = sll + lam * shl + lam2 * slh + lam * lam2 * shh
        else:
            slo, shi = ev.main("slo"), ev.main("shi")
            self.check_range(ev, slo + DOT_ACC_BOUND, "slo", S_BITS)
            self.check_range(ev, shi + HI_BOUND, "shi", HI_BITS)
            total = slo + shi * 256
            combined = slo + lam * shi
        self.check_range(ev, total + DOT_ACC_BOUND, "tot", S_BITS)
        out, rem = ev.main("out"), ev.main("rem")
        rounded = total + self.half(ev)
        if self.bias:
            bias = ev.main("bias")
            self.consume(ev, 0, bias)
            rounded = rounded + bias * self.power(ev)
        ev.add_constraint(rounded - out * self.power(ev) - rem)
        self.check_range(ev, out + HALF, "out", 16)
        self.check_remainder(ev, rem)
        self.produce(ev, out)
        ev.add_to_sum(-(ev.challenge(self.challenges[0]) * ev.aux("u") * ev.aux("r") * combined))


class MatPairComponent(GraphComponent):
    """The operands of Freivalds-checked products of two computed tensors (graph/matmul.PairPlan)
    that share a MatOut (`tag`): row t of group (b, k) of a node holds A's la values lo_j + 256 hi_j
    (read at in0_addr + j in0_step) and B's lb values (at in1_addr + j in1_step), every limb in
    range8. Aux: ua = mu^(offset + b M + t la) (a run of mu^la over each k's rows from the periodic
    column `head`, mu^offset: `offset` as MatIn's), rb = rho^(t lb) (a run of rho^lb over each
    group), and the running sums X = sum ua mu^j (lo + lambda hi)_A and Y = sum rb rho^j
    (lo + lambda2 hi)_B over the group; each group's last row adds mu X Y to the running sum. Several
    nodes' rows are interleaved as MatIn's."""

    n_inputs = 2
    byte_limbs = True

    def __init__(self, log_size: int, scale_bits: int, la: int, lb: int, nodes: list[int], tag: str = "",
                 periodic: "WeightColumns | None" = None) -> None:
        self.la, self.lb = la, lb
        self.nodes = nodes
        self.stride = s = 1 << (len(nodes) - 1).bit_length()
        self.periodic = periodic
        self.name = f"matpair{la}x{lb}.n{nodes[0]}" + (f"+{len(nodes) - 1}" if len(nodes) > 1 else "")
        self.challenges = mat_challenges(tag or self.name, True)
        self.aux_columns = {
            "ua": GeometricColumn("kstart", self.challenges[0], True, la, s, "head"),
            "rb": GeometricColumn("first", self.challenges[1], True, lb, s),
            "x": RunningColumn("first", s),
            "y": RunningColumn("first", s),
        }
        self.op_columns = tuple(f"{p}{h}{j}" for p, lanes in (("a", la), ("b", lb)) for h in ("lo", "hi") for j in range(lanes))
        super().__init__(log_size, scale_bits)

    def topology_columns(self) -> tuple[str, ...]:
        return ("is_real", "in0_addr", "in0_real", "in0_step", "in1_addr", "in1_real", "in1_step")

    def topology_kinds(self) -> dict[str, str]:
        return {"is_real": "step", "in0_addr": "affine", "in0_real": "step", "in0_step": "step",
                "in1_addr": "affine", "in1_real": "step", "in1_step": "step"}

    def periodic_values(self, challenges: dict[str, QM31]) -> dict[str, tuple[int, list[QM31]]]:
        if self.periodic is None:
            raise AirDefinitionError(f"{self.name}: built without its offsets")
        return self.periodic(challenges)

    def _operand(self, ev: Any, prefix: str, lanes: int, lam: Any, f: str) -> Any:
        """sum_j f^j (lo_j + lam hi_j)."""
        total, power, step = 0, None, ev.challenge(f)
        for j in range(lanes):
            v = ev.main(f"{prefix}lo{j}") + lam * ev.main(f"{prefix}hi{j}")
            total = total + (v if power is None else power * v)
            power = step if power is None else power * step
        return total

    def running_term(self, ev: Any, name: str) -> Any:
        c = self.challenges
        if name == "x":
            return ev.aux("ua") * self._operand(ev, "a", self.la, ev.challenge(c[2]), c[0])
        return ev.aux("rb") * self._operand(ev, "b", self.lb, ev.challenge(c[3]), c[1])

    def evaluate_op(self, ev: Any) -> None:
        for name, col in self.aux_columns.items():
            if isinstance(col, GeometricColumn):
                constrain_geometric(ev, name, col)
            else:
                constrain_running(ev, self, name, col)
        for k, (prefix, lanes) in enumerate((("a", self.la), ("b", self.lb))):
            real = self.t(ev, f"in{k}_real")
            for j in range(lanes):
                lo, hi = ev.main(f"{prefix}lo{j}"), ev.main(f"{prefix}hi{j}")
                value = lo + hi * 256
                self.consume(ev, k, value, j, padding_zero=False)
                ev.add_constraint((1 - real) * value)
                ev.add_to_relation(RANGE, 1, [lo])
                ev.add_to_relation(RANGE, 1, [hi + 128])
        ev.add_to_sum(ev.challenge(self.challenges[0]) * ev.sparse("last") * ev.aux("x") * ev.aux("y"))


class MatWComponent(GraphComponent):
    """The committed weights of the Freivalds-checked products that share a MatOut (graph/matmul.py,
    docs/committed-models.md), from the model tree: the products' rows one after another, row t of
    group k of a product holding W[k, tL + j] in its L lanes (the model tree's columns
    `<name>.w{j}`; 0 past N and on padding rows). Each product's MatIn reads v = W rho from the
    proof (this component's vector: every product's v in turn, sent once rho is drawn); only then
    is gamma drawn, and each row adds -gamma g r sum_j rho^j w_j to the running sum (aux g = gamma^G,
    G the group's index over all the products; r = rho^(tL), a run of rho^L in each group) while the
    verifier adds sum_G gamma^(G+1) V_G itself (V: the vector). The two cancel, for random gamma,
    only if every V_G = sum_n W[k, n] rho^n: their difference is a polynomial of degree sum K + 1
    in gamma, a challenge of this component alone, without a constant term. Each w_j + 2^(bits-1)
    is range-checked to `bits` (the model bits: the products' integer bounds assume them)."""

    def __init__(self, log_size: int, bits: int, lanes: int, nodes: list[int], ks: list[int], tag: str) -> None:
        self.lanes, self.nodes, self.ks = lanes, nodes, ks
        self.name = f"matw{lanes}.n{nodes[0]}" + (f"+{len(nodes) - 1}" if len(nodes) > 1 else "")
        self.rho = mat_challenges(tag, False)[1]
        self.gamma = f"{self.name}.gamma"
        self.challenges = (self.rho,)
        self.late_challenges = (self.gamma,)
        self.vector_length = sum(ks)
        self.counters = {"g": GeometricColumn("first", self.gamma, False), "r": GeometricColumn("first", self.rho, True, lanes)}
        self.aux_columns = dict(self.counters)
        super().__init__(log_size, bits)

    def range_tables(self) -> set[str]:
        return {f"range{value_table_bits(self.s)}"}

    def split(self, vector: Sequence[QM31]) -> dict[int, list[QM31]]:
        """Each product's v from the component's vector."""
        out, at = {}, 0
        for node, k in zip(self.nodes, self.ks):
            out[node] = list(vector[at : at + k])
            at += k
        return out

    def topology_columns(self) -> tuple[str, ...]:
        return ()

    def topology_kinds(self) -> dict[str, str]:
        return {}

    def model_columns(self) -> tuple[str, ...]:
        return tuple(f"{self.name}.w{j}" for j in range(self.lanes))

    def evaluate_op(self, ev: Any) -> None:
        for name, col in self.counters.items():
            constrain_geometric(ev, name, col)
        total, power, rho = 0, None, ev.challenge(self.rho)
        for j, key in enumerate(self.model_columns()):
            w = ev.pre(key)
            self.check_value_range(ev, w + (1 << (self.s - 1)), self.s)
            total = total + (w if power is None else power * w)
            power = rho if power is None else power * rho
        ev.add_to_sum(-(ev.challenge(self.gamma) * ev.aux("g") * ev.aux("r") * total))

    def public_term(self, challenges: dict[str, QM31], v: list[QM31]) -> QM31:
        """sum_k gamma^(k+1) v_k: the verifier's side of the check."""
        return gamma_series(challenges[self.gamma], v)
