"""Audit a settings.bin: recompute everything it derives from its own graph and weights.

A verifier takes the model commitment (the root of the preprocessed topology and weight columns)
and the public-input fan-outs from settings.bin, as part of the model's identity (its digest). This
audit checks that they really are what the graph and weights in the same file imply, so a settings
file whose commitment disagrees with the graph it displays is caught. It needs numpy (prover side).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..verifier.errors import VerificationError
from ..verifier.graph.spec import GraphSpec, view_shape
from ..verifier.graph.statement import build_graph_air
from ..verifier.numeric import NumericFormat
from ..verifier.statement import KIND_GRAPH, read_settings
from .air.graph_trace import fanouts, preprocessed_columns
from .graph.shape import ShapeTracker
from .stark.prove import commit_preprocessed


class _Op:
    def __init__(self, value: str) -> None:
        self.value = value


@dataclass(eq=False)
class _Node:
    id: int
    op: _Op
    shape: tuple[int, ...]
    axis: int | None
    srcs: list[tuple["_Node", ShapeTracker]] = field(default_factory=list)
    raw: np.ndarray | None = None
    raw_scale: int | None = None
    private: bool = False
    name: str = ""

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


class _IndexView:
    def __init__(self, shape: tuple[int, ...], indices: list[int]) -> None:
        self.shape = shape
        self._idx = np.array(indices, dtype=np.int64)

    def src_indices(self) -> np.ndarray:
        return self._idx


class SpecGraph:
    """The parts of a Graph that trace layout needs, rebuilt from a GraphSpec."""

    def __init__(self, spec: GraphSpec) -> None:
        self.numeric_format = NumericFormat(spec.scale_bits)
        self._nodes: list[_Node] = []
        for i, n in enumerate(spec.nodes):
            node = _Node(i, _Op(n.op), tuple(n.shape), n.axis, private=n.private, name=n.name)
            for src, src_shape, steps in n.srcs:
                node.srcs.append((self._nodes[src], ShapeTracker(src_shape, tuple(steps), view_shape(src_shape, steps))))
            if n.op == "Constant":
                node.raw = np.array(n.values, dtype=np.int64)
                node.raw_scale = spec.scale_bits
            self._nodes.append(node)
        self._outputs = OrderedDict(
            (o.name, (self._nodes[o.node], _IndexView(tuple(o.shape), o.src_indices))) for o in spec.outputs
        )
        self._inputs = OrderedDict((i.name, self._nodes[i.node]) for i in spec.inputs)

    def nodes(self) -> list[_Node]:
        return list(self._nodes)

    def node(self, i: int) -> _Node:
        return self._nodes[i]

    def outputs(self) -> "OrderedDict[str, Any]":
        return self._outputs

    def inputs(self) -> "OrderedDict[str, Any]":
        return self._inputs


def audit_settings(data: bytes) -> tuple[bool, str]:
    """(ok, one-line message)."""
    try:
        settings = read_settings(data)
    except VerificationError as e:
        return False, f"not auditable: {e.message}"
    if settings.kind != KIND_GRAPH:
        return True, "example AIR statement: nothing model-specific to audit (its tables are recomputed by the verifier)"
    spec: GraphSpec = settings.body
    graph = SpecGraph(spec)
    fan = fanouts(graph)
    for inp in spec.inputs:
        if not spec.nodes[inp.node].private and list(fan[inp.node]) != list(inp.fanout):
            return False, f"audit failed: the fan-out of input {inp.name!r} does not match the graph"
    air, plans = build_graph_air(spec, settings.config.log_blowup)
    pre = preprocessed_columns(graph, plans)
    root = commit_preprocessed(air.preprocessed[0], pre, settings.config.log_blowup).root
    if root != spec.model_root:
        return False, (
            f"audit failed: the model commitment in settings.bin ({spec.model_root.hex()[:16]}...) is not the "
            f"commitment of its graph and weights ({root.hex()[:16]}...)"
        )
    n_weights = sum(n.numel for n in spec.nodes if n.op == "Constant")
    return True, (
        f"audit passed: model {settings.digest.hex()} commits exactly its graph of {len(spec.nodes)} nodes "
        f"and {n_weights} weights"
    )
