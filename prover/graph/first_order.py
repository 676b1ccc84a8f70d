"""A first-order bound on |fixed-point result - float64 result| that keeps the errors' correlations.

error_bound.py propagates a worst case per element: each element's error may take any value within
its bound, independently of the others. Through a layer norm and a softmax that loses what keeps
them accurate (a row shares one variance; a softmax does not change when all its inputs move
together) and the bound of a transformer becomes infinite. Here every rounding is a source r (node
n, element i) of a local error |r| <= rho[n, i], and

    y_j(fixed) - y_j(float) = sum over the sources of (dy_j / dr) r + O(rho^2)

where dy_j / dr is the adjoint of the source's node at element i in reverse mode over the float64
run, every path summed with its sign. The bound sum |dy_j / dr| rho[n, i] is exact to first order;
the second-order terms (products of two roundings, about eps^2 times a second derivative) are left
out, so it is an estimate of the worst case, not a guarantee: error_bound's worst case is the
guarantee where it is finite.

Local errors (eps = 2^-s): inputs and constants their quantization error |raw / 2^s - value|; Mul and
Dot eps/2 (one rounding half up); tables eps/2 (correctly rounded); Recip and Sqrt eps (floor); Add,
SumReduce, MaxReduce, Relu, Contiguous and Gather none (exact on their inputs). Where the
linearization does not hold, with e the first-order bound of the op's input: a LessThan that may flip
(|a - b| <= e_a + e_b) contributes 1 and no derivative, a Mod whose quotient may change |b| + e_b; a
Sqrt at x <= e contributes sqrt(e) + eps and no derivative; a Recip at |x| <= e or a Log2 at x <= e
makes the bound of everything that depends on it infinite.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from .error_bound import input_quantization_error
from .execute import node_scale
from .graph import Graph
from .node import Node
from .ops import GroupOp, Op

CHUNK_CELLS = 1 << 22  # adjoint cells held per node at once (target rows x node elements)
MAX_CELLS = 1 << 32  # output elements x graph elements: beyond it the bound is refused before any pass


def first_order_bound(graph: Graph, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """{output name: elementwise first-order bound on |run(exact=True) - run()|} for these inputs.
    ValueError, before any work, where the reverse passes would exceed MAX_CELLS adjoint cells."""
    rows = sum(view.numel for _, view in graph.outputs().values())
    cells = rows * sum(n.numel for n in graph.nodes())
    if cells > MAX_CELLS:
        raise ValueError(f"the first-order bound needs a reverse pass per output element: {rows} outputs x "
                         f"{cells // rows} graph elements = {cells} cells, above its limit of {MAX_CELLS}")
    fo = _FirstOrder(graph, inputs)
    return {
        name: fo.bound(node, view.src_indices() if view.steps else np.arange(node.numel)).reshape(view.shape)
        for name, (node, view) in graph.outputs().items()
    }


class _FirstOrder:
    def __init__(self, graph: Graph, inputs: Mapping[str, Any]) -> None:
        fmt = graph.numeric_format
        self.fmt = fmt
        self.nodes = list(graph.nodes())
        self.vals = graph.execute_float(inputs)
        self.rho: dict[int, np.ndarray] = {}  # local error of every element
        self.flat: dict[int, np.ndarray] = {}  # elements whose derivative is 0 (linearization replaced by rho)
        self._scatter: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray] | None] = {}
        feed = graph._check_inputs(inputs)
        with np.errstate(all="ignore"):
            for n in self.nodes:  # topological: every input's local errors are known before its readers'
                self.rho[n.id] = self._local_error(n, feed, fmt)

    # -- local errors ------------------------------------------------------------------------------

    def _local_error(self, n: Node, feed: Mapping[int, np.ndarray], fmt: Any) -> np.ndarray:
        op, size = n.op, n.numel
        eps = 2.0 ** -node_scale(n, fmt)  # one unit of the node's own scale
        half = eps / 2 * (1 + 1e-9)
        if op in (Op.INPUT, Op.CONSTANT):
            return input_quantization_error(n, feed, fmt, self.vals[n.id])
        if op in (Op.MUL, Op.DOT) or op in GroupOp.TABLE and op is not Op.LOG2:
            return np.full(size, half)
        if op in (Op.RECIP, Op.SQRT, Op.LOG2, Op.LESS_THAN, Op.MOD):
            xs = self._args(n)
            es = [self.bound(src, view.src_indices()) for src, view in n.srcs]
            if op is Op.RECIP:
                return np.where(np.abs(xs[0]) > es[0], eps, np.inf)
            if op is Op.LOG2:
                return np.where(xs[0] > es[0], half, np.inf)
            if op is Op.SQRT:
                flat = xs[0] <= es[0]
                self.flat[n.id] = flat
                return np.where(flat, np.sqrt(es[0]) + eps, eps)
            slack = es[0] + es[1]
            if op is Op.LESS_THAN:  # piecewise constant: no derivative
                return np.where((np.abs(xs[0] - xs[1]) > slack) | (slack == 0), 0.0, 1.0)
            a, b = xs
            r = a - np.floor(a / b) * b
            slack = es[0] + np.abs(np.floor(a / b) + 1) * es[1]
            unstable = ~((np.abs(r) > slack) & (np.abs(b) - np.abs(r) > slack) | (slack == 0))
            self.flat[n.id] = unstable
            return np.where(unstable, np.abs(b) + es[1], 0.0)
        return np.zeros(size)

    def _args(self, n: Node) -> list[np.ndarray]:
        return [view.gather(self.vals[src.id]) for src, view in n.srcs]

    # -- reverse mode ------------------------------------------------------------------------------

    def bound(self, target: Node, idx: np.ndarray) -> np.ndarray:
        """First-order bound of `target`'s elements at flat indices `idx` (-1: padding, exact)."""
        idx = np.asarray(idx, dtype=np.int64)
        ancestors = _ancestors(target)
        order = [n for n in self.nodes if n.id in ancestors]
        step = max(1, CHUNK_CELLS // max(n.numel for n in order))
        out = np.zeros(idx.size)
        with np.errstate(all="ignore"):
            for lo in range(0, idx.size, step):
                out[lo:lo + step] = self._bound_rows(target, idx[lo:lo + step], order)
        return np.where(np.isnan(out), np.inf, out)  # a derivative undefined on the way: no bound

    def _bound_rows(self, target: Node, idx: np.ndarray, order: list[Node]) -> np.ndarray:
        """Adjoints are (elements of the node, target rows): a node's elements are gathered whole."""
        rows = idx.size
        seed = np.zeros((target.numel, rows))
        real = np.flatnonzero(idx >= 0)
        seed[idx[real], real] = 1.0
        adj: dict[int, np.ndarray] = {target.id: seed}
        total = np.zeros(rows)
        for n in reversed(order):
            a = adj.pop(n.id, None)
            if a is None:
                continue
            rho = self.rho[n.id]
            finite = np.isfinite(rho)
            mag = np.abs(a)
            total += rho[finite] @ mag[finite]
            if not finite.all():
                total[(mag[~finite] > 0).any(axis=0)] = np.inf
            if n.op in GroupOp.SOURCE:
                continue
            for k, ((src, view), g) in enumerate(zip(n.srcs, self._backward(n, a))):
                if g is not None:
                    self._add(adj, n, k, src, view, g)
        return total

    def _backward(self, n: Node, a: np.ndarray) -> list[np.ndarray | None]:
        """The adjoint of each argument of `n` (the argument's elements x rows) from `n`'s own."""
        op, xs = n.op, [x[:, None] for x in self._args(n)]
        if op is Op.ADD:
            return [a, a]
        if op is Op.MUL:
            return [a * xs[1], a * xs[0]]
        if op is Op.CONTIGUOUS:
            return [a]
        if op is Op.RELU:
            return [a * (xs[0] > 0)]
        if op in _DERIVATIVES:  # 0 where the linearization was replaced by a local error (flat)
            d = _DERIVATIVES[op](xs[0])
            return [a * (np.where(self.flat[n.id][:, None], 0.0, d) if n.id in self.flat else d)]
        if op is Op.LESS_THAN:  # piecewise constant
            return [None, None]
        if op is Op.MOD:
            keep = ~self.flat[n.id][:, None]
            return [a * keep, -a * keep * np.floor(xs[0] / xs[1])]
        rows = a.shape[1]
        if op is Op.GATHER:
            table_rows, width = n.srcs[0][0].shape
            ids = np.asarray(xs[1][:, 0], dtype=np.int64)
            g = np.zeros((table_rows, width, rows))
            np.add.at(g, ids, a.reshape(ids.size, width, rows))
            return [g.reshape(-1, rows), None]
        shape = n.srcs[0][1].shape
        kept = tuple(d for i, d in enumerate(shape) if i != n.axis)
        spread = np.broadcast_to(np.expand_dims(a.reshape(*kept, rows), n.axis), (*shape, rows))
        if op is Op.SUM_REDUCE:
            return [spread.reshape(-1, rows)]
        if op is Op.MAX_REDUCE:
            x = self._args(n)[0].reshape(shape)
            first = np.expand_dims(np.argmax(x, axis=n.axis), n.axis)
            mask = np.zeros(shape, dtype=bool)
            np.put_along_axis(mask, first, True, axis=n.axis)
            return [(spread * mask[..., None]).reshape(-1, rows)]
        if op is Op.DOT:
            left = (spread * xs[1].reshape(*shape, 1)).reshape(-1, rows)
            right = (spread * xs[0].reshape(*shape, 1)).reshape(-1, rows)
            return [left, right, a] if len(xs) == 3 else [left, right]
        raise AssertionError(f"{n.where()}: no derivative for {op}")  # pragma: no cover

    def _add(self, adj: dict[int, np.ndarray], n: Node, k: int, src: Node, view: Any, g: np.ndarray) -> None:
        """adj[src] += the argument's adjoint `g` read back through `view` (a sum where it repeats)."""
        cur = adj.get(src.id)
        if not view.steps:
            adj[src.id] = g.copy() if cur is None else cur + g
            return
        if cur is None:
            cur = adj[src.id] = np.zeros((src.numel, g.shape[1]))
        key = (n.id, k)
        if key not in self._scatter:
            idx = view.src_indices()
            keep = np.flatnonzero(idx >= 0)
            order = keep[np.argsort(idx[keep], kind="stable")]
            uniq, starts = np.unique(idx[order], return_index=True)
            self._scatter[key] = (order, uniq, starts) if order.size else None
        plan = self._scatter[key]
        if plan is None:
            return
        order, uniq, starts = plan
        if uniq.size == order.size:  # each source element read once
            cur[uniq] += g[order]
        elif order.size % uniq.size == 0 and (np.diff(starts) == order.size // uniq.size).all():
            cur[uniq] += g[order].reshape(uniq.size, order.size // uniq.size, -1).sum(axis=1)  # a broadcast
        else:
            cur[uniq] += np.add.reduceat(g[order], starts, axis=0)


_LN2 = math.log(2.0)
_DERIVATIVES = {
    Op.RECIP: lambda x: -1.0 / (x * x),
    Op.SQRT: lambda x: 0.5 / np.sqrt(x),
    Op.EXP2: lambda x: np.exp2(x) * _LN2,
    Op.LOG2: lambda x: 1.0 / (x * _LN2),
    Op.EXP: np.exp,
    Op.SIN: np.cos,
    Op.ERF: lambda x: 2.0 / math.sqrt(math.pi) * np.exp(-x * x),
}


def _ancestors(node: Node) -> set[int]:
    seen: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n.id not in seen:
            seen.add(n.id)
            stack.extend(s for s, _ in n.srcs)
    return seen
