"""One AIR component per primitive op (plus constants, private inputs and lookup tables).

Data flow is one LogUp relation over (node, index, value): a producing row yields its element with
the element's fan-out (a preprocessed count fixed by the graph), every read consumes it once
(multiplicity -1 on real rows, fixed by a preprocessed 0/1 column), and public inputs and outputs
enter through terms the verifier computes itself (graph/statement.py). Nothing a row claims is free:
* every arithmetic output is tied to its inputs by a constraint that holds over the integers,
  because every operand is a 16-bit value and every remainder or difference is range-checked with
  8-bit limbs looked up in a pinned table (range8);
* reductions chain an accumulator across rows with a mask at offset -1 and a preprocessed
  group-start column; MaxReduce proves each step's comparison;
* exp2, log2 and sin are lookups into tables generated with integer arithmetic
  (verifier/numeric.py) whose roots the verifier knows itself.
Rows past the real ones (padding) hold valid dummy computations and take part in no data flow.
"""

from __future__ import annotations

from typing import Any

from ..air.framework import Component
from ..numeric import VALUE_BITS

DATA = "data"
RANGE = "range8"
HALF = 1 << (VALUE_BITS - 1)  # 2^15: shifts a 16-bit signed value to [0, 2^16)


def limb_names(prefix: str, bits: int) -> list[str]:
    return [f"{prefix}_l{i}" for i in range((bits + 7) // 8)]


def check_range(ev: Any, expr: Any, prefix: str, bits: int, mult: Any = 1, gate: Any = None) -> None:
    """expr is in [0, 2^bits): it equals its 8-bit limbs' sum, every limb is in range8, and a
    partial top limb l also has l + 256 - 2^top in range8 (so l < 2^top). `gate` (0/1) switches
    the check off on rows where it does not apply; `mult` must then be the same gate."""
    names = limb_names(prefix, bits)
    limbs = [ev.main(n) for n in names]
    total = limbs[0]
    for i in range(1, len(limbs)):
        total = total + limbs[i] * (1 << (8 * i))
    c = expr - total
    ev.add_constraint(c if gate is None else gate * c)
    for limb in limbs:
        ev.add_to_relation(RANGE, mult, [limb])
    top = bits - 8 * (len(limbs) - 1)
    if top < 8:
        ev.add_to_relation(RANGE, mult, [limbs[-1] + (256 - (1 << top))])


def range_limbs(specs: list[tuple[str, int]]) -> tuple[str, ...]:
    return tuple(n for prefix, bits in specs for n in limb_names(prefix, bits))


class GraphComponent(Component):
    """A component whose preprocessed columns live in the model tree under "<name>.<column>"."""

    pre_columns: tuple[str, ...] = ()
    uses_range = True
    tables: tuple[str, ...] = ()  # function tables it looks up (verifier/graph/tables.py)

    def __init__(self, log_size: int, scale_bits: int) -> None:
        self.log_size = log_size
        self.s = scale_bits

    def p(self, ev: Any, col: str, offset: int = 0) -> Any:
        return ev.pre(f"{self.name}.{col}", offset)

    def consume(self, ev: Any, k: int, value: Any) -> None:
        real = self.p(ev, f"in{k}_real")
        ev.add_to_relation(DATA, -real, [self.p(ev, f"in{k}_node"), self.p(ev, f"in{k}_idx"), value])
        # a real row that reads padding of a view reads the value 0
        ev.add_constraint((self.p(ev, "is_real") - real) * value)

    def produce(self, ev: Any, value: Any) -> None:
        ev.add_to_relation(DATA, self.p(ev, "mult"), [self.p(ev, "node"), self.p(ev, "idx"), value])


def _io_columns(n_inputs: int) -> tuple[str, ...]:
    cols = ["node", "idx", "mult", "is_real"]
    for k in range(n_inputs):
        cols += [f"in{k}_node", f"in{k}_idx", f"in{k}_real"]
    return tuple(cols)


class AddComponent(GraphComponent):
    name = "add"
    pre_columns = _io_columns(2)
    main_columns = ("a", "b", "out") + range_limbs([("out", 16)])

    def evaluate(self, ev: Any) -> None:
        a, b, out = ev.main("a"), ev.main("b"), ev.main("out")
        self.consume(ev, 0, a)
        self.consume(ev, 1, b)
        ev.add_constraint(out - a - b)
        check_range(ev, out + HALF, "out", 16)
        self.produce(ev, out)


class MulComponent(GraphComponent):
    """a*b + 2^(s-1) = out*2^s + rem, 0 <= rem < 2^s: out is a*b/2^s rounded half up."""

    name = "mul"
    pre_columns = _io_columns(2)

    def __init__(self, log_size: int, scale_bits: int) -> None:
        super().__init__(log_size, scale_bits)
        self.main_columns = ("a", "b", "out", "rem") + range_limbs([("out", 16), ("rem", scale_bits)])

    def evaluate(self, ev: Any) -> None:
        a, b, out, rem = ev.main("a"), ev.main("b"), ev.main("out"), ev.main("rem")
        self.consume(ev, 0, a)
        self.consume(ev, 1, b)
        ev.add_constraint(a * b + (1 << (self.s - 1)) - out * (1 << self.s) - rem)
        check_range(ev, out + HALF, "out", 16)
        check_range(ev, rem, "rem", self.s)
        self.produce(ev, out)


class LessThanComponent(GraphComponent):
    """lt in {0,1}; d = b - a - 1 + (1 - lt) * 2^16 in [0, 2^16); output lt * 2^s."""

    name = "less_than"
    pre_columns = _io_columns(2)
    main_columns = ("a", "b", "lt") + range_limbs([("d", 16)])

    def evaluate(self, ev: Any) -> None:
        a, b, lt = ev.main("a"), ev.main("b"), ev.main("lt")
        self.consume(ev, 0, a)
        self.consume(ev, 1, b)
        ev.add_constraint(lt * (lt - 1))
        check_range(ev, b - a - 1 + (1 - lt) * (1 << 16), "d", 16)
        self.produce(ev, lt * (1 << self.s))


class ModComponent(GraphComponent):
    """a = q*b + r with the sign of r that of b (floor modulo): with neg = [b < 0] and
    |b| = b(1 - 2neg): |b| - 1, r(1 - 2neg) and |b| - 1 - r(1 - 2neg) in [0, 2^15), q + 2^15 in
    [0, 2^16) (so |q*b| <= 2^30 and the relation holds over the integers; the one quotient this
    excludes, -2^15 mod -1, is refused by the prover)."""

    name = "mod"
    pre_columns = _io_columns(2)
    main_columns = ("a", "b", "q", "r", "neg") + range_limbs(
        [("babs", 15), ("rabs", 15), ("gap", 15), ("q", 16)]
    )

    def evaluate(self, ev: Any) -> None:
        a, b, q, r, neg = (ev.main(c) for c in ("a", "b", "q", "r", "neg"))
        self.consume(ev, 0, a)
        self.consume(ev, 1, b)
        ev.add_constraint(neg * (neg - 1))
        ev.add_constraint(a - q * b - r)
        sign = 1 - 2 * neg
        babs = b * sign
        rabs = r * sign
        check_range(ev, babs - 1, "babs", 15)
        check_range(ev, rabs, "rabs", 15)
        check_range(ev, babs - 1 - rabs, "gap", 15)
        check_range(ev, q + HALF, "q", 16)
        self.produce(ev, r)


class RecipComponent(GraphComponent):
    """out = sign(x) floor(2^(2s)/|x|): out*x + rem = 2^(2s) with 0 <= rem < |x|, x != 0."""

    name = "recip"
    pre_columns = _io_columns(1)
    main_columns = ("x", "out", "rem", "neg") + range_limbs([("xabs", 15), ("rem", 15), ("gap", 15), ("out", 16)])

    def evaluate(self, ev: Any) -> None:
        x, out, rem, neg = (ev.main(c) for c in ("x", "out", "rem", "neg"))
        self.consume(ev, 0, x)
        ev.add_constraint(neg * (neg - 1))
        ev.add_constraint(out * x + rem - (1 << (2 * self.s)))
        xabs = x * (1 - 2 * neg)
        check_range(ev, xabs - 1, "xabs", 15)
        check_range(ev, rem, "rem", 15)
        check_range(ev, xabs - 1 - rem, "gap", 15)
        check_range(ev, out + HALF, "out", 16)
        self.produce(ev, out)


class SqrtComponent(GraphComponent):
    """out = floor(sqrt(x*2^s)): x*2^s = out^2 + rem with 0 <= rem <= 2*out, x >= 0."""

    name = "sqrt"
    pre_columns = _io_columns(1)
    main_columns = ("x", "out", "rem") + range_limbs([("x", 15), ("out", 15), ("rem", 16), ("gap", 16)])

    def evaluate(self, ev: Any) -> None:
        x, out, rem = ev.main("x"), ev.main("out"), ev.main("rem")
        self.consume(ev, 0, x)
        ev.add_constraint(x * (1 << self.s) - out * out - rem)
        check_range(ev, x, "x", 15)
        check_range(ev, out, "out", 15)
        check_range(ev, rem, "rem", 16)
        check_range(ev, out * 2 - rem, "gap", 16)
        self.produce(ev, out)


class Exp2Component(GraphComponent):
    """y = exp2(x): clamped rows (c = 1) prove x < lo and give 0; the others look (x, y) up in the
    exp2 table, which holds every input >= lo (lo = the smallest input with a non-zero result)."""

    name = "exp2"
    tables = ("exp2",)
    pre_columns = _io_columns(1)
    main_columns = ("x", "y", "c") + range_limbs([("under", 16)])

    def evaluate(self, ev: Any) -> None:
        from ..numeric import exp2_nonzero_start

        x, y, c = ev.main("x"), ev.main("y"), ev.main("c")
        self.consume(ev, 0, x)
        ev.add_constraint(c * (c - 1))
        ev.add_constraint(c * y)
        check_range(ev, exp2_nonzero_start(self.s) - 1 - x, "under", 16, mult=c, gate=c)
        ev.add_to_relation("table.exp2", 1 - c, [x, y])
        self.produce(ev, y)


class Log2Component(GraphComponent):
    """y = log2(x): m = x * 2^(14-e) is the normalized mantissa in [2^14, 2^15) (looked up with its
    log), (e, 2^(14-e)) is a row of pow2, and y = (e - s) 2^s + log2(m / 2^14) 2^s, range-checked.
    A non-positive x has no normalized mantissa, so it cannot be proven."""

    name = "log2"
    tables = ("log2", "pow2")
    pre_columns = _io_columns(1)
    main_columns = ("x", "y", "e", "p", "m", "t") + range_limbs([("out", 16)])

    def evaluate(self, ev: Any) -> None:
        x, y, e, p, m, t = (ev.main(c) for c in ("x", "y", "e", "p", "m", "t"))
        self.consume(ev, 0, x)
        ev.add_constraint(m - x * p)
        ev.add_to_relation("table.pow2", 1, [e, p])
        ev.add_to_relation("table.log2", 1, [m, t])
        ev.add_constraint(y - (e - self.s) * (1 << self.s) - t)
        check_range(ev, y + HALF, "out", 16)
        self.produce(ev, y)


class SinComponent(GraphComponent):
    """y = sin(x) = sign(x) sin(|x|): a = x(1 - 2neg) is looked up in the table over [0, 2^15)
    (which also proves the sign), y = t(1 - 2neg)."""

    name = "sin"
    tables = ("sin",)
    uses_range = False
    pre_columns = _io_columns(1)
    main_columns = ("x", "y", "a", "neg", "t")

    def evaluate(self, ev: Any) -> None:
        x, y, a, neg, t = (ev.main(c) for c in ("x", "y", "a", "neg", "t"))
        self.consume(ev, 0, x)
        ev.add_constraint(neg * (neg - 1))
        sign = 1 - 2 * neg
        ev.add_constraint(a - x * sign)
        ev.add_constraint(y - t * sign)
        ev.add_to_relation("table.sin", 1, [a, t])
        self.produce(ev, y)


class ContiguousComponent(GraphComponent):
    """Materializes a view: reads (src, src_idx, v) and yields (node, idx, v)."""

    name = "contiguous"
    pre_columns = _io_columns(1)
    main_columns = ("v",)
    uses_range = False

    def evaluate(self, ev: Any) -> None:
        v = ev.main("v")
        self.consume(ev, 0, v)
        self.produce(ev, v)


_REDUCE_COLUMNS = ("node", "idx", "mult", "is_real", "in0_node", "in0_idx", "in0_real", "is_first", "is_last")


class SumReduceComponent(GraphComponent):
    """One row per input element, groups of consecutive rows per output element:
    acc = x + (1 - is_first) * acc[row - 1]; the group's last row yields acc (range-checked)."""

    name = "sum_reduce"
    pre_columns = _REDUCE_COLUMNS
    main_columns = ("x", "acc") + range_limbs([("out", 16)])

    def evaluate(self, ev: Any) -> None:
        x, acc = ev.main("x"), ev.main("acc")
        first, last = self.p(ev, "is_first"), self.p(ev, "is_last")
        self.consume(ev, 0, x)
        ev.add_constraint(acc - x - (1 - first) * ev.main("acc", -1))
        check_range(ev, acc + HALF, "out", 16, mult=last, gate=last)
        self.produce(ev, acc)


class MaxReduceComponent(GraphComponent):
    """m = x on a group's first row, else m = max(m[row - 1], x) with ge = [x >= m[row - 1]]
    proven by diff = (2ge - 1)(x - m[row - 1]) - (1 - ge) in [0, 2^16)."""

    name = "max_reduce"
    pre_columns = _REDUCE_COLUMNS
    main_columns = ("x", "m", "ge") + range_limbs([("diff", 16)])

    def evaluate(self, ev: Any) -> None:
        x, m, ge = ev.main("x"), ev.main("m"), ev.main("ge")
        prev = ev.main("m", -1)
        first = self.p(ev, "is_first")
        rest = 1 - first
        self.consume(ev, 0, x)
        ev.add_constraint(ge * (ge - 1))
        ev.add_constraint(m - x - rest * (1 - ge) * (prev - x))
        diff = (2 * ge - 1) * (x - prev) - (1 - ge)
        check_range(ev, diff, "diff", 16, mult=rest, gate=rest)
        self.produce(ev, m)


class ConstantComponent(GraphComponent):
    """The model's weights: preprocessed (node, idx, value) yielded with their fan-out."""

    name = "constant"
    pre_columns = ("node", "idx", "mult", "value")
    main_columns = ()
    uses_range = False

    def evaluate(self, ev: Any) -> None:
        self.produce(ev, self.p(ev, "value"))


class PrivateInputComponent(GraphComponent):
    """Private inputs: values only the prover knows, range-checked and yielded with their fan-out."""

    name = "private_input"
    pre_columns = ("node", "idx", "mult")
    main_columns = ("v",) + range_limbs([("v", 16)])

    def evaluate(self, ev: Any) -> None:
        v = ev.main("v")
        check_range(ev, v + HALF, "v", 16)
        self.produce(ev, v)


class RangeTableComponent(Component):
    """range8: the values 0..255 (preprocessed), each with the multiplicity it is looked up."""

    name = "table.range8"

    def __init__(self) -> None:
        self.log_size = 8
        self.main_columns = ("multiplicity",)

    def evaluate(self, ev: Any) -> None:
        ev.add_to_relation(RANGE, -ev.main("multiplicity"), [ev.pre("table.range8.value")])


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
    "Contiguous": ContiguousComponent,
    "SumReduce": SumReduceComponent,
    "MaxReduce": MaxReduceComponent,
}

# Component order in the AIR (and in the model tree): fixed, independent of the graph.
COMPONENT_ORDER = (
    "Constant", "PrivateInput", "Add", "Mul", "LessThan", "Mod", "Recip", "Sqrt",
    "Exp2", "Log2", "Sin", "Contiguous", "SumReduce", "MaxReduce",
)  # fmt: skip


def make_component(kind: str, log_size: int, scale_bits: int) -> GraphComponent:
    if kind == "Constant":
        return ConstantComponent(log_size, scale_bits)
    if kind == "PrivateInput":
        return PrivateInputComponent(log_size, scale_bits)
    return OP_COMPONENTS[kind](log_size, scale_bits)
