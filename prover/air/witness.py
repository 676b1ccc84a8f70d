"""Witness generation, one function per component kind, in verifier/graph/components.py's order:
each fills the main columns its component's constraints read, from the rows' input values (Rows,
laid out by graph_trace._layout). The fixed-point results are the twins' (prover/graph/fixed.py),
which are cross-tested against verifier/numeric.py; the range-checked values are split into the
component's limbs by split_limbs once a component's columns are complete."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ...verifier.graph.components import HALF, limb_names
from ...verifier.graph.plan import ComponentPlan
from ...verifier.graph.tables import table_rows
from ...verifier.numeric import (
    DOT_ACC_BITS, DOT_ACC_BOUND, VALUE_MIN, NumericError, erf_saturation, nonzero_start, table_domain,
)
from ..graph.fixed import fx_recip, fx_sqrt

I64 = np.int64


class TraceError(NumericError):
    """A value the AIR cannot represent (names the node and element)."""


@dataclass
class Rows:
    """Per-row topology and input values of one component (length = padded rows)."""

    topology: dict[str, np.ndarray]  # addr, mult, is_real, in{k}_addr, in{k}_real (Dot: in{k}_step)
    values_in: list[np.ndarray]  # the input values per row (0 on padding and on padding reads);
    # Dot: (lanes, rows) per input
    node_rows: list[tuple[int, int, int]]  # (graph node id, first row, rows)
    is_first: np.ndarray | None = None
    is_last: np.ndarray | None = None
    bias: np.ndarray | None = None  # a Dot's bias, on every row of its output element's group
    constant: np.ndarray | None = None  # each row's constant where they differ (GraphComponent.vary);
    # the witness functions take it as their `s` (numpy shifts broadcast)

    @property
    def is_real(self) -> np.ndarray:
        return self.topology["is_real"]


def range_value(cols: dict[str, np.ndarray], prefix: str, bits: int, v: np.ndarray, gate: np.ndarray | None = None) -> None:
    """The value a range check takes (zero where `gate` is off): split into the component's limbs
    by split_limbs once its columns are complete."""
    cols[RANGED + prefix] = v if gate is None else np.where(gate.astype(bool), v, 0)


RANGED = "~"  # a range-checked value, before its split into limbs


def split_limbs(cols: dict[str, np.ndarray], comp: Any) -> dict[str, np.ndarray]:
    """Every range-checked value as the component's limbs (limb_bits each, verifier check_range)."""
    w = comp.limb_bits
    for prefix, bits in comp.ranges:
        v = cols.pop(RANGED + prefix)
        for i, name in enumerate(limb_names(prefix, bits, w)):
            cols[name] = (v >> (w * i)) & ((1 << w) - 1)
    return cols


def range_remainder(cols: dict[str, np.ndarray], plan: ComponentPlan, s: Any, gate: np.ndarray | None = None) -> None:
    """A rounding remainder's range values: rem, and 2^k - 1 - rem where the rows' shifts k differ
    (verifier GraphComponent.check_remainder)."""
    rem = cols["rem"]
    range_value(cols, "rem", 0, rem, gate)
    if plan.instance is not None and plan.instance.variable:
        range_value(cols, "gap", 0, (1 << s) - 1 - rem, gate)


def fail_at(plan: ComponentPlan, rows: Rows, bad: np.ndarray, what: str) -> None:
    r = int(np.flatnonzero(bad)[0])
    for nid, r0, count in rows.node_rows:
        if r0 <= r < r0 + count:
            raise TraceError(f"{plan.kind} node {nid}, element {r - r0}: {what}")
    raise TraceError(f"{plan.kind}: padding row {r}: {what}")


def add_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Add: verifier/graph/components.py AddComponent."""
    cols: dict[str, np.ndarray] = {}
    a, b = rows.values_in
    out = a + b
    cols.update(a=a, b=b, out=out)
    range_value(cols, "out", 16, out + HALF)
    return cols


def mul_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Mul: verifier/graph/components.py MulComponent."""
    cols: dict[str, np.ndarray] = {}
    a, b = rows.values_in
    prod = a * b + (1 << (s - 1))
    out = prod >> s
    cols.update(a=a, b=b, out=out, rem=prod - (out << s))
    range_value(cols, "out", 16, out + HALF)
    range_remainder(cols, plan, s)
    return cols


