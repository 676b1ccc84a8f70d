"""Helpers shared by the ONNX op handlers.

Handlers see at least one graph tensor among their inputs: a node whose inputs are all static
(initializers, Constant nodes, shapes, folded shape arithmetic) is computed while importing
(importer.fold_static), so no handler repeats numpy versions of its op.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from luminair.prover.graph import GraphTensor

from .errors import OnnxImportError
from .table import Handler, Value

if TYPE_CHECKING:
    from .importer import Importer, OnnxNode


def shape_of(v: Value) -> tuple[int, ...]:
    return tuple(int(d) for d in v.shape)


def norm_axis(axis: int, ndim: int, node: "OnnxNode") -> int:
    if not -ndim <= axis < ndim:
        raise OnnxImportError(f"{node.describe()}: axis {axis} out of range for rank {ndim}")
    return axis % ndim


def text_attr(node: "OnnxNode", name: str, default: str) -> str:
    v = node.attrs.get(name, default)
    return v.decode() if isinstance(v, bytes) else str(v)


def optional_input(node: "OnnxNode", index: int) -> str | None:
    return node.inputs[index] if len(node.inputs) > index and node.inputs[index] else None


def static_ints(im: "Importer", node: "OnnxNode", index: int, what: str) -> list[int] | None:
    """The static integer input ``index`` as a list, or None when it is absent."""
    name = optional_input(node, index)
    if name is None:
        return None
    return [int(v) for v in im.static(name, node, what).reshape(-1)]


def axes_of(im: "Importer", node: "OnnxNode", index: int = 1) -> list[int] | None:
    """``axes``: an attribute in early opsets, a static input later."""
    if "axes" in node.attrs:
        return [int(a) for a in node.attrs["axes"]]
    return static_ints(im, node, index, "axes")


def static_float(im: "Importer", node: "OnnxNode", index: int, what: str) -> float | None:
    name = optional_input(node, index)
    if name is None:
        return None
    v = im.static(name, node, what)
    if v.size != 1:
        raise OnnxImportError(f"{node.describe()}: {what} ({name!r}) must be a single value, got shape {v.shape}")
    return float(v.reshape(-1)[0])


def legacy_broadcast(im: "Importer", node: "OnnxNode", a: Value, b: Value) -> Value:
    """Before opset 7, Add/Sub/Mul/Div/Gemm with broadcast=1 and an ``axis`` align b's axes with a's
    starting at ``axis`` (later opsets broadcast like numpy); b is reshaped to that alignment."""
    if im.opset >= 7 or not node.attrs.get("broadcast", 0) or "axis" not in node.attrs:
        return b
    ra, rb = len(shape_of(a)), len(shape_of(b))
    axis = norm_axis(int(node.attrs["axis"]), ra, node)
    if axis + rb > ra:
        raise OnnxImportError(f"{node.describe()}: cannot align a {rb}-D operand at axis {axis} of a {ra}-D one")
    return b.reshape(shape_of(b) + (1,) * (ra - axis - rb))


def unary(graph_fn: Callable[[GraphTensor], GraphTensor]) -> Handler:
    def fn(im: "Importer", node: "OnnxNode") -> list[Value]:
        return [graph_fn(im.tensor(node.inputs[0]))]

    return fn


def binary(graph_fn: Callable[[GraphTensor, Any], GraphTensor], static_rhs: bool = False) -> Handler:
    """A two-input elementwise op; a static left operand becomes a named constant, a static right
    one too unless ``static_rhs`` (the op takes the array itself, e.g. Div by a constant)."""

    def fn(im: "Importer", node: "OnnxNode") -> list[Value]:
        a = im.tensor(node.inputs[0])
        bv = im.value(node.inputs[1])
        if not (static_rhs and isinstance(bv, np.ndarray)):
            bv = im.tensor(node.inputs[1])
        return [graph_fn(a, legacy_broadcast(im, node, a, bv))]

    return fn


def variadic(fold: Callable[[GraphTensor, GraphTensor], GraphTensor]) -> Handler:
    """An n-ary elementwise op (numpy broadcasting) folded left to right."""

    def fn(im: "Importer", node: "OnnxNode") -> list[Value]:
        names = [n for n in node.inputs if n]
        if not names:
            raise OnnxImportError(f"{node.describe()}: needs at least one input")
        tensors = [im.tensor(n) for n in names]
        out = tensors[0]
        for t in tensors[1:]:
            out = fold(out, t)
        return [out]

    return fn
