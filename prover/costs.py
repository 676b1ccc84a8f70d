"""Committed trace cells per AIR component, for `luminair inspect` and the prove summary: each
fused component beside what its primitive decomposition would commit (the verifier never needs
these: they explain the compiler's choices)."""

from __future__ import annotations

from typing import Any

from ..verifier.graph.components import make_component
from ..verifier.graph.plan import component_cells, log_size_of
from ..verifier.graph.planner import GraphPlan, plan_graph
from ..verifier.graph.settings import instantiate
from ..verifier.graph.spec import GraphSpec
from ..verifier.graph.statement import build_components


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


def components_summary(spec: GraphSpec) -> list[dict[str, Any]]:
    """Every component of the graph's AIR with its rows and cells (a symbolic graph: at its symbols'
    lower bounds, as graph_summary shows it)."""
    if spec.is_template:
        spec = instantiate(spec, tuple(s.lo for s in spec.symbols))
    graph = plan_graph(spec)
    plans = build_components(graph)
    return [{"component": p.component.name, "nodes": len(p.nodes), "rows": p.rows, "log_size": p.component.log_size,
             **plan_cells(graph, p, plans)} for p in plans]
