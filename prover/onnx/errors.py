"""Errors of the ONNX importer."""

from __future__ import annotations

from luminair.prover.graph.errors import GraphError


class OnnxImportError(GraphError):
    """A model the importer cannot turn into a graph (names the ONNX node)."""


class UnsupportedOnnxError(OnnxImportError):
    """Every unsupported node of a model, listed at once.

    ``nodes`` holds (op_type, node name, [(input name, shape or None), ...]) per unsupported node,
    ``reasons`` why each one is refused ("unsupported", or why the op has no tensor meaning)."""

    def __init__(self, nodes: list[tuple[str, str, list[tuple[str, tuple | None]]]], reasons: list[str] | None = None):
        self.nodes = nodes
        self.reasons = list(reasons) if reasons is not None else ["unsupported"] * len(nodes)
        lines = [f"the ONNX model has {len(nodes)} unsupported node(s):"]
        for (op_type, name, ins), why in zip(nodes, self.reasons):
            shapes = ", ".join(f"{i} {'?' if s is None else s}" for i, s in ins) or "none"
            lines.append(f"  - {op_type} node {name!r} (inputs: {shapes})" + ("" if why == "unsupported" else f": {why}"))
        super().__init__("\n".join(lines))
