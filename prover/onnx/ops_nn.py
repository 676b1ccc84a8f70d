"""Neural-network ONNX ops: matrix products, convolutions and pooling over any number of spatial
axes, normalizations, softmax, GELU, and the inference forms of Dropout and Gradient."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from luminair.prover import graph as G
from luminair.prover.graph import GraphTensor
from luminair.verifier.graph.settings import MAX_NUMEL
from luminair.verifier.graph.spec import MAX_VIEW_NUMEL

from .errors import OnnxImportError
from .ops_common import legacy_broadcast, norm_axis, optional_input, text_attr
from .table import EXACT, FULL, Value, handler

if TYPE_CHECKING:
    from .importer import Importer, OnnxNode

DOT = "sum of the products' errors + eps/2 (one fused Dot: exact products, one rounding)"
MAX_EXACT = "exact (a max of exact values)"

# -- linear algebra ----------------------------------------------------------------------------------


@handler("MatMul", meaning="one Mul and one SumReduce over a broadcast view (fused: Dot); a static weight past the "
                           "format's caps: column chunks, concatenated", bound=DOT)
def _matmul(im: "Importer", node: "OnnxNode") -> list[Value]:
    a = im.tensor(node.inputs[0])
    y = _split_matmul(im, a, node.inputs[1], False)
    return [G.matmul(a, im.tensor(node.inputs[1])) if y is None else y]


def _split_matmul(im: "Importer", a: GraphTensor, name: str, trans: bool) -> GraphTensor | None:
    """a @ B (B' with ``trans``) for a static 2-D B larger than one constant of the proof format may
    be (settings.MAX_NUMEL elements) or whose product's Dot view would be (spec.MAX_VIEW_NUMEL):
    B's output columns in chunks, each its own constant and its own Dot, joined by concat (exact:
    every output element is the same one-rounding Dot). None: B is not static, or fits."""
    b = im.value(name)
    if not isinstance(b, np.ndarray) or b.ndim != 2 or a.ndim < 1:
        return None
    m, k = b.shape if trans else b.shape[::-1]
    rows = int(np.prod(a.shape[:-1], dtype=np.int64))
    if b.size <= MAX_NUMEL and rows * k * m <= MAX_VIEW_NUMEL:
        return None
    chunk = max(1, min(MAX_NUMEL // k, MAX_VIEW_NUMEL // max(1, rows * k)))
    count = -(-m // chunk)
    bounds = [m * i // count for i in range(count + 1)]
    parts = []
    for c0, c1 in zip(bounds[:-1], bounds[1:]):
        piece = b[c0:c1] if trans else b[:, c0:c1]
        w = im.graph.constant(np.ascontiguousarray(piece, dtype=np.float64),
                              f"{name}[{c0}:{c1}]" if trans else f"{name}[:, {c0}:{c1}]")
        parts.append(G.matmul(a, w.T if trans else w))
    return G.concat_tree(parts, -1)


@handler("Gemm", meaning="alpha (A' @ B') + beta C: the matmul (a static B past the format's caps: column chunks), "
                         "mul_const for alpha, C scaled at import",
         bound=DOT + "; alpha != 1: eps/2 per multiply step")
def _gemm(im: "Importer", node: "OnnxNode") -> list[Value]:
    a = im.tensor(node.inputs[0])
    if node.attrs.get("transA", 0):
        a = a.T
    y = _split_matmul(im, a, node.inputs[1], bool(node.attrs.get("transB", 0)))
    if y is None:
        b = im.tensor(node.inputs[1])
        y = G.matmul(a, b.T if node.attrs.get("transB", 0) else b)
    alpha = float(node.attrs.get("alpha", 1.0))
    if alpha != 1.0:
        y = G.mul_const(y, alpha)
    beta = float(node.attrs.get("beta", 1.0))
    c_name = optional_input(node, 2)
    if c_name is None or beta == 0.0:
        return [y]
    c = im.value(c_name)
    if isinstance(c, np.ndarray):
        c = im.tensor(c_name) if beta == 1.0 else im.graph.constant(c * beta, f"{c_name}*beta")
    elif beta != 1.0:
        c = G.mul_const(c, beta)
    return [y + legacy_broadcast(im, node, y, c)]


# -- convolution and pooling --------------------------------------------------------------------------


def _spatial_pads(node: "OnnxNode", in_shape: tuple[int, ...], kernel: tuple[int, ...], strides: tuple[int, ...],
                  dilations: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """Per spatial axis (before, after): ONNX pads [b1..bd, e1..ed], or auto_pad SAME_* / VALID."""
    d = len(kernel)
    auto = text_attr(node, "auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        p = [int(v) for v in node.attrs.get("pads", [0] * (2 * d))]
        if len(p) != 2 * d:
            raise OnnxImportError(f"{node.describe()}: expected {2 * d} pads for {d} spatial axes, got {p}")
        return tuple((p[i], p[i + d]) for i in range(d))
    if auto == "VALID":
        return ((0, 0),) * d
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        raise OnnxImportError(f"{node.describe()}: unknown auto_pad {auto!r}")
    pads = []
    for size, k, s, dl in zip(in_shape, kernel, strides, dilations):
        out = -(-size // s)
        total = max(0, (out - 1) * s + (k - 1) * dl + 1 - size)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if auto == "SAME_UPPER" else (big, small))
    return tuple(pads)


def _spatial(node: "OnnxNode", x: GraphTensor, kernel: tuple[int, ...] | None = None) -> tuple:
    if x.ndim < 3:
        raise OnnxImportError(f"{node.describe()}: input must be (N, C, spatial...), got {x.shape}")
    d = x.ndim - 2
    k = tuple(int(v) for v in node.attrs.get("kernel_shape", kernel or ()))
    if len(k) != d:
        raise OnnxImportError(f"{node.describe()}: kernel_shape {k} does not match {d} spatial axes of {x.shape}")
    s = tuple(int(v) for v in node.attrs.get("strides", (1,) * d))
    dl = tuple(int(v) for v in node.attrs.get("dilations", (1,) * d))
    return k, s, dl, _spatial_pads(node, x.shape[2:], k, s, dl)


@handler("Conv", meaning="zero-padded window view (im2col) times the weight, one Mul + SumReduce (fused: Dot); "
                         "1, 2 or 3 spatial axes, groups, dilations, auto_pad; past the format's caps: bands of "
                         "output rows, chunks of channels, concatenated",
         bound=DOT)
def _conv(im: "Importer", node: "OnnxNode") -> list[Value]:
    x, w = im.tensor(node.inputs[0]), im.tensor(node.inputs[1])
    k, s, dl, pads = _spatial(node, x, tuple(w.shape[2:]))
    b = optional_input(node, 2)
    return [G.conv(x, w, im.tensor(b) if b else None, stride=s, padding=pads, dilation=dl,
                   groups=int(node.attrs.get("group", 1)))]


@handler("ConvTranspose", meaning="the input dilated by the stride (a view) and padded, convolved with the flipped "
                                  "kernel (Conv's Dot); output_padding, output_shape, groups, dilations",
         bound=DOT)
def _conv_transpose(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    wv = im.value(node.inputs[1])
    w = wv.astype(np.float64) if isinstance(wv, np.ndarray) else wv
    if x.ndim < 3 or len(w.shape) != x.ndim:
        raise OnnxImportError(f"{node.describe()}: input {x.shape} and weight {tuple(w.shape)} must be (N, C, spatial...) "
                              "and (C, O/group, kernel...)")
    d = x.ndim - 2
    k = tuple(int(v) for v in node.attrs.get("kernel_shape", w.shape[2:]))
    s = tuple(int(v) for v in node.attrs.get("strides", (1,) * d))
    dl = tuple(int(v) for v in node.attrs.get("dilations", (1,) * d))
    op_ = tuple(int(v) for v in node.attrs.get("output_padding", (0,) * d))
    auto = text_attr(node, "auto_pad", "NOTSET")
    out_shape = [int(v) for v in node.attrs.get("output_shape", [])][-d:] if "output_shape" in node.attrs else None
    if out_shape is None and auto in ("SAME_UPPER", "SAME_LOWER"):
        out_shape = [i * st for i, st in zip(x.shape[2:], s)]
    if out_shape is not None:
        pads = []
        for i in range(d):
            total = s[i] * (x.shape[2 + i] - 1) + op_[i] + (k[i] - 1) * dl[i] + 1 - out_shape[i]
            half = total // 2
            pads.append((half, total - half) if auto == "SAME_UPPER" else (total - half, half))
    elif auto == "VALID":
        pads = [(0, 0)] * d
    else:
        p = [int(v) for v in node.attrs.get("pads", [0] * (2 * d))]
        pads = [(p[i], p[i + d]) for i in range(d)]
    b = optional_input(node, 2)
    return [G.conv_transpose(x, w, im.tensor(b) if b else None, stride=s, padding=pads, output_padding=op_,
                             dilation=dl, groups=int(node.attrs.get("group", 1)))]


def _pool_args(node: "OnnxNode", x: GraphTensor) -> tuple:
    if len([o for o in node.outputs if o]) > 1:
        raise OnnxImportError(f"{node.describe()}: the Indices output (positions of the maxima) is not supported")
    k, s, dl, pads = _spatial(node, x)
    return k, s, dl, pads, bool(node.attrs.get("ceil_mode", 0))


@handler("MaxPool", meaning="one MaxReduce over a window view; padding holds the format's minimum (-inf for the max); "
                            "1-3 spatial axes, dilations, ceil_mode",
         bound=MAX_EXACT)
def _max_pool(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    k, s, dl, pads, ceil = _pool_args(node, x)
    return [G.max_pool(x, k, s, pads, dl, ceil)]


@handler("AveragePool", meaning="one SumReduce over a zero-padded window view, times 1/count per window "
                                "(count_include_pad, ceil_mode, 1-3 spatial axes)",
         bound="the sum is exact; eps/2 per multiply step of 1/count")
def _avg_pool(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    k, s, dl, pads, ceil = _pool_args(node, x)
    return [G.avg_pool(x, k, s, pads, bool(node.attrs.get("count_include_pad", 0)), dl, ceil)]


@handler("GlobalAveragePool", meaning="mean over the spatial axes (SumReduce, then 1/n)", bound="eps/2 per multiply step")
def _global_avg_pool(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    if x.ndim < 3:
        raise OnnxImportError(f"{node.describe()}: input must be (N, C, spatial...), got {x.shape}")
    return [G.mean(x, tuple(range(2, x.ndim)), keepdims=True)]


@handler("GlobalMaxPool", meaning="MaxReduce over the spatial axes", bound=MAX_EXACT)
def _global_max_pool(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    if x.ndim < 3:
        raise OnnxImportError(f"{node.describe()}: input must be (N, C, spatial...), got {x.shape}")
    return [G.max(x, tuple(range(2, x.ndim)), keepdims=True)]


# -- normalization --------------------------------------------------------------------------------------


def _per_channel(x: GraphTensor, v: Any) -> Any:
    shape = (-1,) + (1,) * (x.ndim - 2)
    return v.reshape(shape)


@handler("BatchNormalization", meaning="inference: x * a + b with a = scale / sqrt(var + eps), b = B - mean a folded at "
                                       "import (statistics given as tensors: (x - mean) rsqrt(var + eps) scale + B)",
         bound="static statistics: eps/2 per multiply step of x * a; the constants' quantization (eps/2 each)")
def _batch_norm(im: "Importer", node: "OnnxNode") -> list[Value]:
    if len([o for o in node.outputs if o]) > 1 or node.attrs.get("training_mode", 0):
        raise OnnxImportError(f"{node.describe()}: only inference mode (one output) is supported")
    x = im.tensor(node.inputs[0])
    if x.ndim < 2:
        raise OnnxImportError(f"{node.describe()}: input must be (N, C, ...), got {x.shape}")
    eps = float(node.attrs.get("epsilon", 1e-5))
    stats = [im.value(n) for n in node.inputs[1:5]]
    if all(isinstance(v, np.ndarray) for v in stats):
        scale, bias, mean, var = (v.astype(np.float64) for v in stats)
        a = scale / np.sqrt(var + eps)
        b = bias - mean * a
        return [G.mul_const(x, _per_channel(x, a)) + im.graph.constant(_per_channel(x, b), f"{node.name or 'bn'}.shift")]
    scale, bias, mean, var = (_per_channel(x, im.tensor(n)) for n in node.inputs[1:5])
    return [G.sub(x, mean) * (var + eps).sqrt().recip() * scale + bias]


@handler("InstanceNormalization", meaning="per sample and channel over the spatial axes: layer_norm_wide's pre-scaled "
                                          "mean and variance, sqrt, recip, scale and bias",
         bound="data-dependent (a recip of sqrt(var + eps)): computed per run by error_bound")
def _instance_norm(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    return [G.instance_norm(x, im.tensor(node.inputs[1]), im.tensor(node.inputs[2]),
                            float(node.attrs.get("epsilon", 1e-5)))]


@handler("LRN", meaning="x * exp2(-beta log2(bias + sum of (x sqrt(alpha/size))^2 over the channel window))",
         bound="data-dependent (tables and products): computed per run by error_bound")
def _lrn(im: "Importer", node: "OnnxNode") -> list[Value]:
    a = node.attrs
    if "size" not in a:
        raise OnnxImportError(f"{node.describe()}: the size attribute is required")
    return [G.lrn(im.tensor(node.inputs[0]), int(a["size"]), float(a.get("alpha", 1e-4)), float(a.get("beta", 0.75)),
                  float(a.get("bias", 1.0)))]


@handler("LayerNormalization", meaning="over the axes from axis on: pre-scaled mean and variance (one Dot each), "
                                       "sqrt, recip, scale and bias",
         bound="data-dependent (a recip of sqrt(var + eps)): computed per run by error_bound")
def _layer_norm(im: "Importer", node: "OnnxNode") -> list[Value]:
    if len([o for o in node.outputs if o]) > 1:
        raise OnnxImportError(f"{node.describe()}: only the normalized output is supported (not Mean / InvStdDev)")
    x = im.tensor(node.inputs[0])
    axis = norm_axis(node.attrs.get("axis", -1), x.ndim, node)
    bias = optional_input(node, 2)
    return [G.layer_norm_wide(x, axis, im.tensor(node.inputs[1]), im.tensor(bias) if bias else None,
                              float(node.attrs.get("epsilon", 1e-5)))]


# -- softmax, GELU ---------------------------------------------------------------------------------------


def _coerced(im: "Importer", node: "OnnxNode", fn: Any) -> list[Value]:
    """Softmax-like ops: over ``axis`` from opset 13; before, over the input coerced to 2-D at axis."""
    x = im.tensor(node.inputs[0])
    if im.opset >= 13:
        return [fn(x, node.attrs.get("axis", -1))]
    axis = norm_axis(node.attrs.get("axis", 1), x.ndim, node)
    rows = int(np.prod(x.shape[:axis]))
    return [fn(x.reshape((rows, -1)), -1).reshape(x.shape)]


@handler("Softmax", meaning="e * recip(sum e), e = exp(x - max) in (0, 1] (the sum must be in range: <= 31 terms "
                            "near the max at scale 10)",
         bound="data-dependent (tables, a recip): computed per run by error_bound")
def _softmax(im: "Importer", node: "OnnxNode") -> list[Value]:
    return _coerced(im, node, G.softmax)


@handler("LogSoftmax", meaning="(x - max) - ln(sum exp(x - max))", bound="eps/2 per exp, plus the log2 table and ln 2")
def _log_softmax(im: "Importer", node: "OnnxNode") -> list[Value]:
    return _coerced(im, node, G.log_softmax)


@handler("Gelu", meaning='approximate="none": x (1 + erf(x / sqrt 2)) / 2; "tanh": x sigmoid(z(x)) (G.gelu)',
         bound="erf's or sigmoid's bound times |x|, plus eps/2 per product", sweep=FULL)
def _gelu(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    approx = text_attr(node, "approximate", "none")
    if approx == "tanh":
        return [G.gelu(x)]
    if approx != "none":
        raise OnnxImportError(f"{node.describe()}: unknown approximate={approx!r}")
    # x * Phi(x) with Phi = (1 + erf) / 2 in [0, 1]: no intermediate larger than x
    return [x * G.mul_const(G.erf(G.mul_const(x, 1 / np.sqrt(2.0))) + 1.0, 0.5)]


# -- inference forms of training ops ----------------------------------------------------------------------


@handler("Dropout", meaning="inference: the input itself (and an all-true mask)", bound=EXACT)
def _dropout(im: "Importer", node: "OnnxNode") -> list[Value]:
    training = im.value(node.inputs[2]) if optional_input(node, 2) else None
    if isinstance(training, GraphTensor) or (training is not None and bool(np.asarray(training).reshape(-1)[0])) \
            or (im.opset < 7 and node.attrs.get("is_test", 0) == 0 and "is_test" in node.attrs):
        raise OnnxImportError(f"{node.describe()}: training-mode Dropout is random; only inference (identity) is "
                              "supported")
    x = im.tensor(node.inputs[0])
    return [x, np.ones(x.shape, dtype=bool)]


@handler("Gradient", meaning="(ai.onnx.preview.training) d sum(y) / d x for each x of xs: reverse-mode autograd "
                             "over the primitives (graph.grad)",
         bound="the gradient graph's own propagated bound (error_bound)")
def _gradient(im: "Importer", node: "OnnxNode") -> list[Value]:
    def names(v: Any) -> list[str]:
        return [e.decode() if isinstance(e, bytes) else str(e) for e in v]

    xs = names(node.attrs.get("xs", []))
    y = node.attrs.get("y")
    if not xs or y is None:
        raise OnnxImportError(f"{node.describe()}: needs the xs and y attributes")
    y = y.decode() if isinstance(y, bytes) else str(y)
    if len(xs) != len([o for o in node.outputs if o]):
        raise OnnxImportError(f"{node.describe()}: {len(xs)} xs but {len(node.outputs)} outputs")
    return list(im.graph.grad(im.tensor(y), [im.tensor(x) for x in xs]))
