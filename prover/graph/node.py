"""Immutable graph nodes.

A node is one primitive op applied to views of earlier nodes. Nodes never change; a compiler pass
builds new nodes and the graph swaps them in (ids are renumbered densely in topological order after
every compile, and stay stable until the next one).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .ops import GroupOp, Op
from .shape import Shape, ShapeTracker, prod


@dataclass(frozen=True, eq=False, slots=True)
class Node:
    """One primitive op.

    * ``srcs``: ``(source_node, view)`` pairs; ``view`` maps the source's output to this input.
    * ``shape``: the output shape; for reductions the reduced ``axis`` of the input is removed.
    * ``name``: the user's or ONNX name of the value (inputs, constants, named ONNX tensors).
    * ``private``: inputs only; public by default.
    * ``index``: inputs only: integers (token ids) that only Gather nodes read, not fixed-point values.
    * ``value``: constants only, the float64 array (shape ``shape``), read-only.
    * ``raw`` / ``raw_scale``: a constant made by constant folding keeps the exact fixed-point
      result of the folded ops (int64, shape ``shape``) at scale ``raw_scale``; the fixed-point
      executor uses it instead of quantizing ``value``, so folding never changes exact results.
    * ``origin``: the user code line / high-level op / ONNX node that built it (for errors).
    * ``scale``: its values' scale 2^scale (None: the graph's numeric format); calibration sets it
      per node (prover/graph/calibrate.py), the rules in verifier/numeric.node_constant.
    """

    id: int
    op: Op
    srcs: tuple[tuple["Node", ShapeTracker], ...]
    shape: Shape
    axis: int | None = None
    name: str | None = None
    private: bool = False
    value: np.ndarray | None = None
    raw: np.ndarray | None = None
    raw_scale: int | None = None
    origin: str | None = None
    index: bool = False
    scale: int | None = None

    @property
    def numel(self) -> int:
        return prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def label(self) -> str:
        """Short text: 'SumReduce(axis=1)', 'Input x', 'Constant w'."""
        text = self.op.value
        if self.op in GroupOp.AXIS:
            text += f"(axis={self.axis})"
        if self.name:
            text += f" {self.name!r}"
        return text

    def where(self) -> str:
        """'node 12 (Add, built at model.py:3: y = x + b)' for error messages."""
        parts = [f"{self.op.value} node {self.id}"]
        if self.name:
            parts.append(f"{self.name!r}")
        if self.origin:
            parts.append(f"({self.origin})")
        return " ".join(parts)

    def replace(self, **changes) -> "Node":
        """dataclasses.replace without its per-call field introspection (compiles make tens of
        thousands of nodes): every field copied unless changed; an unknown field is a TypeError."""
        new = object.__new__(Node)
        for name in _FIELDS:
            object.__setattr__(new, name, changes.pop(name) if name in changes else getattr(self, name))
        if changes:
            raise TypeError(f"Node has no field(s) {sorted(changes)}")
        return new

    def __repr__(self) -> str:
        srcs = ", ".join(f"{s.id}" + ("" if v.is_identity() else "'") for s, v in self.srcs)
        return f"<Node {self.id} {self.label()} {self.shape} <- [{srcs}]>"


_FIELDS = tuple(f.name for f in fields(Node))


def reduced_shape(shape: Shape, axis: int) -> Shape:
    return shape[:axis] + shape[axis + 1:]


def check_node(node: Node) -> None:
    """Raise ValueError when a node breaks the invariants the executors and the prover rely on."""
    op, srcs = node.op, node.srcs
    for src, view in srcs:
        if view.src_shape != src.shape:
            raise ValueError(f"{node.where()}: view of source {src.id} expects {view.src_shape}, source is {src.shape}")
    if node.index and op is not Op.INPUT:
        raise ValueError(f"{node.where()}: only an input can hold indices")
    if any(src.index for src, _ in srcs) and op is not Op.GATHER:
        raise ValueError(f"{node.where()}: reads an index input; only a Gather (embedding) may")
    if op is Op.GATHER:
        (table, tv), (ids, iv) = srcs if len(srcs) == 2 else ((None, None), (None, None))
        if table is None or table.op is not Op.CONSTANT or table.ndim != 2 or not tv.is_identity():
            raise ValueError(f"{node.where()}: a Gather reads a (rows, width) constant table, unchanged")
        if not ids.index or not iv.is_identity():
            raise ValueError(f"{node.where()}: a Gather reads an index input (integers), unchanged")
        if node.shape != (*ids.shape, table.shape[1]):
            raise ValueError(f"{node.where()}: a Gather of {table.shape} at {ids.shape} has shape {(*ids.shape, table.shape[1])}")
    elif op in GroupOp.SOURCE:
        if srcs:
            raise ValueError(f"{node.where()}: {op.value} takes no sources")
        if op is Op.CONSTANT and (node.value is None or node.value.shape != node.shape):
            raise ValueError(f"{node.where()}: constant value must be an array of shape {node.shape}")
    elif op in GroupOp.UNARY:
        if len(srcs) != 1 or srcs[0][1].shape != node.shape:
            raise ValueError(f"{node.where()}: unary op needs one source of shape {node.shape}")
    elif op in GroupOp.BINARY:
        if len(srcs) != 2 or any(v.shape != node.shape for _, v in srcs):
            raise ValueError(f"{node.where()}: binary op needs two sources of shape {node.shape}")
    elif op in GroupOp.AXIS:
        counts = (2, 3) if op in GroupOp.CONTRACT else (1,)
        if len(srcs) not in counts or node.axis is None:
            raise ValueError(f"{node.where()}: {op.value} needs {' or '.join(map(str, counts))} source(s) and an axis")
        if op in GroupOp.CONTRACT and srcs[0][1].shape != srcs[1][1].shape:
            raise ValueError(f"{node.where()}: {op.value} needs two operands of one shape")
        if op in GroupOp.CONTRACT and len(srcs) == 3 and srcs[2][1].shape != node.shape:
            raise ValueError(f"{node.where()}: {op.value}'s bias must have the output's shape {node.shape}")
        in_shape = srcs[0][1].shape
        if not 0 <= node.axis < len(in_shape) or reduced_shape(in_shape, node.axis) != node.shape:
            raise ValueError(f"{node.where()}: reducing axis {node.axis} of {in_shape} does not give {node.shape}")
