"""StwoCompiler: the last compiler before proving. It maps every node to the AIR component that
proves it (verifier/graph/components.py) and refuses graphs the AIR cannot represent, with the
node and the reason, before any proving work starts."""

from __future__ import annotations

from luminair.prover.graph import Graph
from luminair.prover.graph.errors import CompileError
from luminair.prover.graph.ops import GroupOp, Op

MAX_REDUCE_LENGTH = 1 << 15  # accumulators stay below P/2 and the 16-bit checks stay sound

COMPONENT_OF = {
    Op.INPUT: "input (public: verifier-computed terms; private: private_input)",
    Op.CONSTANT: "constant",
    Op.LOG2: "log2 (table lookup)",
    Op.EXP2: "exp2 (table lookup)",
    Op.SIN: "sin (table lookup)",
    Op.SQRT: "sqrt",
    Op.RECIP: "recip",
    Op.ADD: "add",
    Op.MUL: "mul",
    Op.MOD: "mod",
    Op.LESS_THAN: "less_than",
    Op.SUM_REDUCE: "sum_reduce",
    Op.MAX_REDUCE: "max_reduce",
    Op.CONTIGUOUS: "contiguous",
}


class StwoCompiler:
    """Removes nodes no output depends on, then checks every node is provable."""

    def compile(self, graph: Graph) -> None:
        graph.remove_unused()
        if not graph.outputs():
            raise CompileError("the graph has no outputs: mark at least one tensor with .output(name)")
        for node in graph.nodes():
            if node.op not in COMPONENT_OF:
                raise CompileError(f"node {node.id} ({node.label()}): no AIR component proves {node.op.value}")
            if node.op in GroupOp.REDUCE:
                length = node.srcs[0][1].shape[node.axis]
                if length > MAX_REDUCE_LENGTH:
                    raise CompileError(
                        f"node {node.id} ({node.label()}, {node.origin or 'no origin'}): reduces {length} "
                        f"elements, more than the {MAX_REDUCE_LENGTH} a proof supports; split the reduction"
                    )
        graph.stwo_plan = {node.id: COMPONENT_OF[node.op] for node in graph.nodes()}
