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
from luminair.prover.graph.hl_math import LOG2_E

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


# -- transformer ops: slicing, splitting, masks, layer norm, erf / GELU --------------------------------


def _static_or_none(im: "Importer", node: "OnnxNode", index: int, what: str) -> np.ndarray | None:
    if len(node.inputs) > index and node.inputs[index]:
        return im.static(node.inputs[index], node, what).reshape(-1).astype(np.int64)
    return None


@handler("Slice")
def _slice(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.value(node.inputs[0])
    shape = _shape(v)
    if im.opset < 10:  # starts / ends / axes were attributes
        starts, ends = np.asarray(node.attrs["starts"]), np.asarray(node.attrs["ends"])
        axes, steps = node.attrs.get("axes"), None
    else:
        starts = _static_or_none(im, node, 1, "starts")
        ends = _static_or_none(im, node, 2, "ends")
        axes = _static_or_none(im, node, 3, "axes")
        steps = _static_or_none(im, node, 4, "steps")
    axes = list(range(len(starts))) if axes is None else [_norm_axis(int(a), len(shape), node) for a in axes]
    steps = [1] * len(starts) if steps is None else [int(s) for s in steps]
    key = [slice(None)] * len(shape)
    for a, st, en, sp in zip(axes, starts, ends, steps):
        # python slicing clamps like ONNX does (ends of +-2^63 included)
        key[a] = slice(int(max(min(st, 2**62), -2**62)), int(max(min(en, 2**62), -2**62)), sp)
    if isinstance(v, np.ndarray):
        return [v[tuple(key)]]
    if any(sp < 0 for sp in steps):
        raise OnnxImportError(f"{node.describe()}: negative steps are not supported on graph tensors")
    return [v[tuple(key)]]


@handler("Split")
def _split(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.value(node.inputs[0])
    shape = _shape(v)
    axis = _norm_axis(node.attrs.get("axis", 0), len(shape), node)
    n_out = len(node.outputs)
    if "split" in node.attrs:  # before opset 13 the sizes were an attribute
        sizes = [int(s) for s in node.attrs["split"]]
    elif len(node.inputs) > 1 and node.inputs[1]:
        sizes = [int(s) for s in im.static(node.inputs[1], node, "split").reshape(-1)]
    else:  # equal parts (opset 18 names the count num_outputs; the last part may be smaller)
        n = int(node.attrs.get("num_outputs", n_out))
        part = -(-shape[axis] // n)
        sizes = [min(part, shape[axis] - i * part) for i in range(n)]
    if sum(sizes) != shape[axis] or len(sizes) != n_out:
        raise OnnxImportError(f"{node.describe()}: split sizes {sizes} do not divide axis {axis} of {shape} "
                              f"into {n_out} outputs")
    out, start = [], 0
    for s in sizes:
        key = [slice(None)] * len(shape)
        key[axis] = slice(start, start + s)
        out.append(v[tuple(key)])
        start += s
    return out


@handler("Equal")
def _equal(im: "Importer", node: "OnnxNode") -> list[Value]:
    a, b = im.value(node.inputs[0]), im.value(node.inputs[1])
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return [np.equal(a, b)]  # e.g. a constant causal-mask buffer compared with 0
    a = im.tensor(node.inputs[0])
    return [G.eq(a, b.astype(np.float64) if isinstance(b, np.ndarray) else b)]


def _softmax_fill(im: "Importer", node: "OnnxNode", value: np.ndarray) -> np.ndarray:
    """A -inf branch of Where (masked_fill(mask, -inf) before a softmax, as torch exports causal
    attention) cannot be a fixed-point value. It becomes -max_real / 2 (-16 at scale 10): its exp
    after the softmax's x - max is 0 in fixed point (and below 1e-7 in float) as long as the row
    maximum is below max_real / 2, and x - max stays in range. Only allowed when every reader of the
    result is a Softmax, where the substitution cannot change anything else."""
    if np.isfinite(value).all():
        return value
    readers = [n for n in im.model.graph.node if node.outputs[0] in n.input]
    if np.isposinf(value).any() or np.isnan(value).any() or not readers or \
            any(r.op_type != "Softmax" for r in readers):
        raise OnnxImportError(
            f"{node.describe()}: a non-finite constant ({value.reshape(-1)[~np.isfinite(value.reshape(-1))][0]}) "
            "is only supported as a -inf fill whose result is read by Softmax nodes only"
        )
    return np.where(np.isneginf(value), -im.graph.numeric_format.max_real / 2, value)


@handler("Where")
def _where(im: "Importer", node: "OnnxNode") -> list[Value]:
    c, a, b = (im.value(n) for n in node.inputs[:3])
    if all(isinstance(v, np.ndarray) for v in (c, a, b)):
        return [np.where(c, a, b)]
    if isinstance(c, np.ndarray):
        # a constant condition (a causal mask): c * a + (1 - c) * b with 0/1 constants, so both
        # products are exact and a constant branch folds into one constant term
        out_shape = np.broadcast_shapes(c.shape, _shape(a), _shape(b))
        m = c.astype(bool)
        terms: list[GraphTensor] = []
        const = np.zeros(out_shape)
        for branch, keep, name in ((a, m, node.inputs[1]), (b, ~m, node.inputs[2])):
            if isinstance(branch, np.ndarray):
                const = const + np.where(keep, _softmax_fill(im, node, branch.astype(np.float64)), 0.0)
            elif keep.all():
                terms.append(branch)
            elif keep.any():
                terms.append(branch * im.graph.constant(keep.astype(np.float64), f"{node.name}.{name}.mask"))
        out = terms[0] if terms else None
        for t in terms[1:]:
            out = out + t
        if const.any() or out is None:
            cst = im.graph.constant(const, f"{node.name}.fill")
            out = cst if out is None else out + cst
        return [out.broadcast_to(out_shape)]
    for i, v in ((1, a), (2, b)):
        if isinstance(v, np.ndarray) and not np.isfinite(v).all():
            raise OnnxImportError(f"{node.describe()}: non-finite constants need a constant condition")
    # a computed condition: a 0/1 mask from a comparison (G.where turns anything else into one)
    def branch(v: Value) -> Any:
        return float(v) if isinstance(v, np.ndarray) and v.ndim == 0 else v

    return [G.where(c, branch(a), branch(b))]


def _mean_last(x: GraphTensor) -> GraphTensor:
    """Mean over the last axis as one Dot-able product-sum: sum(x * 2^-k) * (2^k / n) with 2^k >= n,
    so the partial sums stay no larger than the mean itself (a plain sum of n values of size 1-2
    leaves the +-32 range at scale 10 for n = 64) and 2^-k is exact in fixed point."""
    n = x.shape[-1]
    k = max(0, int(np.ceil(np.log2(n))))
    if k > x.graph.numeric_format.scale_bits:  # 2^-k not representable: round each term instead
        return G.sum(G.mul_const(x, 1.0 / n), -1, keepdims=True)
    s = G.sum(x * x.graph.constant(np.full(n, 2.0 ** -k)), -1, keepdims=True)
    return s if 2 ** k == n else G.mul_const(s, 2.0 ** k / n)


def layer_norm_wide(x: GraphTensor, axis: int, scale: Any, bias: Any, eps: float) -> GraphTensor:
    """(x - mean) / sqrt(var + eps) * scale + bias over the axes from ``axis`` to the last, with the
    mean and the variance as sums of pre-scaled terms: var = sum((d / sqrt(n))^2). A plain sum of
    squares (as G.layer_norm forms) is n * var, which leaves the fixed-point range for a 64-wide row
    of variance 1/2 at scale 10; pre-scaling keeps every intermediate no larger than var."""
    lead = x.shape[:axis]
    n = int(np.prod(x.shape[axis:]))
    flat = x.reshape(lead + (n,))
    d = G.sub(flat, _mean_last(flat))
    ds = G.mul_const(d, 1.0 / np.sqrt(n))
    var = G.sum(ds * ds, -1, keepdims=True)  # fused into one exact Dot by the Stwo compiler
    out = (d * (var + float(eps)).sqrt().recip()).reshape(x.shape)
    if scale is not None:
        out = out * scale
    if bias is not None:
        out = out + bias
    return out


@handler("LayerNormalization")
def _layer_norm(im: "Importer", node: "OnnxNode") -> list[Value]:
    if len([o for o in node.outputs if o]) > 1:
        raise OnnxImportError(f"{node.describe()}: only the normalized output is supported (not Mean / InvStdDev)")
    x = im.tensor(node.inputs[0])
    axis = _norm_axis(node.attrs.get("axis", -1), x.ndim, node)
    scale = im.tensor(node.inputs[1])
    bias = im.tensor(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    return [layer_norm_wide(x, axis, scale, bias, float(node.attrs.get("epsilon", 1e-5)))]


# Abramowitz & Stegun 7.1.26: erf(a) = 1 - t (A1 + t (A2 + t (A3 + t (A4 + t A5)))) e^(-a^2),
# t = 1 / (1 + P a), a >= 0, absolute error below 1.5e-7
ERF_P = 0.3275911
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
ERF_CLAMP = 4.0  # erf(4) = 1 - 1.5e-8; clamping keeps a^2 <= 16 inside the range


def erf(x: GraphTensor) -> GraphTensor:
    """erf(x) = s * (1 - poly(t) * 2^(-a^2 log2 e)) with s = 2 (x > 0) - 1 and a = min(s x, 4) = |x|
    clamped (at x = 0, s = -1 and the bracket is 1 - (A1 + ... + A5) = 0); every intermediate is in
    [-23.1, 1.5] whatever x is. About 28 primitive ops an element (GELU's cost in a transformer)."""
    s = (x._lift(0.0) < x) * 2.0 - 1.0
    a = G.minimum(x * s, ERF_CLAMP)
    t = (a * ERF_P + 1.0).recip()
    poly = t * ERF_A[4] + ERF_A[3]
    for c in reversed(ERF_A[:3]):
        poly = poly * t + c
    poly = poly * t
    e = (a * (a * -LOG2_E)).exp2()  # e^(-a^2) as one exp2 (-a^2 log2 e >= -23.1)
    out = s * (G.neg(poly * e) + 1.0)
    out.graph.mark_composite("Erf", x, out)  # FuseOpCompiler proves it as one table lookup
    return out


HANDLERS["Erf"] = _unary(erf)


@handler("Gelu")
def _gelu(im: "Importer", node: "OnnxNode") -> list[Value]:
    """Opset 20 Gelu: approximate="tanh" is G.gelu; "none" is x * (1 + erf(x / sqrt 2)) / 2."""
    x = im.tensor(node.inputs[0])
    approx = node.attrs.get("approximate", b"none")
    approx = approx.decode() if isinstance(approx, bytes) else approx
    if approx == "tanh":
        return [G.gelu(x)]
    if approx != "none":
        raise OnnxImportError(f"{node.describe()}: unknown approximate={approx!r}")
    # x * Phi(x) with Phi = (1 + erf) / 2 in [0, 1]: no intermediate larger than x
    return [x * G.mul_const(erf(G.mul_const(x, 1 / np.sqrt(2.0))) + 1.0, 0.5)]
