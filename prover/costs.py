"""Committed trace cells per AIR component, for `luminair inspect` and the prove summary: each
fused component beside what its primitive decomposition would commit (the verifier never needs
these: they explain the compiler's choices)."""

from __future__ import annotations

from typing import Any

from ..verifier.air.framework import HEADS
from ..verifier.graph.components import MatInComponent, MatOutComponent, MatPairComponent, make_component
from ..verifier.graph.plan import ComponentPlan, component_cells, log_size_of
from ..verifier.graph.planner import GraphPlan, plan_graph
from ..verifier.graph.settings import instantiate
from ..verifier.graph.spec import GraphSpec
from ..verifier.graph.statement import build_components
from ..verifier.graph.topology import MAX_SPARSE_ENTRIES


def plan_cells(graph: GraphPlan, plan: Any, plans: list[Any] | None = None) -> dict[str, int]:
    """component_cells of a planned component; for a fused one also `primitive_cells`, what its
    primitive decomposition would have committed for the same nodes, in components of their own:
    a Dot one Mul and one SumReduce row per product (and an Add row per output with a bias), a
    Relu one LessThan and one Mul row per element. Given all the `plans`, a MatOut (Freivalds-checked
    products) also carries `product_cells`, its own cells and those of the MatIn and MatPair
    components of its nodes, against which the primitives compare."""
    spec = graph.spec
    out = component_cells(plan.component)
    rows: dict[str, int] = {}
    if plan.kind == "MatOut":
        rows = {"Mul": 0, "SumReduce": 0}
        for node in plan.nodes:
            mp = graph.product(node)
            rows["Mul"] += mp.out_rows * mp.k
            rows["SumReduce"] += mp.out_rows * mp.k
            if mp.bias is not None:
                rows["Add"] = rows.get("Add", 0) + mp.out_rows
        if plans is not None:
            partners = [p for p in plans if p.kind in ("MatIn", "MatPair")
                        and p.component.challenges[0] == plan.component.challenges[0]]
            out["product_cells"] = out["cells"] + sum(component_cells(p.component)["cells"] for p in partners)
    elif plan.kind.startswith("Dot"):
        products = sum(graph.rows_of(n) * graph.lanes[n] for n in plan.nodes)
        rows = {"Mul": products, "SumReduce": products}
        if plan.component.bias:
            rows["Add"] = sum(spec.nodes[n].numel for n in plan.nodes)
    elif plan.kind == "Relu":
        rows = {"LessThan": plan.rows, "Mul": plan.rows}
    if rows:
        out["primitive_cells"] = sum(_cells_of(kind, log_size_of(n), spec.scale_bits) for kind, n in rows.items())
    return out


def _cells_of(kind: str, log_size: int, scale_bits: int) -> int:
    comp = make_component(kind, log_size, scale_bits)
    # the column counts do not depend on the sparse columns' values, only on their names
    empty: dict[int, int] = {}
    comp.sparse_columns = {f"d.{c}": empty for c in comp.topology_kinds()} | {"first": empty, "last": empty}
    return component_cells(comp)["cells"]


def boundary_rows(graph: GraphPlan) -> int:
    """The planner's upper bound on the topology's boundary rows (what build_components refuses past
    MAX_SPARSE_ENTRIES, before deriving any of them)."""
    return sum(inst.boundary_bound for inst in graph.instances)


def _bare_plan(graph: GraphPlan, inst: Any) -> ComponentPlan:
    """A planned instance's component as build_components would make it, without its topology
    (its columns do not depend on the topology's values, only on their names): for the cells of a
    graph whose topology is past what a verifier derives."""
    spec, nodes = graph.spec, list(inst.nodes)
    stride_bits = (len(nodes) - 1).bit_length()
    if inst.kind == "MatIn":
        mps = [graph.matmuls[i] for i in nodes]
        log = max(log_size_of(mp.in_rows) for mp in mps) + stride_bits
        comp: Any = MatInComponent(log, spec.scale_bits, mps[0].lanes, nodes, None, mps[0].w_public, inst.tag)
        rows = sum(mp.in_rows for mp in mps)
    elif inst.kind == "MatPair":
        pps = [graph.pairs[i] for i in nodes]
        log = log_size_of(pps[0].pair_rows) + stride_bits
        comp = MatPairComponent(log, spec.scale_bits, pps[0].la, pps[0].lb, nodes, inst.tag)
        rows = sum(pp.pair_rows for pp in pps)
    elif inst.kind == "MatOut":
        rows = sum(graph.product(i).out_rows for i in nodes)
        comp = MatOutComponent(log_size_of(rows), spec.scale_bits, inst.tag, inst.bias, inst.split_w)
    else:
        comp = make_component(inst.kind, inst.log_size, spec.scale_bits)
        comp.name, rows = inst.name, inst.rows
    empty: dict[int, int] = {}
    comp.sparse_columns = {f"d.{c}": empty for c in comp.topology_kinds()} | {"first": empty, "last": empty,
                                                                               "kstart": empty}
    if getattr(comp, "stride", 1) > 1:  # interleaved nodes: their anchors and heads
        comp.sparse_columns |= {f"a.{c}": empty for c in comp.topology_kinds()} | {HEADS: empty}
    if graph.limb_bits != 8:
        comp.use_limbs(graph.limb_bits)
    return ComponentPlan(inst.kind, nodes, rows, comp, [], inst)


def components_summary(spec: GraphSpec) -> list[dict[str, Any]]:
    """Every component of the graph's AIR with its rows and cells (a symbolic graph: at its symbols'
    lower bounds, as graph_summary shows it). A graph whose topology needs more boundary rows than
    a verifier derives (MAX_SPARSE_ENTRIES: it can be compiled, not verified) is counted from its
    components built without their topology."""
    if spec.is_template:
        spec = instantiate(spec, tuple(s.lo for s in spec.symbols))
    graph = plan_graph(spec)
    if boundary_rows(graph) > MAX_SPARSE_ENTRIES:
        plans = [_bare_plan(graph, inst) for inst in graph.instances]
    else:
        plans = build_components(graph)
    return [{"component": p.component.name, "nodes": len(p.nodes), "rows": p.rows, "log_size": p.component.log_size,
             **plan_cells(graph, p, plans)} for p in plans]
