"""Helpers shared by the graph, compile and onnx tests (import as `graph_helpers`)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from luminair.prover import Graph, Op
from luminair.prover.graph.error_bound import error_bound
from luminair.prover.graph.first_order import first_order_bound
from luminair.verifier import numeric as num

_SCALAR_OPS = {
    Op.ADD: lambda a, b, s: num.op_add(a, b),
    Op.MUL: num.op_mul,
    Op.MOD: lambda a, b, s: num.op_mod(a, b),
    Op.LESS_THAN: num.op_less_than,
    Op.RECIP: num.op_recip,
    Op.SQRT: num.op_sqrt,
    Op.EXP2: lambda x, s: num.op_table("exp2", x, s),
    Op.LOG2: lambda x, s: num.op_table("log2", x, s),
    Op.SIN: lambda x, s: num.op_table("sin", x, s),
    Op.EXP: lambda x, s: num.op_table("exp", x, s),
    Op.ERF: num.op_erf,
    Op.RELU: lambda x, s: num.op_relu(x),
}


def scalar_exact(cx: Graph, inputs: Mapping[str, Any]) -> dict[int, list[int]]:
    """An independent, slow fixed-point executor: one Python int at a time through the scalar
    functions of verifier/numeric.py (the specification), with index maps from src_indices, each
    node at its own scale and each op at the constant numeric.node_constant derives."""
    fmt = cx.numeric_format
    scale = {n.id: fmt.scale_bits if n.scale is None else n.scale for n in cx.nodes()}
    vals: dict[int, list[int]] = {}
    for n in cx.nodes():
        here = num.NumericFormat(min(max(scale[n.id], num.MIN_SCALE_BITS), num.MAX_SCALE_BITS))
        if n.op is Op.INPUT:
            vals[n.id] = [_quantize(float(v), scale[n.id]) for v in np.asarray(inputs[n.name], dtype=float).reshape(-1)]
            continue
        if n.op is Op.CONSTANT:
            if n.raw is not None:
                vals[n.id] = [int(v) for v in n.raw.reshape(-1)]
            else:
                vals[n.id] = [_quantize(float(v), scale[n.id]) for v in n.value.reshape(-1)]
            continue
        c = num.node_constant(n.op.value, [scale[src.id] for src, _ in n.srcs], scale[n.id], fmt.scale_bits)
        args = []
        for src, view in n.srcs:
            sv = vals[src.id]
            args.append([0 if i < 0 else sv[i] for i in view.src_indices()])
        if n.op in (Op.SUM_REDUCE, Op.MAX_REDUCE):
            arr = np.array(args[0], dtype=object).reshape(n.srcs[0][1].shape)
            moved = np.moveaxis(arr, n.axis, -1).reshape(-1, arr.shape[n.axis])
            red = [sum(int(v) for v in row) if n.op is Op.SUM_REDUCE else max(int(v) for v in row) for row in moved]
            vals[n.id] = red
        elif n.op is Op.DOT:
            a = np.moveaxis(np.array(args[0], dtype=object).reshape(n.srcs[0][1].shape), n.axis, -1)
            b = np.moveaxis(np.array(args[1], dtype=object).reshape(n.srcs[1][1].shape), n.axis, -1)
            rows = zip(a.reshape(-1, a.shape[-1]).tolist(), b.reshape(-1, b.shape[-1]).tolist())
            vals[n.id] = [num.op_dot(x, y, c) for x, y in rows]
            if len(args) == 3:
                vals[n.id] = [v + w for v, w in zip(vals[n.id], args[2])]
        elif n.op is Op.CONTIGUOUS:
            vals[n.id] = list(args[0])
        elif len(args) == 2:
            vals[n.id] = [_SCALAR_OPS[n.op](a, b, c) for a, b in zip(*args)]
        else:
            vals[n.id] = [_SCALAR_OPS[n.op](a, c) for a in args[0]]
        for v in vals[n.id]:
            num.check_raw(v, n.where(), here)
    return vals


def _quantize(x: float, s: int) -> int:
    """NumericFormat.quantize at any node scale."""
    raw = int(np.floor(x * (1 << s) + 0.5))
    num.check_raw(raw, f"value {x}")
    return raw


def assert_exact_matches_scalar(cx: Graph, inputs: Mapping[str, Any]) -> None:
    """The vectorized fixed-point executor equals the scalar specification on every node."""
    fast = cx.execute_exact(inputs)
    slow = scalar_exact(cx, inputs)
    for n in cx.nodes():
        assert fast[n.id].dtype == np.int64
        assert fast[n.id].tolist() == slow[n.id], f"node {n.id} ({n.op})"


def assert_within_bound(cx: Graph, inputs: Mapping[str, Any], reference: Mapping[str, np.ndarray] | None = None,
                        slack: float = 1e-9) -> dict[str, float]:
    """|run(exact=True) - reference| <= the derived error bound (+ slack for the reference's own
    float error); reference defaults to the float64 run. Returns the worst observed errors."""
    exact = cx.run(inputs, exact=True)
    ref = cx.run(inputs) if reference is None else reference
    bound = error_bound(cx, inputs)
    first = first_order_bound(cx, inputs)
    worst = {}
    for name in exact:
        err = np.abs(exact[name] - ref[name])
        assert np.all(np.isfinite(bound[name])), f"{name}: unbounded error"
        assert np.all(err <= bound[name] + slack), (
            f"{name}: error {err.max()} exceeds bound at {np.unravel_index(np.argmax(err - bound[name]), err.shape)}"
        )
        # the first-order bound: within the worst case (it drops only its second-order terms), and
        # above the error up to those terms
        assert np.all(first[name] <= bound[name] * (1 + 1e-9) + 1e-12), f"{name}: first order above the worst case"
        assert np.all(err <= first[name] * 1.01 + slack), (
            f"{name}: error {err.max()} exceeds the first-order bound {first[name].reshape(-1)[np.argmax(err - first[name])]}"
        )
        worst[name] = float(err.max())
    return worst
