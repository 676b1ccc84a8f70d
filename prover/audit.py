"""`luminair audit MODEL SETTINGS`: does settings.bin commit to this model's weights?

A settings.bin of committed weights holds the model tree's root instead of the weights
(docs/committed-models.md). The root is canonical: the weights' fixed-point values, laid out as the
graph's plan lays out its committed component, extended with the settings' log blowup and hashed
as every trace tree is. So anyone holding the weights recomputes it: load the model, compile it as
`luminair prove` does, give every node the scale settings.bin names, and compare first the graph
body (its structure, scales and public constants), then the root."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..verifier.formats import Writer
from ..verifier.graph.settings import write_graph
from ..verifier.graph.planner import plan_graph
from ..verifier.graph.statement import build_graph_air
from ..verifier.statement import read_settings
from .air.graph_trace import build_spec, model_columns
from .stark.prove import commit_preprocessed


@dataclass
class AuditResult:
    matches: bool
    detail: str
    model_root: str | None = None  # settings.bin's (hex)
    recomputed_root: str | None = None


def _body(spec: Any) -> bytes:
    w = Writer()
    write_graph(w, spec, labels=False)
    return w.bytes()


def audit(graph: Any, settings_bytes: bytes) -> AuditResult:
    """Whether `settings_bytes` commits to the weights of `graph` (a compiled Graph)."""
    settings = read_settings(settings_bytes)
    body = settings.body
    if body.is_template:
        return AuditResult(False, "settings.bin holds a symbolic graph; committed weights are for a fixed graph")
    if not body.committed:
        return AuditResult(False, "settings.bin holds its weights in public (no model root to audit)")
    root = body.model_root.hex()
    if len(graph.nodes()) == len(body.nodes):
        graph.set_scales({i: body.scale_of(i) for i in range(len(body.nodes))})
    spec = build_spec(graph, weights="committed")
    mine, theirs = _body(spec), _body(body)
    if mine != theirs:
        where = _first_difference(spec, body)
        return AuditResult(False, f"the model does not compile to settings.bin's graph ({where}): "
                                  "another model, or other compile options (--no-search)", root)
    spec.model_root, spec.model_log_blowup = body.model_root, body.model_log_blowup
    air, plans = build_graph_air(spec, body.model_log_blowup)
    (tree,) = [t for t in air.preprocessed if t.statement and not t.proof_root]
    recomputed = commit_preprocessed(tree, model_columns(plans, spec, plan_graph(spec)), body.model_log_blowup).root.hex()
    if recomputed != root:
        return AuditResult(False, "settings.bin's model root is not the commitment of these weights "
                                  f"(recomputed {recomputed[:16]}..., settings.bin has {root[:16]}...)", root, recomputed)
    n = sum(node.numel for node in spec.nodes if node.committed)
    return AuditResult(True, f"settings.bin's model root commits to these weights ({n} committed values)", root, recomputed)


def _first_difference(a: Any, b: Any) -> str:
    if len(a.nodes) != len(b.nodes):
        return f"{len(a.nodes)} nodes against {len(b.nodes)}"
    for i, (x, y) in enumerate(zip(a.nodes, b.nodes)):
        if (x.op, x.shape, x.scale, x.committed) != (y.op, y.shape, y.scale, y.committed) or \
                [s[0] for s in x.srcs] != [s[0] for s in y.srcs] or (not x.committed and x.values != y.values):
            return f"node {i}: {x.op} {x.shape} against {y.op} {y.shape}"
    return "inputs, outputs or numeric format"


def output_digest(settings_bytes: bytes, outputs: dict[str, Any]) -> str:
    """The output digest (hex) a proof under `settings_bytes` reports for these committed outputs
    (real values, by output name): the root of the output tree their fixed-point values make."""
    import numpy as np

    from ..verifier.numeric import NumericFormat
    from .graph.execute import quantize_checked

    settings = read_settings(settings_bytes)
    spec = settings.body
    outs = [out for out in spec.outputs if out.committed]
    if not outs:
        raise ValueError("settings.bin has no committed output")
    air, plans = build_graph_air(spec, settings.config.log_blowup)
    (plan,) = [p for p in plans if p.kind == "CommittedOutput"]
    col = np.zeros(1 << plan.component.log_size, dtype=np.int64)
    for out, seg in zip(outs, plan.segments):
        if out.name not in outputs:
            raise ValueError(f"committed output {out.name!r}: no values given")
        x = np.asarray(outputs[out.name], dtype=np.float64).reshape(-1)
        if x.size != seg.rows:
            raise ValueError(f"committed output {out.name!r}: {x.size} values for shape {tuple(out.shape)}")
        col[seg.start : seg.start + seg.rows] = quantize_checked(
            f"output {out.name!r}", tuple(out.shape), x, NumericFormat(spec.scale_bits), spec.scale_of(out.node))
    (tree,) = [t for t in air.preprocessed if t.name == "output"]
    return commit_preprocessed(tree, {f"{plan.component.name}.v": col}, settings.config.log_blowup).root.hex()


def input_digest(settings_bytes: bytes, inputs: dict[str, Any]) -> str:
    """The input digest (hex) a proof under `settings_bytes` reports for these committed inputs (real
    values, by input name): the root of the input tree their fixed-point values make, laid out as
    the settings' plan lays out its committed inputs and extended with the settings' log blowup."""
    import numpy as np

    from ..verifier.numeric import NumericFormat
    from .air.graph_trace import input_columns
    from .graph.execute import quantize_checked

    settings = read_settings(settings_bytes)
    spec = settings.body
    nodes = spec.committed_inputs
    if not nodes:
        raise ValueError("settings.bin has no committed input")
    names = {inp.node: inp.name for inp in spec.inputs}
    values = {}
    for node in nodes:
        name = names[node]
        if name not in inputs:
            raise ValueError(f"committed input {name!r}: no values given")
        shape = spec.nodes[node].shape
        x = np.asarray(inputs[name], dtype=np.float64).reshape(-1)
        if x.size != spec.nodes[node].numel:
            raise ValueError(f"committed input {name!r}: {x.size} values for shape {shape}")
        values[node] = quantize_checked(f"input {name!r}", shape, x, NumericFormat(spec.scale_bits), spec.scale_of(node))
    air, plans = build_graph_air(spec, settings.config.log_blowup)
    (tree,) = [t for t in air.preprocessed if t.name == "input"]
    return commit_preprocessed(tree, input_columns(plans, values), settings.config.log_blowup).root.hex()
