"""ONNX op handlers: each turns one ONNX node into graph values.

A value is a GraphTensor, or a numpy array when it is known while importing (initializers,
Constant nodes, shapes): shape and index inputs must be such static values, and ops on static
values are computed at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from luminair.prover import graph as G
from luminair.prover.graph import GraphTensor

from .errors import OnnxImportError

if TYPE_CHECKING:
    from .importer import Importer, OnnxNode

Value = GraphTensor | np.ndarray
Handler = Callable[["Importer", "OnnxNode"], list[Value]]
HANDLERS: dict[str, Handler] = {}


def handler(*names: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        for n in names:
            HANDLERS[n] = fn
        return fn

    return deco


def _shape(v: Value) -> tuple[int, ...]:
    return tuple(v.shape)


def _norm_axis(axis: int, ndim: int, node: "OnnxNode") -> int:
    if not -ndim <= axis < ndim:
        raise OnnxImportError(f"{node.describe()}: axis {axis} out of range for rank {ndim}")
    return axis % ndim


# -- plumbing ------------------------------------------------------------------------------------


@handler("Identity")
def _identity(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [im.value(node.inputs[0])]


@handler("Constant")
def _constant(im: "Importer", node: "OnnxNode") -> list[Value]:
    a = node.attrs
    if "value" in a:
        return [im.to_numpy(a["value"])]
    for key, dtype in (("value_float", np.float64), ("value_floats", np.float64),
                       ("value_int", np.int64), ("value_ints", np.int64)):
        if key in a:
            return [np.asarray(a[key], dtype=dtype)]
    raise OnnxImportError(f"{node.describe()}: only tensor/float/int constants are supported")


@handler("Shape")
def _shape_op(im: "Importer", node: "OnnxNode") -> list[Value]:
    shape = np.asarray(_shape(im.value(node.inputs[0])), dtype=np.int64)
    start, end = node.attrs.get("start", 0), node.attrs.get("end", None)
    return [shape[start:end]]


@handler("Cast")
def _cast(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.value(node.inputs[0])
    if isinstance(v, np.ndarray):
        import onnx.helper

        return [v.astype(onnx.helper.tensor_dtype_to_np_dtype(node.attrs["to"]))]
    return [v]  # values are real numbers in the graph; a cast of a tensor changes nothing


# -- elementwise -----------------------------------------------------------------------------------


def _binary(np_fn: Callable, graph_fn: Callable, static_rhs: bool = False) -> Handler:
    """Static operands become named constants, except a static right operand when static_rhs
    (Div by a constant multiplies by its reciprocal instead)."""

    def fn(im: "Importer", node: "OnnxNode") -> list[Value]:
        a, b = im.value(node.inputs[0]), im.value(node.inputs[1])
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return [np_fn(a, b)]
        if isinstance(a, np.ndarray):
            a = im.tensor(node.inputs[0])
        if isinstance(b, np.ndarray) and not static_rhs:
            b = im.tensor(node.inputs[1])
        return [graph_fn(a, b)]

    return fn


def _static_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        return np.trunc(a / b).astype(a.dtype)  # ONNX integer Div truncates
    return a / b


HANDLERS["Add"] = _binary(np.add, lambda a, b: a + b)
HANDLERS["Sub"] = _binary(np.subtract, lambda a, b: a - b)
HANDLERS["Mul"] = _binary(np.multiply, lambda a, b: a * b)
HANDLERS["Div"] = _binary(_static_div, lambda a, b: G.div(a, b.astype(np.float64) if isinstance(b, np.ndarray) else b),
                          static_rhs=True)


def _unary(graph_fn: Callable[[GraphTensor], GraphTensor], np_fn: Callable | None = None) -> Handler:
    def fn(im: "Importer", node: "OnnxNode") -> list[Value]:
        v = im.value(node.inputs[0])
        if isinstance(v, np.ndarray) and np_fn is not None:
            return [np_fn(v)]
        return [graph_fn(im.tensor(node.inputs[0]))]

    return fn


HANDLERS["Relu"] = _unary(G.relu)
HANDLERS["Sigmoid"] = _unary(G.sigmoid)
HANDLERS["Tanh"] = _unary(G.tanh)
HANDLERS["Exp"] = _unary(G.exp)
HANDLERS["Log"] = _unary(G.log)
HANDLERS["Sqrt"] = _unary(lambda t: t.sqrt())
HANDLERS["Reciprocal"] = _unary(lambda t: t.recip())
HANDLERS["Neg"] = _unary(G.neg, np.negative)
HANDLERS["Abs"] = _unary(G.abs, np.abs)


@handler("LeakyRelu")
def _leaky_relu(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [G.leaky_relu(im.tensor(node.inputs[0]), float(node.attrs.get("alpha", 0.01)))]


@handler("Pow")
def _pow(im: "Importer", node: "OnnxNode") -> list[Value]:
    e = im.value(node.inputs[1])
    if not isinstance(e, np.ndarray) or e.size != 1 or float(e.reshape(-1)[0]) != int(e.reshape(-1)[0]):
        raise OnnxImportError(f"{node.describe()}: only a constant integer exponent is supported")
    return [G.pow(im.tensor(node.inputs[0]), int(e.reshape(-1)[0]))]


@handler("Clip")
def _clip(im: "Importer", node: "OnnxNode") -> list[Value]:
    lo = node.attrs.get("min")
    hi = node.attrs.get("max")
    if len(node.inputs) > 1 and node.inputs[1]:
        lo = float(im.static(node.inputs[1], node, "min"))
    if len(node.inputs) > 2 and node.inputs[2]:
        hi = float(im.static(node.inputs[2], node, "max"))
    return [G.clip(im.tensor(node.inputs[0]), lo, hi)]


@handler("Softmax")
def _softmax(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    if im.opset >= 13:
        return [G.softmax(x, node.attrs.get("axis", -1))]
    # before opset 13: the input is coerced to 2-D at axis and softmax runs over the second part
    axis = _norm_axis(node.attrs.get("axis", 1), x.ndim, node)
    rows = int(np.prod(x.shape[:axis]))
    return [G.softmax(x.reshape((rows, -1)), -1).reshape(x.shape)]


# -- linear algebra ------------------------------------------------------------------------------


@handler("MatMul")
def _matmul(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [G.matmul(im.tensor(node.inputs[0]), im.tensor(node.inputs[1]))]


@handler("Gemm")
def _gemm(im: "Importer", node: "OnnxNode") -> list[Value]:
    a, b = im.tensor(node.inputs[0]), im.tensor(node.inputs[1])
    if node.attrs.get("transA", 0):
        a = a.T
    if node.attrs.get("transB", 0):
        b = b.T
    y = G.matmul(a, b)
    alpha = float(node.attrs.get("alpha", 1.0))
    if alpha != 1.0:
        y = G.mul_const(y, alpha)
    if len(node.inputs) > 2 and node.inputs[2]:
        beta = float(node.attrs.get("beta", 1.0))
        c = im.value(node.inputs[2])
        if isinstance(c, np.ndarray):
            c = im.tensor(node.inputs[2]) if beta == 1.0 else im.graph.constant(c * beta, f"{node.inputs[2]}*beta")
        elif beta != 1.0:
            c = G.mul_const(c, beta)
        y = y + c
    return [y]


# -- convolution and pooling ------------------------------------------------------------------------


def _spatial_pads(im: "Importer", node: "OnnxNode", in_hw: tuple[int, int], kernel: tuple[int, int],
                  strides: tuple[int, int], dilations: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    auto = node.attrs.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("NOTSET", ""):
        p = list(node.attrs.get("pads", [0, 0, 0, 0]))
        if len(p) != 4:
            raise OnnxImportError(f"{node.describe()}: expected 4 pads for a 2-D op, got {p}")
        return (p[0], p[2]), (p[1], p[3])
    if auto == "VALID":
        return (0, 0), (0, 0)
    pads = []
    for size, k, s, d in zip(in_hw, kernel, strides, dilations):
        out = -(-size // s)
        total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if auto == "SAME_UPPER" else (big, small))
    return pads[0], pads[1]


def _check_2d(node: "OnnxNode", x: GraphTensor) -> None:
    if x.ndim != 4:
        raise OnnxImportError(f"{node.describe()}: only 2-D (N, C, H, W) inputs are supported, got {x.shape}")


@handler("Conv")
def _conv(im: "Importer", node: "OnnxNode") -> list[Value]:
    x, w = im.tensor(node.inputs[0]), im.tensor(node.inputs[1])
    _check_2d(node, x)
    k = tuple(node.attrs.get("kernel_shape", w.shape[2:]))
    s = tuple(node.attrs.get("strides", (1, 1)))
    d = tuple(node.attrs.get("dilations", (1, 1)))
    pads = _spatial_pads(im, node, x.shape[2:], k, s, d)
    bias = im.tensor(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    return [G.conv2d(x, w, bias, stride=s, padding=pads, dilation=d, groups=int(node.attrs.get("group", 1)))]


def _pool_common(im: "Importer", node: "OnnxNode") -> tuple[GraphTensor, tuple, tuple, tuple, tuple]:
    x = im.tensor(node.inputs[0])
    _check_2d(node, x)
    if node.attrs.get("ceil_mode", 0):
        raise OnnxImportError(f"{node.describe()}: ceil_mode=1 is not supported")
    if len(node.outputs) > 1 and node.outputs[1]:
        raise OnnxImportError(f"{node.describe()}: the Indices output is not supported")
    k = tuple(node.attrs["kernel_shape"])
    s = tuple(node.attrs.get("strides", (1, 1)))
    d = tuple(node.attrs.get("dilations", (1, 1)))
    return x, k, s, d, _spatial_pads(im, node, x.shape[2:], k, s, d)


@handler("MaxPool")
def _max_pool(im: "Importer", node: "OnnxNode") -> list[Value]:
    x, k, s, d, pads = _pool_common(im, node)
    return [G.max_pool2d(x, k, s, pads, d)]


@handler("AveragePool")
def _avg_pool(im: "Importer", node: "OnnxNode") -> list[Value]:
    x, k, s, d, pads = _pool_common(im, node)
    if d != (1, 1):
        raise OnnxImportError(f"{node.describe()}: dilations are not supported for AveragePool")
    return [G.avg_pool2d(x, k, s, pads, bool(node.attrs.get("count_include_pad", 0)))]


@handler("GlobalAveragePool")
def _global_avg_pool(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    if x.ndim < 3:
        raise OnnxImportError(f"{node.describe()}: input must be (N, C, spatial...), got {x.shape}")
    return [G.mean(x, tuple(range(2, x.ndim)), keepdims=True)]


@handler("BatchNormalization")
def _batch_norm(im: "Importer", node: "OnnxNode") -> list[Value]:
    if len([o for o in node.outputs if o]) > 1 or node.attrs.get("training_mode", 0):
        raise OnnxImportError(f"{node.describe()}: only inference mode (one output) is supported")
    x = im.tensor(node.inputs[0])
    scale, bias, mean, var = (im.static(n, node, what).astype(np.float64)
                              for n, what in zip(node.inputs[1:5], ("scale", "B", "mean", "var")))
    eps = float(node.attrs.get("epsilon", 1e-5))
    # y = (x - mean) / sqrt(var + eps) * scale + bias = x * a + b, folded while importing
    a = scale / np.sqrt(var + eps)
    b = bias - mean * a
    shape = (-1,) + (1,) * (x.ndim - 2)
    return [G.mul_const(x, a.reshape(shape)) + im.graph.constant(b.reshape(shape), f"{node.name or 'bn'}.shift")]


# -- shapes ----------------------------------------------------------------------------------------


def _movement(im: "Importer", node: "OnnxNode", fn: Callable[[Any], Any]) -> list[Value]:
    v = im.value(node.inputs[0])
    return [fn(v)]


@handler("Flatten")
def _flatten(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.value(node.inputs[0])
    shape = _shape(v)
    axis = node.attrs.get("axis", 1)
    axis = axis % len(shape) if axis < 0 else axis
    new = (int(np.prod(shape[:axis])), int(np.prod(shape[axis:])))
    return [v.reshape(new)]


@handler("Reshape")
def _reshape(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.value(node.inputs[0])
    target = [int(d) for d in im.static(node.inputs[1], node, "shape").reshape(-1)]
    if not node.attrs.get("allowzero", 0):
        target = [_shape(v)[i] if d == 0 else d for i, d in enumerate(target)]
    return [v.reshape(tuple(target))]


@handler("Transpose")
def _transpose(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.value(node.inputs[0])
    perm = node.attrs.get("perm", list(reversed(range(len(_shape(v))))))
    return [np.transpose(v, perm) if isinstance(v, np.ndarray) else v.permute(tuple(perm))]


def _axes(im: "Importer", node: "OnnxNode", index: int = 1) -> list[int] | None:
    if "axes" in node.attrs:
        return list(node.attrs["axes"])
    if len(node.inputs) > index and node.inputs[index]:
        return [int(a) for a in im.static(node.inputs[index], node, "axes").reshape(-1)]
    return None


@handler("Squeeze")
def _squeeze(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.value(node.inputs[0])
    axes = _axes(im, node)
    if isinstance(v, np.ndarray):
        return [np.squeeze(v, axis=None if axes is None else tuple(axes))]
    return [v.squeeze(axes)]


@handler("Unsqueeze")
def _unsqueeze(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.value(node.inputs[0])
    axes = _axes(im, node)
    if axes is None:
        raise OnnxImportError(f"{node.describe()}: axes are required")
    rank = len(_shape(v)) + len(axes)
    shape = list(_shape(v))
    for a in sorted(_norm_axis(a, rank, node) for a in axes):
        shape.insert(a, 1)
    return [v.reshape(tuple(shape))]


@handler("Concat")
def _concat(im: "Importer", node: "OnnxNode") -> list[Value]:
    vals = [im.value(n) for n in node.inputs]
    axis = node.attrs["axis"]
    if all(isinstance(v, np.ndarray) for v in vals):
        return [np.concatenate(vals, axis=axis)]
    return [G.concat([im.tensor(n) for n in node.inputs], axis)]


@handler("Gather")
def _gather(im: "Importer", node: "OnnxNode") -> list[Value]:
    data = im.value(node.inputs[0])
    idx = im.static(node.inputs[1], node, "indices (only constant indices are supported)")
    axis = node.attrs.get("axis", 0)
    if isinstance(data, np.ndarray):
        return [np.take(data, idx, axis=axis)]
    return [G.gather(data, idx.astype(np.int64), axis)]


def _reduce(graph_fn: Callable, np_fn: Callable, axes_input_from: int) -> Handler:
    def fn(im: "Importer", node: "OnnxNode") -> list[Value]:
        v = im.value(node.inputs[0])
        axes = _axes(im, node)  # an attribute before opset axes_input_from, an input from it
        keep = bool(node.attrs.get("keepdims", 1))
        if axes is not None and len(axes) == 0:
            axes = None
        if axes is None and node.attrs.get("noop_with_empty_axes", 0):
            return [v]
        ax = None if axes is None else tuple(axes)
        if isinstance(v, np.ndarray):
            return [np_fn(v, axis=ax, keepdims=keep)]
        return [graph_fn(v, ax, keep)]

    return fn


HANDLERS["ReduceSum"] = _reduce(G.sum, np.sum, 13)
HANDLERS["ReduceMean"] = _reduce(G.mean, np.mean, 18)
HANDLERS["ReduceMax"] = _reduce(G.max, np.max, 18)
