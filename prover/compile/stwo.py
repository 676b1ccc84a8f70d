"""StwoCompiler: the last compiler before proving. It maps every node to the AIR component that
proves it (verifier/graph/components.py) and refuses graphs the AIR cannot represent, with the
node and the reason, before any proving work starts."""

from __future__ import annotations

from luminair.prover.graph import Graph
from luminair.prover.graph.errors import CompileError
from luminair.prover.graph.ops import GroupOp, Op
from luminair.prover.graph.shape import ShapeTracker
from luminair.verifier.graph.settings import MAX_NUMEL
from luminair.verifier.graph.spec import MAX_VIEW_NUMEL, view_shape
from luminair.verifier.graph.topology import is_affine

from .fuse import FuseOpCompiler
from .search import SearchCompiler, SearchReport

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
    Op.DOT: "dot (fused multiply-accumulate, 1 to 16 products a row)",
    Op.RELU: "relu (fused: one comparison)",
    Op.EXP: "exp (fused: table lookup)",
    Op.ERF: "erf (fused: table lookup, proven clamps to -1 and 1)",
    Op.GATHER: "gather (table rows at an index input: verifier-computed terms)",
}


def _affine_prefix(view: ShapeTracker) -> int:
    """How many leading steps of a view stay affine over its source (all of them: len(steps))."""
    for i in range(1, len(view.steps) + 1):
        if not is_affine(view.src_shape, view.steps[:i]):
            return i - 1
    return len(view.steps)


def materialize_views(graph: Graph) -> bool:
    """Every edge of a provable graph is an affine view (verifier/graph/topology.py). A view that is
    not (a reshape merging axes a permute or pad made non-contiguous) is split: its affine prefix is
    materialized by a Contiguous node, and the rest reads that node. Exact: only copies."""

    def rewrite(node):  # noqa: ANN001, ANN202 - Graph.transform callback
        if all(is_affine(v.src_shape, v.steps) for _, v in node.srcs):
            return None
        srcs = []
        for src, view in node.srcs:
            while not is_affine(view.src_shape, view.steps):
                cut = _affine_prefix(view)
                shape = view_shape(view.src_shape, view.steps[:cut])
                prefix = ShapeTracker(view.src_shape, view.steps[:cut], shape)
                src = graph.add_node(Op.CONTIGUOUS, [(src, prefix)], shape, origin=node.origin)
                view = ShapeTracker(shape, view.steps[cut:], view.shape)
            srcs.append((src, view))
        new = graph.add_node(node.op, srcs, node.shape, axis=node.axis, name=node.name, origin=node.origin)
        return new, ShapeTracker(new.shape)

    return graph.transform(rewrite)


def copy_view_outputs(graph: Graph) -> None:
    """A graph that only rearranges its inputs (an Expand, a Transpose, an embedding lookup) has
    nothing for a proof to attest: each output becomes a Contiguous copy of its view, which the
    proof attests like any computation."""
    if any(n.op not in (Op.INPUT, Op.CONSTANT, Op.GATHER) for n in graph.nodes()):
        return
    for name, (node, view) in graph.outputs().items():
        copy = graph.add_node(Op.CONTIGUOUS, [(node, view)], view.shape, origin=node.origin)
        graph.set_output(name, copy, ShapeTracker(copy.shape), replace=True)


class FormatCapError(CompileError):
    """A node whose tensor, or the view it reads, is larger than the proof format holds."""


def _check_caps(node) -> None:  # noqa: ANN001 - a graph Node
    """The proof format's caps on a tensor (settings.MAX_NUMEL) and on the view an op reads
    (spec.MAX_VIEW_NUMEL), checked here so that the refusal names the node and its origin."""
    where = f"node {node.id} ({node.label()}, {node.origin or 'no origin'})"
    remedy = "use a smaller input (or split the layer)"
    if node.numel > MAX_NUMEL:
        raise FormatCapError(f"{where}: its {node.shape} holds {node.numel} elements, more than a tensor of the proof "
                           f"format may ({MAX_NUMEL} = 2^{MAX_NUMEL.bit_length() - 1}); {remedy}")
    for i, (_, view) in enumerate(node.srcs):
        if view.numel > MAX_VIEW_NUMEL:
            raise FormatCapError(f"{where}: input {i} is read through a view of {view.shape} ({view.numel} elements), "
                               f"more than a view of the proof format may hold ({MAX_VIEW_NUMEL} = "
                               f"2^{MAX_VIEW_NUMEL.bit_length() - 1}); {remedy}")


class StwoCompiler:
    """Removes nodes no output depends on, materializes views the AIR cannot address, searches for
    the cheapest equivalent graph to prove (SearchCompiler: fusions and exact algebra by equality
    saturation; `search=False` skips it), fuses the remaining primitive patterns and lays out Dot
    operands (FuseOpCompiler; `fuse=False` keeps every primitive and skips the search too), then
    checks every node is provable."""

    def __init__(self, fuse: bool = True, search: bool = True, search_budget_s: float = 2.0):
        self.fuse = fuse
        self.search = search
        self.search_budget_s = search_budget_s
        self.fused: dict[str, int] = {}
        self.search_report: SearchReport | None = None

    def __repr__(self) -> str:
        if not self.fuse:
            return "StwoCompiler(fuse=False)"
        return "StwoCompiler()" if self.search else "StwoCompiler(search=False)"

    def compile(self, graph: Graph) -> None:
        graph.remove_unused()
        materialize_views(graph)
        self.fused = {}
        if self.fuse and self.search:
            searcher = SearchCompiler(time_budget_s=self.search_budget_s)
            searcher.compile(graph)
            self.search_report = searcher.report
            self.fused = dict(searcher.report.fused)
            materialize_views(graph)  # the rules only compose affine views; this keeps that a guarantee
        if self.fuse:
            fuser = FuseOpCompiler()
            fuser.compile(graph)
            for kind, n in fuser.fused.items():
                self.fused[kind] = self.fused.get(kind, 0) + n
        if not graph.outputs():
            raise CompileError("the graph has no outputs: mark at least one tensor with .output(name)")
        copy_view_outputs(graph)
        for node in graph.nodes():
            if node.op not in COMPONENT_OF:
                raise CompileError(f"node {node.id} ({node.label()}): no AIR component proves {node.op.value}")
            _check_caps(node)
            if node.op in GroupOp.AXIS:
                length = node.srcs[0][1].shape[node.axis]
                if length > MAX_REDUCE_LENGTH:
                    raise CompileError(
                        f"node {node.id} ({node.label()}, {node.origin or 'no origin'}): reduces {length} "
                        f"elements, more than the {MAX_REDUCE_LENGTH} a proof supports; split the reduction"
                    )
        graph.stwo_plan = {node.id: COMPONENT_OF[node.op] for node in graph.nodes()}
