"""FuseOpCompiler: primitive patterns rewritten into the fused AIR components that prove them with
far fewer trace cells (verifier/graph/components.py).

* Mul then SumReduce over the product (matmul, Gemm, linear, conv, a sum of squares) becomes one
  Dot node: the products are accumulated exactly as integers and rounded once per output element,
  instead of a rounding and a range check per product. This changes the fixed-point result (it is
  the exactly rounded sum, more accurate than the sum of rounded products): `run(exact=True)` after
  compiling gives the values a proof attests, and `verifier/numeric.op_dot` defines them.

A pattern fuses only when the intermediate product has no other reader and is not an output.
"""

from __future__ import annotations

from typing import Any

from luminair.prover.graph import Graph, Node, Op, ShapeTracker


def _fusable_products(graph: Graph) -> set[int]:
    """Ids of the SumReduce nodes that read a Mul nothing else reads, unchanged (identity view)."""
    consumers = graph.consumers()
    outputs = {node.id for node, _ in graph.outputs().values()}
    out = set()
    for node in graph.nodes():
        if node.op is not Op.SUM_REDUCE:
            continue
        (mul, view), = node.srcs
        if mul.op is Op.MUL and view.is_identity() and mul.id not in outputs and len(consumers[mul.id]) == 1:
            out.add(node.id)
    return out


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
        fusable = _fusable_products(graph)
        if not fusable:
            return False
        old = graph.nodes()

        def fuse(node: Node) -> Any:
            # only nodes whose inputs this pass left untouched: the consumer counts are the old graph's
            if node.id not in fusable or node.id >= len(old) or old[node.id] is not node:
                return None
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
