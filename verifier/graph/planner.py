"""plan_graph(spec) -> GraphPlan: every decision that turns a graph into AIR components, made once,
in one order, each from the graph and the decisions above it. Nothing here is stored in
settings.bin: the verifier derives the plan from the graph and weights, and the prover, the work
budget, the summary and the search compiler's cost model read the same plan.

    lanes     products a Dot row holds                      the views, the operands' bounds
    matmuls   Dots checked with Freivalds against a known   lanes (a Dot's cells to beat)
              operand (graph/matmul.py)
    pairs     Dots of two computed operands, checked too    lanes, matmuls
    direct    Dots that read a constant straight from the   matmuls, pairs
              verifier's terms
    rowless   constants no trace row holds                  direct, matmuls
    chunked   known operands a Dot reads in whole rows      lanes, matmuls, pairs, rowless
    kinds     each node's component kind                    all of the above
    instances the AIR's components: kinds merged, split     kinds; the products' variants
              into instances, the products' MatIn, MatPair
              and MatOut components
    limb_bits range-check limbs: 16 bits once a component   instances
              has 2^16 rows, else 8
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from collections.abc import Sequence
from math import prod
from typing import Any, Mapping

from .components import COMPONENT_ORDER, DOT_VARIANTS, RANGE16_MIN_LOG, DotVariant, MatOutComponent, make_component
from .mat_plans import mat_topology_cost, mat_variant_instances, mat_w_instances, operand_instances
from .matmul import MatPlan, PairPlan, mat_plans, pair_plans
from .plan import MERGED_KINDS, Instance, chunks, log_size_of, merge_kinds, split_parts, vary_constants
from ..numeric import default_constant
from .spec import CONTRACT, GROUPED, REDUCE, GraphSpec, gather_tables, known_gather, view_shape
from .topology import (
    KNOWN_LANES, AffineView, Segment, chunked_reads, direct_weight_reads, dot_lanes,
    layout_segments, row_order_view, rowless_constants, topology_cost,
)


KNOWN_KINDS = ("Known", "GatherTable")  # rows the verifier adds known terms for
# kinds whose rows can carry their own constant (GraphComponent.vary): one component for all of a
# kind's constants (LessThan yields lt 2^s, which would make its LogUp entry of degree 2)
VARYING = ("Mul", "Recip", "Sqrt", "RecipSqrt", *DOT_VARIANTS)


@dataclass(frozen=True)
class GraphPlan:
    spec: GraphSpec
    lanes: Mapping[int, int]
    matmuls: Mapping[int, MatPlan]
    pairs: Mapping[int, PairPlan]
    direct: Mapping[int, int]  # Dot node -> the constant it reads directly
    rowless: frozenset[int]
    chunked: frozenset[tuple[int, int]]  # (Dot node, operand)
    kinds: tuple[str, ...]  # per node: "Known", "GatherTable", "PrivateInput", "PrivateIndex", "Direct" (no rows),
    # "MatMul", "MatPair", an op kind
    instances: tuple[Instance, ...]  # in AIR order (the tables come after them)
    limb_bits: int
    # a checked product's public weights: each proof's values, bound by graph/statement.py before
    # its periodic columns are evaluated (the plan and the AIR serve every proof of one settings.bin)
    public_values: dict[int, Sequence[int]] = field(default_factory=dict)
    # a product of committed weights: the proof's v = W rho (StarkProof.vectors), bound likewise
    product_vectors: dict[int, Sequence[Any]] = field(default_factory=dict)

    def rows_of(self, index: int) -> int:
        return rows_of(self.spec, index, self.lanes.get(index, 1), self.kinds[index])

    def row_view(self, index: int, k: int) -> AffineView:
        """Input k of a node in its row order (topology.row_order_view, with the node's lanes)."""
        return row_order_view(self.spec, index, k, self.lanes.get(index, 1))

    def product(self, index: int) -> MatPlan | PairPlan:
        return self.matmuls.get(index) or self.pairs[index]

    # --- the cost view -------------------------------------------------------------------------

    @property
    def boundary_bound(self) -> int:
        """An upper bound on the boundary rows of every component's topology (the work budget's
        topology charge: each is derived and evaluated at the out-of-domain point)."""
        return sum(inst.boundary_bound for inst in self.instances)

    def public_rows(self) -> int:
        """Rows whose LogUp term the verifier adds itself from the files: known rows (weights and
        public inputs) and the rows of Dots that take their weights straight from its terms."""
        return sum(inst.rows for inst in self.instances if inst.kind in KNOWN_KINDS or (inst.variant and inst.variant.direct))

    def public_terms(self) -> int:
        """The LogUp fractions the verifier adds itself: a public row's each, and one per public output element."""
        return self.public_rows() + sum(len(out.src_indices) for out in self.spec.outputs if not out.committed)


def plan_graph(spec: GraphSpec) -> GraphPlan:
    """The plan of a graph (made once per spec: a derived cache, never part of the data)."""
    cached = spec.__dict__.get("_plan")
    if cached is None:
        cached = spec.__dict__["_plan"] = _plan(spec)
    return cached


def _plan(spec: GraphSpec) -> GraphPlan:
    dots = [i for i, node in enumerate(spec.nodes) if node.op in CONTRACT]
    lanes = {i: dot_lanes(spec, i) for i in dots}
    matmuls = mat_plans(spec, lanes)
    pairs = pair_plans(spec, lanes, set(matmuls))
    checked = set(matmuls) | set(pairs)
    direct = direct_weight_reads(spec, checked)
    rowless = rowless_constants(spec, direct, matmuls)
    chunked = chunked_reads(spec, lanes, checked, rowless, lambda i: rows_of(spec, i, lanes[i], "Dot"))
    kinds = tuple(node_kind(spec, i, lanes, matmuls, pairs, direct, rowless, chunked) for i in range(len(spec.nodes)))
    instances = _op_instances(spec, kinds, lanes) + _product_instances(spec, kinds, matmuls, pairs) + _output_instances(spec)
    limb_bits = 16 if max((inst.log_size for inst in instances), default=0) >= RANGE16_MIN_LOG else 8
    return GraphPlan(spec, lanes, matmuls, pairs, direct, frozenset(rowless), frozenset(chunked), kinds,
                     tuple(instances), limb_bits)


def node_kind(spec: GraphSpec, index: int, lanes: Mapping[int, int], matmuls: Mapping[int, Any],
              pairs: Mapping[int, Any], direct: Mapping[int, int], rowless: set[int],
              chunked: set[tuple[int, int]]) -> str:
    """The component a node's rows go to."""
    node = spec.nodes[index]
    if node.op == "Constant" and index in rowless:
        # no rows: its readers take the weights from the verifier's own terms (a committed
        # constant's: from the MatW component of the one product that reads it)
        return "Direct"
    if node.committed:  # the model tree's or the input tree's values (graph/components.CommittedComponent)
        return ("BoundaryInput" if node.boundary else "CommittedInput") if node.op == "Input" else "Committed"
    if index in matmuls:
        return "MatMul"  # a MatIn of its own and a share of a MatOut (graph/matmul.py)
    if index in pairs:
        return "MatPair"  # a MatPair of its own and a share of a MatOut
    if node.op == "Constant" and index in gather_tables(spec):
        return "GatherTable"
    if node.op == "Constant" or known_gather(spec, index) or (node.op == "Input" and not node.private):
        return "Known"
    if node.op == "Input":
        return "PrivateIndex" if node.index else "PrivateInput"
    if node.op in CONTRACT:
        return DotVariant(index in direct, lanes[index], len(node.srcs) == 3, (index, 0) in chunked,
                          (index, 1) in chunked).key
    return node.op


def rows_of(spec: GraphSpec, index: int, lanes: int, kind: str) -> int:
    """Trace rows a node occupies in its component: a known row holds KNOWN_LANES elements, a
    reduction a row per input element, a Dot a row per chunk of `lanes` products."""
    node = spec.nodes[index]
    if kind in KNOWN_KINDS:
        return -(-node.numel // KNOWN_LANES)
    if node.op in REDUCE or node.op in CONTRACT:
        return prod(view_shape(node.srcs[0][1], node.srcs[0][2])) // (lanes if node.op in CONTRACT else 1)
    return node.numel


def _op_instances(spec: GraphSpec, kinds: tuple[str, ...], lanes: Mapping[int, int]) -> list[Instance]:
    """The op kinds' components in the fixed component order, a kind split into instances
    ("<name>", "<name>.1", ...) where padding would waste much (plan.split_parts)."""
    by_kind: dict[tuple[str, int], list[int]] = {}
    for i, kind in enumerate(kinds):
        if kind not in ("Direct", "MatMul", "MatPair"):
            by_kind.setdefault((kind, _kind_constant(spec, kind, i)), []).append(i)
    by_kind = vary_constants(merge_kinds(by_kind), VARYING.__contains__)
    out: list[Instance] = []
    for kind, constant in sorted(by_kind, key=lambda key: (COMPONENT_ORDER.index(key[0]), key[1])):
        nodes = by_kind[(kind, constant)]
        rows = {i: rows_of(spec, i, lanes.get(i, 1), kinds[i]) for i in nodes}
        op = MERGED_KINDS[kind][1] if kind in MERGED_KINDS else spec.nodes[nodes[0]].op
        name = make_component(kind, 4, constant).name
        for part, members in enumerate(chunks(nodes, split_parts([rows[i] for i in nodes]))):
            segs = layout_segments(members, rows.__getitem__)
            fixed = _fixed_constant(spec, kind, members) if kind not in VALUE_KINDS else _kind_constant(spec, kind, 0)
            consts = [fixed] if fixed is not None else sorted({spec.constant_of(i) for i in members})
            variable = fixed is None
            bound = _op_boundary_bound(spec, kind, segs, lanes) + 2 * (len(segs) + 1) * variable
            total = sum(seg.rows for seg in segs)
            suffix = "" if kind in VALUE_KINDS else _constant_suffix(spec, op, consts)
            full = name + suffix + (f".{part}" if part else "")
            out.append(Instance(kind, full, tuple(members), total, log_size_of(total), bound, DOT_VARIANTS.get(kind),
                                constant=consts[-1], variable=variable))
    return out


VALUE_KINDS = (*KNOWN_KINDS, "Committed", "CommittedInput", "BoundaryInput")  # rows of values, no op: no constant of their own


def _kind_constant(spec: GraphSpec, kind: str, index: int) -> int:
    """The constant a node's rows are proven with: committed weights' bound bits (CommittedComponent),
    0 for known rows, else the op's (spec.constant_of)."""
    if kind in VALUE_KINDS:  # (a committed input: a 16-bit value)
        return {"Committed": spec.model_bits, "CommittedInput": 16}.get(kind, 0)
    return spec.constant_of(index)


def _fixed_constant(spec: GraphSpec, kind: str, members: Sequence[int]) -> int | None:
    """The one constant a component of `kind` proves all of `members` at (RecipSqrt: 2^(2e) / x
    beside sqrt(x 2^e), at e), or None where they differ (its rows then carry their own)."""
    halve = kind == "RecipSqrt"
    consts = {spec.constant_of(i) / (2 if halve and spec.nodes[i].op == "Recip" else 1) for i in members}
    if len(consts) != 1:
        return None
    (c,) = consts
    return int(c) if c == int(c) else None


def _constant_suffix(spec: GraphSpec, op: str, constants: Sequence[int]) -> str:
    """A component at another constant than its op's at the graph's scale is named by it
    ("mul@12"), one whose rows carry their own by the range ("mul@10-14")."""
    if len(constants) > 1:
        return f"@{constants[0]}-{constants[-1]}"
    return "" if constants[0] == default_constant(op, spec.scale_bits) else f"@{constants[0]}"


def _op_boundary_bound(spec: GraphSpec, kind: str, segs: list[Segment], lanes: Mapping[int, int]) -> int:
    if kind in KNOWN_KINDS + ("PrivateInput", "PrivateIndex", "Committed", "CommittedInput", "BoundaryInput"):
        return 4 * len(segs)
    op = spec.nodes[segs[0].node].op
    bound = topology_cost(spec, segs, min(2, len(spec.nodes[segs[0].node].srcs)), op in GROUPED, lanes)
    # a merged kind's selector, a Gather's width and top: two boundaries a node each
    return bound + 2 * len(segs) * ((kind in MERGED_KINDS) + 2 * (kind == "Gather"))


def _output_instances(spec: GraphSpec) -> list[Instance]:
    """The committed outputs' component: a row a committed output element, output after output
    (statement._build_outputs); its topology's boundaries: two an element at most, four an output
    whose map is a range (a boundary tensor: affine, no interior boundary)."""
    outs = [out for out in spec.outputs if out.committed]
    if not outs:
        return []
    rows = sum(len(out.src_indices) for out in outs)
    bound = sum(4 if isinstance(out.src_indices, range) else 2 * len(out.src_indices) for out in outs) + 8
    kind, name = ("BoundaryOutput", "boundary_output") if outs[0].boundary else ("CommittedOutput", "committed_output")
    assert all(out.boundary == outs[0].boundary for out in outs), "a segment commits only its boundary tensors"
    return [Instance(kind, name, tuple(out.node for out in outs), rows, log_size_of(rows), bound)]


def _product_instances(spec: GraphSpec, kinds: tuple[str, ...], matmuls: Mapping[int, MatPlan],
                       pairs: Mapping[int, PairPlan]) -> list[Instance]:
    """The checked products' components: MatIn and MatPair groups (graph/mat_plans.py), then the
    MatOut instances they share, one per variant (bias, weights in limbs), split like the op kinds."""
    indices = [i for i, kind in enumerate(kinds) if kind in ("MatMul", "MatPair")]
    if not indices:
        return []
    products: dict[int, MatPlan | PairPlan] = {**matmuls, **pairs}
    outs: list[Instance] = []
    share: dict[int, tuple[str, int]] = {}  # node -> (its MatOut's tag, the groups before its own)
    # one MatOut a variant for every rounding shift (numeric.node_constant): where its products'
    # shifts differ, each row carries its own (GraphComponent.vary)
    for (bias, split_w), nodes in mat_variant_instances(spec, products, indices):
        for part, members in enumerate(chunks(nodes, split_parts([products[i].out_rows for i in nodes]))):
            shifts = sorted({spec.constant_of(i) for i in members})
            tag = MatOutComponent.tag(bias, split_w, part) + _constant_suffix(spec, "Dot", shifts)
            groups = 0
            for i in members:
                share[i] = (tag, groups)
                groups += products[i].out_rows // products[i].n
            rows = sum(products[i].out_rows for i in members)
            outs.append(Instance("MatOut", tag, tuple(members), rows, log_size_of(rows), 2 * (len(members) + 1) * (len(shifts) > 1),
                                 tag=tag, bias=bias, split_w=split_w, constant=shifts[-1], variable=len(shifts) > 1))
    operands = operand_instances(spec, matmuls, pairs, indices, share)
    out = operands + outs + mat_w_instances(matmuls, indices, share)
    bounds = {i: mat_topology_cost(spec, products[i], i in pairs) for i in indices}
    # each product's bound counts its MatIn or MatPair rows and its share of the MatOut
    return [inst if inst.kind in ("MatOut", "MatW") else replace(inst, boundary_bound=sum(bounds[i] for i in inst.nodes))
            for inst in out]
