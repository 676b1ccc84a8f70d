"""A readable summary of a graph statement (for `luminair inspect` and the widget's graph view)."""

from __future__ import annotations

from typing import Any

from ..numeric import NumericFormat
from .spec import GraphSpec
from .statement import plan_components


def graph_summary(spec: GraphSpec) -> dict[str, Any]:
    nodes = []
    edges = []
    for i, node in enumerate(spec.nodes):
        label = node.op
        if node.op in ("SumReduce", "MaxReduce"):
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
        "numeric_format": {"scale_bits": spec.scale_bits, "description": fmt.describe()},
        "model_root": spec.model_root.hex(),
        "graph": {"nodes": nodes, "edges": edges},
        "inputs": [
            {"name": i.name, "node": i.node, "shape": list(spec.nodes[i.node].shape),
             "private": spec.nodes[i.node].private}
            for i in spec.inputs
        ],
        "outputs": [{"name": o.name, "node": o.node, "shape": list(o.shape)} for o in spec.outputs],
        "components": [
            {"component": p.component.name, "nodes": len(p.nodes), "rows": p.rows, "log_size": p.component.log_size}
            for p in plans
        ],
        "weights": sum(n.numel for n in spec.nodes if n.op == "Constant"),
    }