def less_than_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """LessThan: verifier/graph/components.py LessThanComponent."""
    cols: dict[str, np.ndarray] = {}
    a, b = rows.values_in
    lt = (a < b).astype(I64)
    cols.update(a=a, b=b, lt=lt)
    range_value(cols, "d", 16, b - a - 1 + (1 - lt) * (1 << 16))
    return cols


def mod_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Mod: verifier/graph/components.py ModComponent."""
    cols: dict[str, np.ndarray] = {}
    real = rows.is_real.astype(bool)
    a, b = rows.values_in
    b = np.where(real, b, 1)  # padding rows compute 0 mod 1
    if np.any(b == 0):
        fail_at(plan, rows, b == 0, "mod by zero")
    q = np.floor_divide(a, b)
    r = a - q * b
    if np.any(q >= HALF):
        fail_at(plan, rows, q >= HALF, "quotient 2^15 (-32768 mod -1) cannot be proven")
    neg = (b < 0).astype(I64)
    sign = 1 - 2 * neg
    cols.update(a=a, b=b, q=q, r=r, neg=neg)
    range_value(cols, "babs", 15, b * sign - 1)
    range_value(cols, "rabs", 15, r * sign)
    range_value(cols, "gap", 15, b * sign - 1 - r * sign)
    range_value(cols, "q", 16, q + HALF)
    return cols


def recip_columns(plan: ComponentPlan, rows: Rows, c: int) -> dict[str, np.ndarray]:
    """Recip: verifier/graph/components.py RecipComponent (c: 2^c / x)."""
    cols: dict[str, np.ndarray] = {}
    real = rows.is_real.astype(bool)
    (x,) = rows.values_in
    x = np.where(real, x, 1 << ((c + 1) // 2))  # padding rows: 2^c / 2^ceil(c/2), in range
    if np.any(x == 0):
        fail_at(plan, rows, x == 0, "recip of zero")
    neg = (x < 0).astype(I64)
    xabs = np.abs(x)
    out = fx_recip(x, c)
    rem = (1 << c) - np.abs(out) * xabs
    cols.update(x=x, out=out, rem=rem, neg=neg)
    range_value(cols, "xabs", 15, xabs - 1)
    range_value(cols, "rem", 15, rem)
    range_value(cols, "gap", 15, xabs - 1 - rem)
    range_value(cols, "out", 16, out + HALF)
    return cols


def sqrt_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Sqrt: verifier/graph/components.py SqrtComponent."""
    cols: dict[str, np.ndarray] = {}
    (x,) = rows.values_in
    if np.any(x < 0):
        fail_at(plan, rows, x < 0, "sqrt of a negative value")
    out = fx_sqrt(x, s)
    rem = (x << s) - out * out
    cols.update(x=x, out=out, rem=rem)
    range_value(cols, "x", 15, x)
    range_value(cols, "out", 15, out)
    range_value(cols, "rem", 16, rem)
    range_value(cols, "gap", 16, 2 * out - rem)
    return cols


