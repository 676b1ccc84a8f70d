"""A readable summary of a graph statement (for `luminair inspect` and the widget's graph view)."""

from __future__ import annotations

from typing import Any

from ..numeric import NumericFormat
from .spec import GraphSpec, is_identity_map
from .statement import plan_components


def model_digest(spec: GraphSpec) -> bytes:
    """The model's identity: BLAKE2s of the graph body without the publisher's labels (title,
    description, node names): graph, views, weights, numeric format, input/output names and maps."""
    import hashlib

    from ..formats import Writer
    from .settings import write_graph

    w = Writer()
    write_graph(w, spec, labels=False)
    h = hashlib.blake2s(b"luminair model v2")
    for part in w.parts:  # part by part: no copy of the whole body (a weight tensor is one part)
        h.update(part)
    return h.digest()


def component_cells(comp: Any) -> dict[str, int]:
    """Committed cells of one component's trace: padded rows times its main, topology and LogUp
    interaction columns (the table components are not counted)."""
    from ..air.framework import component_info

    info = component_info(comp)
    columns = {
        "main_columns": len(comp.main_columns),
        "topology_columns": len(comp.topology_columns()) if hasattr(comp, "topology_columns") else 0,
        "interaction_columns": 4 * (info.n_batches + len(comp.aux_columns)),
    }
    return {**columns, "cells": (1 << comp.log_size) * sum(columns.values())}


def air_cells(air: Any) -> int:
    """Committed cells of every component's trace, the tables' included (what a preset's blowup is
    sized by: verifier/config.preset_config)."""
    return sum(component_cells(comp)["cells"] for comp in air.components)


def plan_cells(spec: GraphSpec, plan: Any, plans: list[Any] | None = None) -> dict[str, int]:
    """component_cells of a planned component; for a fused one also `primitive_cells`, what its
    primitive decomposition would have committed for the same nodes, in components of their own:
    a Dot one Mul and one SumReduce row per product (and an Add row per output with a bias), a
    Relu one LessThan and one Mul row per element. Given all the `plans`, a MatOut (Freivalds-checked
    products) also carries `product_cells`, its own cells and those of the MatIn and MatPair
    components of its nodes, against which the primitives compare."""
    from .plan import log_size_of as _log_size

    out = component_cells(plan.component)
    rows: dict[str, int] = {}
    if plan.kind == "MatOut":
        rows = {"Mul": 0, "SumReduce": 0}
        for node in plan.nodes:
            mp = spec.matmuls().get(node) or spec.pairs()[node]
            rows["Mul"] += mp.out_rows * mp.k
            rows["SumReduce"] += mp.out_rows * mp.k
            if mp.bias is not None:
                rows["Add"] = rows.get("Add", 0) + mp.out_rows
        if plans is not None:
            partners = [p for p in plans if p.kind in ("MatIn", "MatPair")
                        and p.component.challenges[0] == plan.component.challenges[0]]
            out["product_cells"] = out["cells"] + sum(component_cells(p.component)["cells"] for p in partners)
    elif plan.kind.startswith("Dot"):
        products = sum(spec.rows_of(n) * spec.lanes(n) for n in plan.nodes)
        rows = {"Mul": products, "SumReduce": products}
        if plan.component.bias:
            rows["Add"] = sum(spec.nodes[n].numel for n in plan.nodes)
    elif plan.kind == "Relu":
        rows = {"LessThan": plan.rows, "Mul": plan.rows}
    if rows:
        out["primitive_cells"] = sum(_cells_of(kind, _log_size(n), spec.scale_bits) for kind, n in rows.items())
    return out


def _cells_of(kind: str, log_size: int, scale_bits: int) -> int:
    from .components import make_component

    comp = make_component(kind, log_size, scale_bits)
    # the column counts do not depend on the sparse columns' values, only on their names
    empty: dict[int, int] = {}
    comp.sparse_columns = {f"d.{c}": empty for c in comp.topology_kinds()} | {"first": empty, "last": empty}
    return component_cells(comp)["cells"]


def describe_steps(steps: tuple) -> str:
    return " | ".join(f"{kind}{tuple(arg)}" for kind, arg in steps) or "identity"


def graph_summary(spec: GraphSpec) -> dict[str, Any]:
    if spec.is_template:
        return _template_summary(spec)
    nodes = []
    edges = []
    for i, node in enumerate(spec.nodes):
        label = node.op
        if node.op in ("SumReduce", "MaxReduce", "Dot"):
            label += f"(axis={node.axis})"
        if node.name:
            label += f" {node.name}"
        nodes.append({"id": i, "op": node.op, "label": label, "shape": list(node.shape),
                      "private": node.private if node.op == "Input" else None})
        for src, _, _ in node.srcs:
            edges.append([src, i])
    plans = plan_components(spec)
    fmt = NumericFormat(spec.scale_bits)
    return {
        "title": spec.title,
        "description": spec.description,
        "model_digest": model_digest(spec).hex(),
        "numeric_format": {"scale_bits": spec.scale_bits, "description": fmt.describe()},
        "graph": {"nodes": nodes, "edges": edges},
        "inputs": [
            {"name": i.name, "node": i.node, "shape": list(spec.nodes[i.node].shape),
             "private": spec.nodes[i.node].private}
            for i in spec.inputs
        ],
        "outputs": [
            {"name": o.name, "node": o.node, "shape": list(o.shape), "source_op": spec.nodes[o.node].op,
             "source_name": spec.nodes[o.node].name, "view": describe_steps(o.steps),
             "index_map": "identity" if is_identity_map(spec, o) else list(o.src_indices)}
            for o in spec.outputs
        ],
        "components": [
            {"component": p.component.name, "nodes": len(p.nodes), "rows": p.rows, "log_size": p.component.log_size,
             **plan_cells(spec, p, plans)}
            for p in plans
        ],
        "weights": sum(n.numel for n in spec.nodes if n.op == "Constant"),
    }


def _template_summary(template: GraphSpec) -> dict[str, Any]:
    """A graph with symbolic dimensions: its shapes as expressions, its components and cells at the
    symbols' lower bounds (labelled so)."""
    from .settings import instantiate
    from .symbols import describe_dims

    at = tuple(s.lo for s in template.symbols)
    out = graph_summary(instantiate(template, at))
    sym, exprs = template.symbols, template.exprs
    for node, entry in zip(template.nodes, out["graph"]["nodes"]):
        entry["shape"] = describe_dims(node.shape, exprs, sym)
    for inp in out["inputs"]:
        inp["shape"] = describe_dims(template.nodes[inp["node"]].shape, exprs, sym)
    for o, t in zip(out["outputs"], template.outputs):
        if not t.steps:  # an output reading its node whole has the node's (symbolic) shape
            o["shape"] = describe_dims(template.nodes[t.node].shape, exprs, sym)
    out["model_digest"] = model_digest(template).hex()
    out["symbols"] = [{"name": s.name, "min": s.lo, "max": s.hi} for s in sym]
    out["components_at"] = {s.name: v for s, v in zip(sym, at)}
    return out
