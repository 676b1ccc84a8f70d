"""Reductions and normalizations, composed from SumReduce / MaxReduce and elementwise ops.

Several axes are reduced by one primitive: the reduced axes are permuted to the end and merged by a
view, so one SumReduce / MaxReduce node does the work (no partial results to bound-check).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .hl_math import exp, hl_op, log, mul_const, neg, sub
from .ops import Op
from .shape import prod
from .tensor import GraphTensor, normalize_axis, shape_error

Axis = int | Sequence[int] | None


def _axes(x: GraphTensor, axis: Axis, op: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(x.ndim))
    items = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(sorted({normalize_axis(a, x.ndim, op) for a in items}))
    if len(axes) != len(items):
        raise shape_error(op, f"repeated axis in {axis!r}")
    return axes


def _reduce(x: GraphTensor, prim: Op, axis: Axis, keepdims: bool, op: str) -> GraphTensor:
    axes = _axes(x, axis, op)
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    out_keep = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    out_shape = out_keep if keepdims else tuple(x.shape[i] for i in kept)
    if not axes:
        return x
    if any(x.shape[a] == 0 for a in axes) and prim is Op.MAX_REDUCE:
        raise shape_error(op, f"cannot take the max over an empty axis of {x.shape}")
    # kept axes first, reduced axes merged into one trailing axis
    t = x.permute(kept + axes) if kept + axes != tuple(range(x.ndim)) else x
    t = t.reshape(tuple(x.shape[i] for i in kept) + (prod(x.shape[a] for a in axes),))
    r = t._reduce(prim, t.ndim - 1, op)
    return r.reshape(out_shape)


@hl_op("sum")
def sum(x: GraphTensor, axis: Axis = None, keepdims: bool = False) -> GraphTensor:
    """Sum over one or several axes (all by default): one SumReduce."""
    return _reduce(x, Op.SUM_REDUCE, axis, keepdims, "sum")


@hl_op("max")
def max(x: GraphTensor, axis: Axis = None, keepdims: bool = False) -> GraphTensor:
    """Max over one or several axes (all by default): one MaxReduce."""
    return _reduce(x, Op.MAX_REDUCE, axis, keepdims, "max")


@hl_op("min")
def min(x: GraphTensor, axis: Axis = None, keepdims: bool = False) -> GraphTensor:
    """min(x) = -max(-x) (negation is exact)."""
    return neg(max(neg(x), axis, keepdims))


@hl_op("mean")
def mean(x: GraphTensor, axis: Axis = None, keepdims: bool = False) -> GraphTensor:
    """sum(x) * (1/n), the constant applied by mul_const (full relative precision). The sum itself
    must fit in range (at scale 10, |sum| < 32)."""
    n = prod(x.shape[a] for a in _axes(x, axis, "mean"))
    if n == 0:
        raise shape_error("mean", f"mean over an empty axis of {x.shape}")
    return mul_const(sum(x, axis, keepdims), 1.0 / n)


@hl_op("var")
def var(x: GraphTensor, axis: Axis = None, keepdims: bool = False, correction: int = 0) -> GraphTensor:
    """mean((x - mean(x))^2), with n - correction in the denominator (numpy's ddof)."""
    axes = _axes(x, axis, "var")
    n = prod(x.shape[a] for a in axes)
    if n - correction <= 0:
        raise shape_error("var", f"{n} elements are too few for correction {correction}")
    d = sub(x, mean(x, axes, keepdims=True))
    return mul_const(sum(d * d, axes, keepdims), 1.0 / (n - correction))


@hl_op("argmax")
def argmax(x: GraphTensor, axis: int | None = None, keepdims: bool = False, select_last_index: bool = False) -> GraphTensor:
    """Index of the first (or, with select_last_index, the last) maximum along an axis (all
    elements, flattened, if axis is None).

    m = max(x); hit = not (x < m) (x <= m always, so this is x == m); first: r = max(hit * (n - i)),
    argmax = n - r (the largest n - i picks the smallest index i); last: max(hit * (i + 1)) - 1.
    Exact; needs n in range (n <= 31 at scale 10)."""
    if axis is None:
        out = argmax(x.reshape((x.numel,)), 0, select_last_index=select_last_index)
        return out.reshape((1,) * x.ndim) if keepdims else out
    axis = normalize_axis(axis, x.ndim, "argmax")
    n = x.shape[axis]
    if n == 0:
        raise shape_error("argmax", f"argmax over an empty axis of {x.shape}")
    m = max(x, axis, keepdims=True)
    hit = (x < m) < 0.5
    order = np.arange(1, n + 1) if select_last_index else np.arange(n, 0, -1)
    weights = order.astype(np.float64).reshape((n,) + (1,) * (x.ndim - axis - 1))
    r = max(hit * x.graph.constant(weights), axis, keepdims)
    return r + (-1.0) if select_last_index else neg(r) + float(n)


@hl_op("argmin")
def argmin(x: GraphTensor, axis: int | None = None, keepdims: bool = False, select_last_index: bool = False) -> GraphTensor:
    """argmax(-x) (negation is exact)."""
    return argmax(neg(x), axis, keepdims, select_last_index)


@hl_op("softmax")
def softmax(x: GraphTensor, axis: int = -1) -> GraphTensor:
    """e / sum(e) with e = exp(x - max(x)): every e is in (0, 1], the sum is in [1, n] (so n must
    fit in range), and the division is e * recip(sum)."""
    axis = normalize_axis(axis, x.ndim, "softmax")
    e = exp(sub(x, max(x, axis, keepdims=True)))
    return e * sum(e, axis, keepdims=True).recip()


@hl_op("log_softmax")
def log_softmax(x: GraphTensor, axis: int = -1) -> GraphTensor:
    """(x - max) - log(sum(exp(x - max)))."""
    axis = normalize_axis(axis, x.ndim, "log_softmax")
    d = sub(x, max(x, axis, keepdims=True))
    return sub(d, log(sum(exp(d), axis, keepdims=True)))


@hl_op("layer_norm")
def layer_norm(
    x: GraphTensor, axis: Axis = -1, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> GraphTensor:
    """(x - mean) * rsqrt(var + eps) * weight + bias over ``axis`` (the last axis by default).

    An eps below the format's resolution quantizes to 0 in fixed point, so a slice with zero
    variance then reaches recip of zero, which the bounds pass reports."""
    axes = _axes(x, axis, "layer_norm")
    d = sub(x, mean(x, axes, keepdims=True))
    n = prod(x.shape[a] for a in axes)
    v = mul_const(sum(d * d, axes, keepdims=True), 1.0 / n)
    out = d * (v + float(eps)).sqrt().recip()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def _mean_last(x: GraphTensor) -> GraphTensor:
    """Mean over the last axis as one Dot-able product-sum: sum(x * 2^-k) * (2^k / n) with 2^k >= n,
    so the partial sums stay no larger than the mean itself (a plain sum of n values of size 1-2
    leaves the +-32 range at scale 10 for n = 64) and 2^-k is exact in fixed point."""
    n = x.shape[-1]
    k = int(np.ceil(np.log2(n))) if n > 1 else 0
    if k > x.graph.numeric_format.scale_bits:  # 2^-k not representable: round each term instead
        return sum(mul_const(x, 1.0 / n), -1, keepdims=True)
    s = sum(x * x.graph.constant(np.full(n, 2.0 ** -k)), -1, keepdims=True)
    return s if 2 ** k == n else mul_const(s, 2.0 ** k / n)


@hl_op("layer_norm_wide")
def layer_norm_wide(x: GraphTensor, axis: int, scale: Any, bias: Any, eps: float) -> GraphTensor:
    """(x - mean) / sqrt(var + eps) * scale + bias over the axes from ``axis`` to the last, with the
    mean and the variance as sums of pre-scaled terms: var = sum((d / sqrt(n))^2). A plain sum of
    squares (as G.layer_norm forms) is n * var, which leaves the fixed-point range for a 64-wide row
    of variance 1/2 at scale 10; pre-scaling keeps every intermediate no larger than var."""
    lead = x.shape[:axis]
    n = int(np.prod(x.shape[axis:]))
    flat = x.reshape(lead + (n,))
    d = sub(flat, _mean_last(flat))
    ds = mul_const(d, 1.0 / np.sqrt(n))
    var = sum(ds * ds, -1, keepdims=True)  # fused into one exact Dot by the Stwo compiler
    out = (d * (var + float(eps)).sqrt().recip()).reshape(x.shape)
    if scale is not None:
        out = out * scale
    if bias is not None:
        out = out + bias
    return out


@hl_op("instance_norm")
def instance_norm(x: GraphTensor, scale: Any = None, bias: Any = None, eps: float = 1e-5) -> GraphTensor:
    """(x - mean) / sqrt(var + eps) * scale + bias over the spatial axes of (N, C, spatial...), per
    sample and channel (ONNX InstanceNormalization); scale and bias have one value per channel.
    The statistics are layer_norm_wide's pre-scaled sums (no intermediate larger than var)."""
    if x.ndim < 3:
        raise shape_error("instance_norm", f"input must be (N, C, spatial...), got {x.shape}")
    per_channel = (x.shape[1],) + (1,) * (x.ndim - 2)

    def channel(v: Any) -> Any:
        if v is None:
            return None
        t = x._lift(v)
        if t.numel != x.shape[1]:
            raise shape_error("instance_norm", f"scale and bias need {x.shape[1]} values (one per channel), got {t.shape}")
        return t.reshape(per_channel)

    return layer_norm_wide(x, 2, channel(scale), channel(bias), eps)
