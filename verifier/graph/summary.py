"""A readable summary of a graph statement (for `luminair inspect` and the widget's graph view):
the graph, its inputs and outputs with their maps, its identity. Nothing here builds the AIR (the
prover's inspect adds the components and their cells: prover/costs.py)."""

from __future__ import annotations

from typing import Any

from ..budget import WorkMeter

from ..numeric import NumericFormat
from .settings import charge_template, instantiate, model_digest
from .spec import GraphSpec, is_identity_map
from .symbols import describe_dims


def describe_steps(steps: tuple) -> str:
    return " | ".join(f"{kind}{tuple(arg)}" for kind, arg in steps) or "identity"


def graph_summary(spec: GraphSpec, meter: WorkMeter | None = None) -> dict[str, Any]:
    """`meter` (the summary's work budget) is charged for a template's instantiation before it runs."""
    if spec.is_template:
        return _template_summary(spec, meter)
    nodes = []
    edges = []
    for i, node in enumerate(spec.nodes):
        label = node.op
        if node.op in ("SumReduce", "MaxReduce", "Dot"):
            label += f"(axis={node.axis})"
        if node.name:
            label += f" {node.name}"
        nodes.append({"id": i, "op": node.op, "label": label, "shape": list(node.shape),
                      "private": node.private if node.op == "Input" else None, "scale_bits": spec.scale_of(i)})
        for src, _, _ in node.srcs:
            edges.append([src, i])
    fmt = NumericFormat(spec.scale_bits)
    scales: dict[int, int] = {}
    for i in range(len(spec.nodes)):
        scales[spec.scale_of(i)] = scales.get(spec.scale_of(i), 0) + 1
    description = fmt.describe() if len(scales) == 1 else (
        f"fixed point, a scale per tensor: {', '.join(f'2^{s} ({n} nodes)' for s, n in sorted(scales.items()))}; "
        f"function tables at 2^{spec.scale_bits}")
    return {
        "title": spec.title,
        "description": spec.description,
        "model_digest": model_digest(spec).hex(),
        "numeric_format": {"scale_bits": spec.scale_bits, "description": description,
                           "node_scales": {str(s): n for s, n in sorted(scales.items())}},
        "graph": {"nodes": nodes, "edges": edges},
        "inputs": [
            {"name": i.name, "node": i.node, "shape": list(spec.nodes[i.node].shape),
             "private": spec.nodes[i.node].private, "index": spec.nodes[i.node].index}
            for i in spec.inputs
        ],
        "outputs": [
            {"name": o.name, "node": o.node, "shape": list(o.shape), "source_op": spec.nodes[o.node].op,
             "source_name": spec.nodes[o.node].name, "view": describe_steps(o.steps), "scale_bits": spec.scale_of(o.node),
             "index_map": "identity" if is_identity_map(spec, o) else list(o.src_indices)}
            for o in spec.outputs
        ],
        "weights": sum(n.numel for n in spec.nodes if n.op == "Constant"),
    }


def _template_summary(template: GraphSpec, meter: WorkMeter | None) -> dict[str, Any]:
    """A graph with symbolic dimensions: its shapes as expressions, and its graph at the symbols'
    lower bounds (labelled so)."""
    at = tuple(s.lo for s in template.symbols)
    if meter is not None:
        charge_template(meter, template)
    out = graph_summary(instantiate(template, at, meter))
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
