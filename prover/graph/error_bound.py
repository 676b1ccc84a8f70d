"""A worst-case bound on |fixed-point result - float64 result| for every node of a graph.

Quantization error enters at inputs and constants (|raw / 2^s - value|) and at every rounding op;
it is propagated through each primitive with a bound that holds for any perturbation within the
incoming bounds, evaluated at the float64 reference values:

* Add: ea + eb (integer addition is exact)
* Mul: |a| eb + |b| ea + ea eb + eps/2 (round half up)
* Recip: e / (|x| (|x| - e)) + eps if |x| > e, else unbounded (floor towards zero: < 1 raw unit)
* Sqrt: min(sqrt(e), e / sqrt(x)) + eps (floor)
* Exp2: 2^x (2^e - 1) + eps/2; Log2: log2(x / (x - e)) + eps/2 if x > e; Sin: min(e, 2) + eps/2
  (the tables are correctly rounded to half a raw unit)
* LessThan: 0 if |a - b| > ea + eb or both are exact (the comparison cannot flip), else 1
* Mod: ea + |q| eb if the quotient q = floor(a / b) cannot change (or both are exact), else |b| + eb
* SumReduce: the sum of the bounds; MaxReduce: their max; Contiguous and views: unchanged
* Relu (fused x * (0 < x)): unchanged (max(., 0) is 1-Lipschitz and exact)
* Dot (fused multiply-accumulate): the sum of the products' propagated bounds + eps/2 (one rounding)

eps = 2^-s. The bound is what tests compare the fixed-point executor against, and what a user can
read as the guaranteed accuracy of a given run.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .execute import constant_raw, node_scale, quantize_checked
from .graph import Graph
from .node import Node
from .ops import GroupOp, Op
from ...verifier.numeric import NumericFormat


def node_error_bounds(graph: Graph, inputs: Mapping[str, Any]) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """(float64 values, error bounds) of every node, flat, by node id."""
    fmt = graph.numeric_format
    vals = graph.execute_float(inputs)
    feed = graph._check_inputs(inputs)
    err: dict[int, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for n in graph.nodes():
            if n.op in GroupOp.SOURCE:
                err[n.id] = input_quantization_error(n, feed, fmt, vals[n.id])
                continue
            xs = [view.gather(vals[src.id]) for src, view in n.srcs]
            es = [view.gather(err[src.id]) for src, view in n.srcs]
            op = n.op
            eps = 2.0 ** -node_scale(n, fmt)  # one unit of the node's own scale
            half = eps / 2 * (1 + 1e-9)
            if op is Op.ADD:
                e = es[0] + es[1]
            elif op is Op.MUL:
                e = np.abs(xs[0]) * es[1] + np.abs(xs[1]) * es[0] + es[0] * es[1] + half
            elif op is Op.RECIP:
                ax = np.abs(xs[0])
                e = np.where(ax > es[0], es[0] / (ax * (ax - es[0])), np.inf) + eps
            elif op is Op.SQRT:
                x = np.maximum(xs[0], 0.0)
                e = np.minimum(np.sqrt(es[0]), np.where(x > 0, es[0] / np.sqrt(x), np.inf)) + eps
            elif op is Op.EXP2:
                e = np.exp2(xs[0]) * np.expm1(es[0] * np.log(2.0)) + half
            elif op is Op.LOG2:
                x = xs[0]
                e = np.where(x > es[0], np.log2(x / (x - es[0])), np.inf) + half
            elif op is Op.SIN:
                e = np.minimum(es[0], 2.0) + half
            elif op is Op.LESS_THAN:  # exact operands compare exactly (raw a < raw b is a < b)
                slack = es[0] + es[1]
                e = np.where((np.abs(xs[0] - xs[1]) > slack) | (slack == 0), 0.0, 1.0)
            elif op is Op.MOD:
                a, b = xs
                q = np.floor(a / b)
                r = a - q * b
                slack = es[0] + np.abs(q + 1) * es[1]
                stable = (np.abs(r) > slack) & (np.abs(b) - np.abs(r) > slack) | (slack == 0)
                e = np.where(stable, es[0] + np.abs(q) * es[1], np.abs(b) + es[1])
            elif op is Op.SUM_REDUCE:
                e = es[0].reshape(n.srcs[0][1].shape).sum(axis=n.axis).reshape(-1)
            elif op is Op.MAX_REDUCE:
                e = es[0].reshape(n.srcs[0][1].shape).max(axis=n.axis).reshape(-1)
            elif op is Op.CONTIGUOUS:
                e = es[0].copy()
            elif op is Op.EXP:  # the table is correctly rounded
                e = np.exp(xs[0]) * np.expm1(es[0]) + half
            elif op is Op.ERF:  # correctly rounded; erf' <= 2/sqrt(pi)
                e = es[0] * (2 / np.sqrt(np.pi)) + half
            elif op is Op.RELU:  # 1-Lipschitz, exact in fixed point
                e = es[0].copy()
            elif op is Op.GATHER:  # the table's rows, exactly
                e = es[0].reshape(n.srcs[0][0].shape)[np.asarray(xs[1], dtype=np.int64)].reshape(-1)
            elif op is Op.DOT:  # the products' propagated errors, summed, and one rounding
                shape = n.srcs[0][1].shape
                prod = np.abs(xs[0]) * es[1] + np.abs(xs[1]) * es[0] + es[0] * es[1]
                e = prod.reshape(shape).sum(axis=n.axis).reshape(-1) + half + (es[2] if len(es) == 3 else 0.0)
            else:  # pragma: no cover
                raise AssertionError(op)
            err[n.id] = np.where(np.isnan(e), np.inf, e)
    return vals, err


def input_quantization_error(n: Node, feed: Mapping[int, np.ndarray], fmt: NumericFormat, value: np.ndarray) -> np.ndarray:
    """|raw / 2^s - value| of an input or constant node (index inputs are integers: exact)."""
    if n.op is Op.INPUT and n.index:
        return np.zeros(n.numel)
    s = node_scale(n, fmt)
    raw = quantize_checked(n.where(), n.shape, feed[n.id], fmt, s) if n.op is Op.INPUT else constant_raw(n, fmt)
    return np.abs(raw / 2.0 ** s - value)


def error_bound(graph: Graph, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """{output name: elementwise bound on |run(exact=True) - run()|} for these inputs."""
    _, err = node_error_bounds(graph, inputs)
    return {
        name: view.gather(err[node.id]).reshape(view.shape) for name, (node, view) in graph.outputs().items()
    }