def recip_sqrt_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """RecipSqrt: verifier/graph/components.py RecipSqrtComponent."""
    cols: dict[str, np.ndarray] = {}
    real = rows.is_real.astype(bool)
    (x,) = rows.values_in
    q = rows.topology["q"].astype(bool)
    recip = real & ~q
    # Recip rows' 2^c and Sqrt rows' 2^e: 2s and s, or each row's own (where the component varies)
    kc, ke = (s, s) if isinstance(s, np.ndarray) else (2 * s, s)
    x = np.where(real, x, 1 << ((kc + 1) // 2))  # padding rows (Recip): 2^c / 2^ceil(c/2), in range
    if np.any(recip & (x == 0)):
        fail_at(plan, rows, recip & (x == 0), "recip of zero")
    if np.any(q & (x < 0)):
        fail_at(plan, rows, q & (x < 0), "sqrt of a negative value")
    neg = ((x < 0) & ~q).astype(I64)
    xabs = np.abs(x)
    r_out = fx_recip(np.where(q, 1, x), kc)  # (each row's other kind masked out below)
    r_rem = (1 << kc) - np.abs(r_out) * xabs
    root = fx_sqrt(np.where(q, x, 0), ke)
    xs = np.where(q, x, 0) << ke
    out, rem = np.where(q, root, r_out), np.where(q, xs - root * root, r_rem)
    cols.update(x=x, out=out, rem=rem, neg=neg)
    range_value(cols, "a", 15, np.where(q, x, xabs - 1))
    range_value(cols, "b", 15, np.where(q, out, rem))
    range_value(cols, "c", 16, np.where(q, rem, xabs - 1 - rem))
    range_value(cols, "d", 16, np.where(q, 2 * out - rem, out + HALF))
    return cols


def exp2_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Exp2, Exp: verifier/graph/components.py Exp2Component."""
    cols: dict[str, np.ndarray] = {}
    real = rows.is_real.astype(bool)
    (x,) = rows.values_in
    table = plan.component.tables[0]
    lo = nonzero_start(table, s)
    x = np.where(real, x, lo)  # padding rows compute the table's first entry
    top = table_domain(table, s).stop
    if np.any(x >= top):
        fail_at(plan, rows, x >= top, f"{table} result leaves the value range")
    c = (x < lo).astype(I64)
    xs, ys = table_rows(table, s)
    y = np.where(c == 1, 0, np.array(ys, dtype=I64)[np.clip(x - lo, 0, len(ys) - 1)])
    cols.update(x=x, y=y, c=c)
    range_value(cols, "under", 16, lo - 1 - x, gate=c)
    return cols


def log2_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Log2: verifier/graph/components.py Log2Component."""
    cols: dict[str, np.ndarray] = {}
    real = rows.is_real.astype(bool)
    (x,) = rows.values_in
    x = np.where(real, x, 1 << s)  # padding rows compute log2(1) = 0
    if np.any(x <= 0):
        fail_at(plan, rows, x <= 0, "log2 of a non-positive value")
    e = np.floor(np.log2(x.astype(np.float64))).astype(I64)
    e = np.where((1 << e) > x, e - 1, e)
    e = np.where((1 << (e + 1)) <= x, e + 1, e)  # exact bit length - 1
    p = np.left_shift(1, 14 - e)
    m = x * p
    _, ts = table_rows("log2", s)
    t = np.array(ts, dtype=I64)[m - (1 << 14)]
    y = (e - s) * (1 << s) + t
    cols.update(x=x, y=y, e=e, p=p, m=m, t=t)
    range_value(cols, "out", 16, y + HALF)
    return cols


def sin_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Sin: verifier/graph/components.py SinComponent."""
    cols: dict[str, np.ndarray] = {}
    (x,) = rows.values_in
    if np.any(x == VALUE_MIN):
        fail_at(plan, rows, x == VALUE_MIN, "sin of -2^15 raw (outside the odd table)")
    neg = (x < 0).astype(I64)
    a = np.abs(x)
    _, ts = table_rows("sin", s)
    t = np.array(ts, dtype=I64)[a]
    cols.update(x=x, y=np.where(neg == 1, -t, t), a=a, neg=neg, t=t)
    return cols


def contiguous_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Contiguous: verifier/graph/components.py ContiguousComponent."""
    cols: dict[str, np.ndarray] = {}
    cols.update(v=rows.values_in[0])
    return cols


def sum_reduce_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """SumReduce: verifier/graph/components.py SumReduceComponent."""
    cols: dict[str, np.ndarray] = {}
    (x,) = rows.values_in
    starts = np.flatnonzero(rows.is_first)
    csum = np.cumsum(x)
    base = np.repeat(csum[starts] - x[starts], np.diff(np.append(starts, len(x))))
    acc = csum - base
    cols.update(x=x, acc=acc)
    range_value(cols, "out", 16, acc + HALF, gate=rows.is_last)
    return cols


def max_reduce_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """MaxReduce: verifier/graph/components.py MaxReduceComponent."""
    cols: dict[str, np.ndarray] = {}
    (x,) = rows.values_in
    first = rows.is_first.astype(bool)
    # running max within each group: offset groups so the scan never crosses a group start
    group = np.cumsum(first) << 20
    m = np.maximum.accumulate(x + group) - group
    prev = np.where(first, 0, np.roll(m, 1))
    ge = np.where(first, 1, x >= prev).astype(I64)
    diff = (2 * ge - 1) * (x - prev) - (1 - ge)
    cols.update(x=x, m=m, ge=ge)
    range_value(cols, "diff", 16, diff, gate=1 - rows.is_first)
    return cols


def sum_max_reduce_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """SumMaxReduce: verifier/graph/components.py SumMaxReduceComponent."""
    cols: dict[str, np.ndarray] = {}
    (x,) = rows.values_in
    q = rows.topology["q"].astype(bool)
    first = rows.is_first.astype(bool)
    starts = np.flatnonzero(first)
    csum = np.cumsum(x)
    acc = csum - np.repeat(csum[starts] - x[starts], np.diff(np.append(starts, len(x))))
    group = np.cumsum(first) << 20
    run_max = np.maximum.accumulate(x + group) - group
    m = np.where(q, run_max, acc)
    prev = np.roll(m, 1)  # the row before (the constraints read m[-1] on every row)
    ge = (q & (first | (x >= prev))).astype(I64)
    g = np.where(q, 1 - rows.is_first, rows.is_last)
    w = np.where(q, (2 * ge - 1) * (x - prev) - (1 - ge), m + HALF)
    cols.update(x=x, m=m, ge=ge, t=(1 - ge) * (prev - x), g=g, w=w)
    range_value(cols, "w", 16, w, gate=g)
    return cols


def relu_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Relu: verifier/graph/components.py ReluComponent."""
    cols: dict[str, np.ndarray] = {}
    (x,) = rows.values_in
    g = (x > 0).astype(I64)
    cols.update(x=x, out=g * x, g=g)
    range_value(cols, "d", 16, g * (x - 1) - (1 - g) * x)
    return cols


def erf_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Erf: verifier/graph/components.py ErfComponent."""
    cols: dict[str, np.ndarray] = {}
    real = rows.is_real.astype(bool)
    (x,) = rows.values_in
    x = np.where(real, x, 0)  # padding rows look up erf(0) = 0
    h, one = erf_saturation(s), 1 << s
    lo, hi = (x <= -h).astype(I64), (x >= h).astype(I64)
    dom = table_domain("erf", s)
    ys = np.array(table_rows("erf", s)[1], dtype=I64)
    y = np.where(lo == 1, -one, np.where(hi == 1, one, ys[np.clip(x - dom.start, 0, len(ys) - 1)]))
    cols.update(x=x, y=y, lo=lo, hi=hi)
    range_value(cols, "under", 16, -h - x, gate=lo)
    range_value(cols, "over", 16, x - h, gate=hi)
    return cols


def exp_erf_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """ExpErf: verifier/graph/components.py ExpErfComponent."""
    cols: dict[str, np.ndarray] = {}
    real = rows.is_real.astype(bool)
    (x,) = rows.values_in
    q = rows.topology["q"].astype(bool)
    start, top = nonzero_start("exp", s), table_domain("exp", s).stop
    h, one = erf_saturation(s), 1 << s
    x = np.where(real, x, start)  # padding rows (Exp rows) compute the exp table's first entry
    if np.any(~q & (x >= top)):
        fail_at(plan, rows, ~q & (x >= top), "exp result leaves the value range")
    c = ~q & (x < start)
    exp_ys = np.array(table_rows("exp", s)[1], dtype=I64)
    exp_y = np.where(c, 0, exp_ys[np.clip(x - start, 0, len(exp_ys) - 1)])
    elo, ehi = q & (x <= -h), q & (x >= h)
    dom = table_domain("erf", s)
    erf_ys = np.array(table_rows("erf", s)[1], dtype=I64)
    erf_y = np.where(elo, -one, np.where(ehi, one, erf_ys[np.clip(x - dom.start, 0, len(erf_ys) - 1)]))
    lo, hi = (c | elo).astype(I64), ehi.astype(I64)
    cols.update(x=x, y=np.where(q, erf_y, exp_y), lo=lo, hi=hi, te=(~q).astype(I64) * (1 - lo),
                tf=q.astype(I64) * (1 - lo - hi))
    range_value(cols, "under", 16, np.where(q, -h - x, start - 1 - x), gate=lo)
    range_value(cols, "over", 16, x - h, gate=hi)
    return cols


def dot_columns_of(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Dot (every variant): verifier/graph/components.py DotComponent."""
    a, b = rows.values_in  # (lanes, rows)
    cols = dot_columns(a, b, rows.is_first, rows.is_last, s, rows.bias)
    range_remainder(cols, plan, s, gate=rows.is_last)
    acc = cols["acc"]
    bad = (acc < -DOT_ACC_BOUND) | (acc >= DOT_ACC_BOUND)
    if np.any(bad):
        fail_at(plan, rows, bad, "a partial sum leaves the dot accumulator range")
    return cols


def dot_columns(
    a: np.ndarray, b: np.ndarray, is_first: np.ndarray, is_last: np.ndarray, s: int, bias: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Main columns of a Dot component from its operand lanes ((lanes, rows) each), its sparse
    group starts and ends and its bias (if any): the running integer sum, and on each group's last
    row the output rounded half up (plus the bias) with its remainder."""
    x = (a * b).sum(axis=0)
    return accumulate_dot({f"a{j}": a[j] for j in range(a.shape[0])} | {f"b{j}": b[j] for j in range(b.shape[0])},
                          x, is_first, is_last, s, bias)


def accumulate_dot(
    cols: dict[str, np.ndarray], x: np.ndarray, is_first: np.ndarray, is_last: np.ndarray, s: int,
    bias: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """acc, out, rem (and bias) and their range limbs from each row's sum of products x."""
    starts = np.flatnonzero(is_first)
    csum = np.cumsum(x)
    acc = csum - np.repeat(csum[starts] - x[starts], np.diff(np.append(starts, len(x))))
    last = is_last.astype(bool)
    half = 1 << (s - 1)
    rounded = (acc + half) >> s
    out = np.where(last, rounded + (bias if bias is not None else 0), 0)
    rem = np.where(last, acc + half - (rounded << s), 0)
    cols.update(acc=acc, out=out, rem=rem)
    if bias is not None:
        cols["bias"] = bias
    range_value(cols, "acc", DOT_ACC_BITS, acc + DOT_ACC_BOUND)
    range_value(cols, "out", 16, out + HALF, gate=is_last)
    range_value(cols, "rem", s, rem, gate=is_last)
    return cols


def gather_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Gather at private ids: verifier/graph/components.py GatherComponent."""
    out, idv = rows.values_in
    topo = rows.topology
    cols = {"id": idv, "src": topo["in0_addr"] + topo["width"] * idv, "out": out}
    range_value(cols, "id", 24, idv)
    range_value(cols, "rest", 24, topo["top"] - idv)
    return cols


WITNESS: dict[str, Callable[[ComponentPlan, Rows, int], dict[str, np.ndarray]]] = {
    "Add": add_columns, "Mul": mul_columns, "LessThan": less_than_columns, "Mod": mod_columns,
    "Recip": recip_columns, "Sqrt": sqrt_columns, "RecipSqrt": recip_sqrt_columns, "Exp2": exp2_columns,
    "Exp": exp2_columns, "Log2": log2_columns, "Sin": sin_columns, "Contiguous": contiguous_columns,
    "SumReduce": sum_reduce_columns, "MaxReduce": max_reduce_columns, "SumMaxReduce": sum_max_reduce_columns,
    "Relu": relu_columns, "Erf": erf_columns, "ExpErf": exp_erf_columns, "Gather": gather_columns,
}  # fmt: skip


def op_columns(plan: ComponentPlan, rows: Rows, s: int) -> dict[str, np.ndarray]:
    """Main columns of one op component (a Dot by its variant, every other kind by its name)."""
    if plan.instance is not None and plan.instance.variant is not None:
        return dot_columns_of(plan, rows, s)
    return WITNESS[plan.kind](plan, rows, s)
