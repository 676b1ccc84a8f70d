"""FuseOpCompiler: primitive patterns rewritten into the fused AIR components that prove them with
far fewer trace cells (verifier/graph/components.py).

* Mul then SumReduce over the product (matmul, Gemm, linear, conv, a sum of squares) becomes one
  Dot node: the products are accumulated exactly as integers and rounded once per output element,
  instead of a rounding and a range check per product. This changes the fixed-point result (it is
  the exactly rounded sum, more accurate than the sum of rounded products): `run(exact=True)` after
  compiling gives the values a proof attests, and `verifier/numeric.op_dot` defines them.

* Dot + c (a bias, a residual: any third value of the output's shape) becomes a Dot with a third
  input, added to each rounded sum on its group's last row. Exact: it is the same integer Add.
* x * (0 < x) (relu) becomes one Relu node: one sign comparison instead of a LessThan row and a
  Mul row. Exact: the product by 1.0 or 0 is exact in fixed point, so results are unchanged.

A pattern fuses only when its intermediate values have no other reader and are not outputs.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from luminair.prover.graph import Graph, Node, Op, ShapeTracker
from luminair.verifier.graph.topology import ViewError, affine_view


def _is_zero(node: Node) -> bool:
    return node.op is Op.CONSTANT and not np.any(node.value) and (node.raw is None or not np.any(node.raw))


def _relu_source(node: Node, private: Callable[[Node], bool]) -> tuple[Node, ShapeTracker] | None:
    """For a Mul computing x * (0 < x), the (source, view) of x; else None."""
    if node.op is not Op.MUL:
        return None
    for k in (0, 1):
        (x, vx), (lt, vlt) = node.srcs[k], node.srcs[1 - k]
        if lt.op is not Op.LESS_THAN or not vlt.is_identity() or not private(lt):
            continue
        (zero, _), (x2, vx2) = lt.srcs
        if _is_zero(zero) and x2 is x and vx2 == vx:
            return x, vx
    return None


def _fusable(graph: Graph) -> set[int]:
    """Ids of the nodes that end a fusable pattern: a SumReduce of a Mul nothing else reads
    (identity view), a Mul computing x * (0 < x) whose comparison nothing else reads."""
    consumers = graph.consumers()
    outputs = {node.id for node, _ in graph.outputs().values()}

    def private(n: Node) -> bool:  # an intermediate value only its one consumer sees
        return n.id not in outputs and len(consumers[n.id]) == 1

    out = set()
    for node in graph.nodes():
        if node.op is Op.SUM_REDUCE:
            (mul, view), = node.srcs
            if mul.op is Op.MUL and view.is_identity() and private(mul):
                out.add(node.id)
        elif _relu_source(node, private) is not None or _bias_dot(node, private) is not None:
            out.add(node.id)
    return out


def _bias_dot(node: Node, private: Callable[[Node], bool]) -> int | None:
    """For an Add of a two-input Dot (read unchanged, nothing else reads it) and a value read
    through an unpadded view, the position (0 or 1) of the Dot among the Add's inputs."""
    if node.op is not Op.ADD:
        return None
    for k in (0, 1):
        (dot, view), (_, bias_view) = node.srcs[k], node.srcs[1 - k]
        if dot.op is Op.DOT and len(dot.srcs) == 2 and view.is_identity() and private(dot) and _unpadded(bias_view):
            return k
    return None


def _unpadded(view: ShapeTracker) -> bool:
    try:
        return not affine_view(view.src_shape, view.steps).masked()
    except ViewError:
        return False


class FuseOpCompiler:
    """Rewrites primitive patterns into fused ops (see the module docstring); run to a fixed point."""

    def __init__(self, max_rounds: int = 1000):
        self.max_rounds = max_rounds
        self.fused: dict[str, int] = {}

    def compile(self, graph: Graph) -> bool:
        changed = False
        for _ in range(self.max_rounds):
            if not self._round(graph):
                break
            changed = True
        return changed

    def _round(self, graph: Graph) -> bool:
        fusable = _fusable(graph)
        if not fusable:
            return False
        old = graph.nodes()

        def fuse(node: Node) -> Any:
            # only nodes whose inputs this pass left untouched: the consumer counts are the old graph's
            if node.id not in fusable or node.id >= len(old) or old[node.id] is not node:
                return None
            if node.op is Op.ADD:  # a bias; the consumer check was made by _fusable
                k = _bias_dot(node, lambda _n: True)
                dot = node.srcs[k][0]
                fused = graph.add_node(
                    Op.DOT, [*dot.srcs, node.srcs[1 - k]], node.shape, axis=dot.axis, name=node.name, origin=node.origin
                )
                self.fused["Dot+bias"] = self.fused.get("Dot+bias", 0) + 1
                return fused, ShapeTracker(fused.shape)
            if node.op is Op.MUL:  # relu; the consumer check was made by _fusable
                x, vx = _relu_source(node, lambda _n: True)  # type: ignore[misc]
                relu = graph.add_node(Op.RELU, [(x, vx)], node.shape, name=node.name, origin=node.origin)
                self.fused["Relu"] = self.fused.get("Relu", 0) + 1
                return relu, ShapeTracker(relu.shape)
            (mul, _), = node.srcs
            srcs = list(mul.srcs)
            if srcs[0][0].op is Op.CONSTANT and srcs[1][0].op is not Op.CONSTANT:
                srcs.reverse()  # weights second: a*b = b*a exactly, in float and in fixed point
            dot = graph.add_node(Op.DOT, srcs, node.shape, axis=node.axis, name=node.name, origin=node.origin)
            self.fused["Dot"] = self.fused.get("Dot", 0) + 1
            return dot, ShapeTracker(dot.shape)

        changed = graph.transform(fuse)
        graph.remove_unused()
        return changed

    def __repr__(self) -> str:
        return "FuseOpCompiler()"
