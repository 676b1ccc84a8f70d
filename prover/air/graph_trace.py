"""Trace generation for graph proofs: the statement (GraphSpec), the preprocessed model columns
(topology, fan-outs, weights) and the main trace of every component, from a compiled Graph and its
exact fixed-point values. The constraints these columns satisfy are in verifier/graph/components.py;
lookup multiplicities are counted by running those same components' LogUp entries over the trace,
so what is looked up is never written twice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...verifier.fields import P
from ...verifier.graph.components import HALF, limb_names
from ...verifier.graph.spec import GraphSpec, InputSpec, NodeSpec, OutputSpec
from ...verifier.graph.statement import ComponentPlan, build_graph_air
from ...verifier.graph.tables import table_columns as table_tree_columns
from ...verifier.graph.tables import table_rows, table_start
from ...verifier.numeric import VALUE_MIN, NumericError, exp2_nonzero_start, table_domain
from ..stark.circle_fft import row_to_storage
from ..stark.constraints import BV, DomainEvaluator

I64 = np.int64


class TraceError(NumericError):
    """A value the AIR cannot represent (names the node and element)."""


# --- the statement -------------------------------------------------------------------------------


def fanouts(graph: Any) -> dict[int, np.ndarray]:
    """node id -> how many times each of its elements is read (by ops and by outputs)."""
    counts = {n.id: np.zeros(n.numel, dtype=I64) for n in graph.nodes()}
    for node in graph.nodes():
        for src, view in node.srcs:
            idx = view.src_indices()
            counts[src.id] += np.bincount(idx[idx >= 0], minlength=src.numel)
    for _, (node, view) in graph.outputs().items():
        idx = view.src_indices()
        counts[node.id] += np.bincount(idx[idx >= 0], minlength=node.numel)
    return counts


def build_spec(graph: Any, title: str = "") -> GraphSpec:
    """The graph as the verifier sees it; `model_root` is filled in once the columns are committed."""
    from ..graph.execute import constant_raw

    fmt = graph.numeric_format
    fan = fanouts(graph)
    nodes = []
    for n in graph.nodes():
        srcs = [(s.id, tuple(s.shape), tuple(v.steps)) for s, v in n.srcs]
        values = None
        if n.op.value == "Constant":
            values = [int(x) for x in np.asarray(constant_raw(n, fmt)).reshape(-1)]
        nodes.append(
            NodeSpec(n.op.value, tuple(n.shape), srcs, n.axis, n.name or "", bool(n.private), values)
        )
    inputs = [
        InputSpec(name, node.id, [] if node.private else [int(c) for c in fan[node.id]])
        for name, node in graph.inputs().items()
    ]
    outputs = [
        OutputSpec(name, node.id, tuple(view.shape), [int(i) for i in view.src_indices()])
        for name, (node, view) in graph.outputs().items()
    ]
    return GraphSpec(fmt.scale_bits, nodes, inputs, outputs, b"\0" * 32, title)


# --- row layout ------------------------------------------------------------------------------------


def _padded(rows: int, log_size: int) -> int:
    return 1 << log_size


def _reduce_order(view: Any, axis: int) -> np.ndarray:
    """Flat view indices in row order: output elements row-major, reduced axis innermost."""
    shape = view.shape
    idx = np.arange(int(np.prod(shape)), dtype=I64).reshape(shape)
    return np.moveaxis(idx, axis, -1).reshape(-1)


@dataclass
class _Rows:
    """Per-row source information of one component (length = padded rows)."""

    node: np.ndarray
    idx: np.ndarray
    mult: np.ndarray
    is_real: np.ndarray
    inputs: list[tuple[np.ndarray, np.ndarray, np.ndarray]]  # (src node id, src idx, real)
    values_in: list[np.ndarray]  # the input values per row (0 on padding)
    node_rows: list[tuple[int, int, int]]  # (graph node id, first row, rows)
    is_first: np.ndarray | None = None
    is_last: np.ndarray | None = None


def _layout(graph: Any, plan: ComponentPlan, fan: dict[int, np.ndarray], values: dict[int, np.ndarray] | None) -> _Rows:
    n_rows = 1 << plan.component.log_size
    nodes = [graph.node(i) for i in plan.nodes]
    n_in = len(nodes[0].srcs) if nodes[0].srcs else 0
    z = lambda: np.zeros(n_rows, dtype=I64)  # noqa: E731
    rows = _Rows(z(), z(), z(), z(), [(z(), z(), z()) for _ in range(n_in)], [z() for _ in range(n_in)], [])
    reduce = plan.kind in ("SumReduce", "MaxReduce")
    if reduce:
        rows.is_first, rows.is_last = np.ones(n_rows, dtype=I64), z()
    r = 0
    for node in nodes:
        count = int(np.prod(node.srcs[0][1].shape)) if reduce else node.numel
        sl = slice(r, r + count)
        rows.node_rows.append((node.id, r, count))
        rows.is_real[sl] = 1
        if reduce:
            src, view = node.srcs[0]
            length = view.shape[node.axis]
            order = _reduce_order(view, node.axis)
            src_idx = view.src_indices()[order]
            j = np.arange(count) % length
            rows.is_first[sl] = (j == 0)
            last = j == length - 1
            rows.is_last[sl] = last
            groups = np.arange(count) // length
            rows.node[sl] = np.where(last, node.id + 1, 0)
            rows.idx[sl] = np.where(last, groups, 0)
            rows.mult[sl] = np.where(last, fan[node.id][groups], 0)
            per_input = [(src, src_idx)]
        else:
            rows.node[sl] = node.id + 1
            rows.idx[sl] = np.arange(count)
            rows.mult[sl] = fan[node.id]
            per_input = [(src, view.src_indices()) for src, view in node.srcs]
        for k, (src, src_idx) in enumerate(per_input):
            real = src_idx >= 0
            rows.inputs[k][0][sl] = np.where(real, src.id + 1, 0)
            rows.inputs[k][1][sl] = np.where(real, src_idx, 0)
            rows.inputs[k][2][sl] = real
            if values is not None:
                rows.values_in[k][sl] = np.where(real, values[src.id][np.maximum(src_idx, 0)], 0)
        r += count
    return rows


def preprocessed_columns(graph: Any, plans: list[ComponentPlan]) -> dict[str, np.ndarray]:
    """Every model-tree column (row order) of every component."""
    from ..graph.execute import constant_raw

    fan = fanouts(graph)
    out: dict[str, np.ndarray] = {}
    for plan in plans:
        comp = plan.component
        rows = _layout(graph, plan, fan, None)
        cols: dict[str, np.ndarray] = {"node": rows.node, "idx": rows.idx, "mult": rows.mult, "is_real": rows.is_real}
        for k, (node, idx, real) in enumerate(rows.inputs):
            cols.update({f"in{k}_node": node, f"in{k}_idx": idx, f"in{k}_real": real})
        if rows.is_first is not None:
            cols["is_first"], cols["is_last"] = rows.is_first, rows.is_last
        if plan.kind == "Constant":
            value = np.zeros(1 << comp.log_size, dtype=I64)
            for nid, r0, count in rows.node_rows:
                value[r0 : r0 + count] = np.asarray(constant_raw(graph.node(nid), graph.numeric_format)).reshape(-1)
            cols["value"] = value
        for c in comp.pre_columns:
            out[f"{comp.name}.{c}"] = cols[c]
    return out


# --- main trace ------------------------------------------------------------------------------------


def _limbs(cols: dict[str, np.ndarray], prefix: str, bits: int, v: np.ndarray, gate: np.ndarray | None = None) -> None:
    if gate is not None:
        v = np.where(gate.astype(bool), v, 0)
    for i, name in enumerate(limb_names(prefix, bits)):
        cols[name] = (v >> (8 * i)) & 255


def _fail(plan: ComponentPlan, rows: _Rows, bad: np.ndarray, what: str) -> None:
    r = int(np.flatnonzero(bad)[0])
    for nid, r0, count in rows.node_rows:
        if r0 <= r < r0 + count:
            raise TraceError(f"{plan.kind} node {nid}, element {r - r0}: {what}")
    raise TraceError(f"{plan.kind}: padding row {r}: {what}")


def _op_columns(plan: ComponentPlan, rows: _Rows, s: int) -> dict[str, np.ndarray]:
    """Main columns of one op component from its input values and (real rows') outputs."""
    kind = plan.kind
    real = rows.is_real.astype(bool)
    ins = rows.values_in
    cols: dict[str, np.ndarray] = {}
    if kind == "Add":
        a, b = ins
        out = a + b
        cols.update(a=a, b=b, out=out)
        _limbs(cols, "out", 16, out + HALF)
    elif kind == "Mul":
        a, b = ins
        prod = a * b + (1 << (s - 1))
        out = prod >> s
        cols.update(a=a, b=b, out=out, rem=prod - (out << s))
        _limbs(cols, "out", 16, out + HALF)
        _limbs(cols, "rem", s, cols["rem"])
    elif kind == "LessThan":
        a, b = ins
        lt = (a < b).astype(I64)
        cols.update(a=a, b=b, lt=lt)
        _limbs(cols, "d", 16, b - a - 1 + (1 - lt) * (1 << 16))
    elif kind == "Mod":
        a, b = ins
        b = np.where(real, b, 1)  # padding rows compute 0 mod 1
        if np.any(b == 0):
            _fail(plan, rows, b == 0, "mod by zero")
        q = np.floor_divide(a, b)
        r = a - q * b
        if np.any(q >= HALF):
            _fail(plan, rows, q >= HALF, "quotient 2^15 (-32768 mod -1) cannot be proven")
        neg = (b < 0).astype(I64)
        sign = 1 - 2 * neg
        cols.update(a=a, b=b, q=q, r=r, neg=neg)
        _limbs(cols, "babs", 15, b * sign - 1)
        _limbs(cols, "rabs", 15, r * sign)
        _limbs(cols, "gap", 15, b * sign - 1 - r * sign)
        _limbs(cols, "q", 16, q + HALF)
    elif kind == "Recip":
        (x,) = ins
        x = np.where(real, x, 1 << s)  # padding rows compute 1/1
        if np.any(x == 0):
            _fail(plan, rows, x == 0, "recip of zero")
        neg = (x < 0).astype(I64)
        xabs = np.abs(x)
        q = (1 << (2 * s)) // xabs
        out = np.where(neg.astype(bool), -q, q)
        rem = (1 << (2 * s)) - q * xabs
        cols.update(x=x, out=out, rem=rem, neg=neg)
        _limbs(cols, "xabs", 15, xabs - 1)
        _limbs(cols, "rem", 15, rem)
        _limbs(cols, "gap", 15, xabs - 1 - rem)
        _limbs(cols, "out", 16, out + HALF)
    elif kind == "Sqrt":
        (x,) = ins
        if np.any(x < 0):
            _fail(plan, rows, x < 0, "sqrt of a negative value")
        # x * 2^s < 2^29 is exact in float64; correct the estimate to the exact integer root
        out = np.floor(np.sqrt((x << s).astype(np.float64))).astype(I64)
        out = np.where(out * out > (x << s), out - 1, out)
        out = np.where((out + 1) * (out + 1) <= (x << s), out + 1, out)
        rem = (x << s) - out * out
        cols.update(x=x, out=out, rem=rem)
        _limbs(cols, "x", 15, x)
        _limbs(cols, "out", 15, out)
        _limbs(cols, "rem", 16, rem)
        _limbs(cols, "gap", 16, 2 * out - rem)
    elif kind == "Exp2":
        (x,) = ins
        lo = exp2_nonzero_start(s)
        x = np.where(real, x, lo)  # padding rows compute exp2(lo)
        top = table_domain("exp2", s).stop
        if np.any(x >= top):
            _fail(plan, rows, x >= top, "exp2 result leaves the value range")
        c = (x < lo).astype(I64)
        xs, ys = table_rows("exp2", s)
        y = np.where(c == 1, 0, np.array(ys, dtype=I64)[np.clip(x - lo, 0, len(ys) - 1)])
        cols.update(x=x, y=y, c=c)
        _limbs(cols, "under", 16, lo - 1 - x, gate=c)
    elif kind == "Log2":
        (x,) = ins
        x = np.where(real, x, 1 << s)  # padding rows compute log2(1) = 0
        if np.any(x <= 0):
            _fail(plan, rows, x <= 0, "log2 of a non-positive value")
        e = np.floor(np.log2(x.astype(np.float64))).astype(I64)
        e = np.where((1 << e) > x, e - 1, e)
        e = np.where((1 << (e + 1)) <= x, e + 1, e)  # exact bit length - 1
        p = np.left_shift(1, 14 - e)
        m = x * p
        _, ts = table_rows("log2", s)
        t = np.array(ts, dtype=I64)[m - (1 << 14)]
        y = (e - s) * (1 << s) + t
        cols.update(x=x, y=y, e=e, p=p, m=m, t=t)
        _limbs(cols, "out", 16, y + HALF)
    elif kind == "Sin":
        (x,) = ins
        if np.any(x == VALUE_MIN):
            _fail(plan, rows, x == VALUE_MIN, "sin of -2^15 raw (outside the odd table)")
        neg = (x < 0).astype(I64)
        a = np.abs(x)
        _, ts = table_rows("sin", s)
        t = np.array(ts, dtype=I64)[a]
        cols.update(x=x, y=np.where(neg == 1, -t, t), a=a, neg=neg, t=t)
    elif kind == "Contiguous":
        cols.update(v=ins[0])
    elif kind == "SumReduce":
        (x,) = ins
        starts = np.flatnonzero(rows.is_first)
        csum = np.cumsum(x)
        base = np.repeat(csum[starts] - x[starts], np.diff(np.append(starts, len(x))))
        acc = csum - base
        cols.update(x=x, acc=acc)
        _limbs(cols, "out", 16, acc + HALF, gate=rows.is_last)
    elif kind == "MaxReduce":
        (x,) = ins
        first = rows.is_first.astype(bool)
        # running max within each group: offset groups so the scan never crosses a group start
        group = np.cumsum(first) << 20
        m = np.maximum.accumulate(x + group) - group
        prev = np.where(first, 0, np.roll(m, 1))
        ge = np.where(first, 1, x >= prev).astype(I64)
        diff = (2 * ge - 1) * (x - prev) - (1 - ge)
        cols.update(x=x, m=m, ge=ge)
        _limbs(cols, "diff", 16, diff, gate=1 - rows.is_first)
    else:
        raise AssertionError(kind)
    return cols


def main_columns(
    graph: Any,
    plans: list[ComponentPlan],
    values: dict[int, np.ndarray],
    air: Any,
    pre: dict[str, np.ndarray],
) -> list[dict[str, np.ndarray]]:
    """Main trace of every AIR component (op components, then the lookup tables)."""
    fan = fanouts(graph)
    s = graph.numeric_format.scale_bits
    out: list[dict[str, np.ndarray]] = []
    for plan in plans:
        rows = _layout(graph, plan, fan, values)
        if plan.kind == "Constant":
            cols: dict[str, np.ndarray] = {}
        elif plan.kind == "PrivateInput":
            v = np.zeros(1 << plan.component.log_size, dtype=I64)
            for nid, r0, count in rows.node_rows:
                v[r0 : r0 + count] = values[nid]
            cols = {"v": v}
            _limbs(cols, "v", 16, v + HALF)
        else:
            cols = _op_columns(plan, rows, s)
            _check_outputs(plan, rows, cols, values)
        out.append(cols)
    out += table_multiplicities(air, plans, out, pre, s)
    return out


def _check_outputs(plan: ComponentPlan, rows: _Rows, cols: dict[str, np.ndarray], values: dict[int, np.ndarray]) -> None:
    """The AIR's computation must reproduce the executor's exact values (a twin check)."""
    key = {"Add": "out", "Mul": "out", "Mod": "r", "Recip": "out", "Sqrt": "out", "Exp2": "y", "Log2": "y",
           "Sin": "y", "Contiguous": "v", "SumReduce": "acc", "MaxReduce": "m", "LessThan": "lt"}[plan.kind]
    for nid, r0, count in rows.node_rows:
        got = cols[key][r0 : r0 + count]
        if plan.kind == "LessThan":
            got = got << plan.component.s
        if plan.kind in ("SumReduce", "MaxReduce"):
            got = got[rows.is_last[r0 : r0 + count].astype(bool)]
        if not np.array_equal(got, values[nid]):
            raise TraceError(f"{plan.kind} node {nid}: trace disagrees with the fixed-point executor")


def table_multiplicities(
    air: Any,
    plans: list[ComponentPlan],
    mains: list[dict[str, np.ndarray]],
    pre: dict[str, np.ndarray],
    s: int,
    strict: bool = True,
) -> list[dict[str, np.ndarray]]:
    """Count every range8 / function-table lookup made by the op components' LogUp entries.
    strict=False drops lookups of values that are not in a table instead of failing (what a
    dishonest prover would do; used to build forgery tests)."""
    counts: dict[str, np.ndarray] = {}
    for table_comp in air.components[len(plans):]:
        counts[table_comp.name] = np.zeros(1 << table_comp.log_size, dtype=I64)
    starts = {name: table_start(name[len("table."):], s) for name in counts if name != "table.range8"}
    for plan, cols in zip(plans, mains):
        comp = plan.component
        n = comp.log_size
        perm = row_to_storage(n)

        def source(kind: str, key: str, offset: int, cols=cols, n=n, perm=perm) -> np.ndarray:
            if kind == "main":
                col = cols[key]
            elif kind == "pre":
                col = pre[key]
            else:
                raise AssertionError(kind)
            storage = np.empty(1 << n, dtype=np.uint64)
            storage[perm] = np.asarray(col, dtype=I64) % P
            if offset:
                from ..stark.circle_fft import mask_permutation

                storage = storage[mask_permutation(n, n, offset)]
            return storage

        ev = DomainEvaluator(comp, 1 << n, source)
        comp.evaluate(ev)
        for rel, mult, vals in ev.entries:
            if rel == "data":
                continue
            m = mult.a.astype(I64) if isinstance(mult, BV) else np.full(1 << n, int(mult), dtype=I64)
            if rel == "range8":
                v = vals[0].a.astype(I64)
                bad = (v >= 256) & (m != 0)
                if strict and np.any(bad):
                    raise TraceError(f"{comp.name}: a range-checked value is out of range")
                keep = (m != 0) & ~bad
                counts["table.range8"] += np.bincount(v[keep], weights=m[keep], minlength=256).astype(I64)
            else:
                x = vals[0].a.astype(I64)
                x = np.where(x > P // 2, x - P, x) - starts[rel]
                inside = (x >= 0) & (x < len(counts[rel]))
                if strict and np.any(~inside & (m != 0)):
                    raise TraceError(f"{comp.name}: a looked-up input is outside the table")
                keep = inside & (m != 0)
                counts[rel] += np.bincount(x[keep], weights=m[keep], minlength=len(counts[rel])).astype(I64)
    return [{"multiplicity": counts[c.name]} for c in air.components[len(plans):]]


def table_columns(air: Any, s: int) -> list[dict[str, np.ndarray]]:
    """Row-order preprocessed columns of each table tree (in the AIR's tree order after the model)."""
    return [
        {k: np.array(v, dtype=I64) for k, v in table_tree_columns(tree.name[len("table."):], s).items()}
        for tree in air.preprocessed[1:]
    ]


__all__ = ["build_spec", "preprocessed_columns", "main_columns", "table_columns", "fanouts", "build_graph_air", "TraceError"]
