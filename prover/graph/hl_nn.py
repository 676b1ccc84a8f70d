"""Layers: matmul, linear, conv2d, pooling, concat and gather, built from views and primitives.

Sliding windows are views, not copies: an axis of size i becomes (out, kernel) through one window
step (two strides on the axis), or a slice and a split where windows do not overlap; a padded
input is materialized once (StwoCompiler's materialize_views), the windows read that copy.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .errors import GraphError
from .hl_math import hl_op, mul_const
from .hl_reduce import max as max_reduce, sum as sum_reduce
from .tensor import GraphTensor, broadcast_shapes, normalize_axis, shape_error


def _tensor_of(x: Any, like: GraphTensor) -> GraphTensor:
    return like._lift(x)


# -- matmul --------------------------------------------------------------------------------------------


@hl_op("matmul")
def matmul(a: GraphTensor, b: Any) -> GraphTensor:
    """numpy matmul semantics (1-D operands, batching, broadcast batch axes):
    a (..., n, k) and b (..., k, m) are viewed as (..., n, m, k), multiplied elementwise (one Mul)
    and summed over k (one SumReduce)."""
    b = _tensor_of(b, a)
    if a.ndim == 0 or b.ndim == 0:
        raise shape_error("matmul", f"operands must have at least one axis, got {a.shape} @ {b.shape}")
    a2 = a.reshape((1,) + a.shape) if a.ndim == 1 else a
    b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
    n, k = a2.shape[-2:]
    k2, m = b2.shape[-2:]
    if k != k2:
        raise shape_error("matmul", f"inner dimensions differ: {a.shape} @ {b.shape} ({k} != {k2})")
    batch = broadcast_shapes(a2.shape[:-2], b2.shape[:-2], "matmul")
    full = batch + (n, m, k)
    av = a2.unsqueeze(-2).broadcast_to(full)  # (..., n, 1, k)
    bv = b2.transpose(-1, -2).unsqueeze(-3).broadcast_to(full)  # (..., 1, m, k)
    out = (av * bv).sum_reduce(-1)
    if a.ndim == 1:
        out = out.squeeze(-2)
    if b.ndim == 1:
        out = out.squeeze(-1)
    return out


@hl_op("linear")
def linear(x: GraphTensor, weight: Any, bias: Any = None) -> GraphTensor:
    """x @ weight.T + bias, with weight of shape (out_features, in_features) as in torch."""
    w = _tensor_of(weight, x)
    if w.ndim != 2:
        raise shape_error("linear", f"weight must be 2-D (out, in), got {w.shape}")
    out = matmul(x, w.T)
    if bias is not None:
        out = out + bias
    return out


# -- windows -----------------------------------------------------------------------------------------


def _pair(v: Any, name: str) -> tuple[int, int]:
    if isinstance(v, (int, np.integer)):
        return int(v), int(v)
    t = tuple(int(e) for e in v)
    if len(t) != 2:
        raise GraphError(f"{name} must be an int or a pair, got {v!r}")
    return t  # type: ignore[return-value]


def _pads(padding: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    """int | (ph, pw) | ((top, bottom), (left, right)) -> ((top, bottom), (left, right))."""
    if isinstance(padding, (int, np.integer)):
        p = int(padding)
        return (p, p), (p, p)
    items = tuple(padding)
    if len(items) == 2 and all(isinstance(e, (int, np.integer)) for e in items):
        return (int(items[0]),) * 2, (int(items[1]),) * 2
    if len(items) == 2:
        return tuple(int(e) for e in items[0]), tuple(int(e) for e in items[1])  # type: ignore[return-value]
    raise GraphError(f"padding must be an int, (ph, pw) or ((top, bottom), (left, right)), got {padding!r}")


def _windows(x: GraphTensor, axis: int, k: int, stride: int, dilation: int, op: str) -> GraphTensor:
    """Replace ``axis`` (size i) by two axes (o, k): element [t, j] reads x[t*stride + j*dilation]."""
    i = x.shape[axis]
    span = dilation * (k - 1) + 1
    if k < 1 or stride < 1 or dilation < 1:
        raise shape_error(op, f"kernel, stride and dilation must be >= 1 (got {k}, {stride}, {dilation})")
    if i < span:
        raise shape_error(op, f"kernel of span {span} is larger than the (padded) input axis of size {i}")
    o = (i - span) // stride + 1
    if dilation == 1 and stride >= k and o * stride <= i:
        # windows that do not overlap (pooling): a slice and a split of the axis, a view every
        # component reads directly, where the general form below needs copies
        t = x.slice([(0, d) if a != axis else (0, o * stride) for a, d in enumerate(x.shape)])
        t = t.reshape(x.shape[:axis] + (o, stride) + x.shape[axis + 1 :])
        return t.slice([(0, d) if a != axis + 1 else (0, k) for a, d in enumerate(t.shape)])
    # overlapping windows: one window step (a view with two strides on the axis; over a padded
    # input the compiler materializes the padding once, materialize_views)
    return x.window(axis, k, stride, dilation)


def _pool_windows(x: GraphTensor, kernel: tuple[int, int], stride: tuple[int, int],
                  dilation: tuple[int, int], op: str) -> GraphTensor:
    """(..., H, W) -> (..., oh, ow, kh, kw)."""
    t = _windows(x, x.ndim - 2, kernel[0], stride[0], dilation[0], op)  # (..., oh, kh, W)
    t = _windows(t, t.ndim - 1, kernel[1], stride[1], dilation[1], op)  # (..., oh, kh, ow, kw)
    n = t.ndim
    return t.permute(tuple(range(n - 4)) + (n - 4, n - 2, n - 3, n - 1))


def _check_4d(x: GraphTensor, op: str) -> None:
    if x.ndim != 4:
        raise shape_error(op, f"input must be (N, C, H, W), got {x.shape}")


@hl_op("conv2d")
def conv2d(
    x: GraphTensor, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
    dilation: Any = 1, groups: int = 1,
) -> GraphTensor:
    """2-D convolution (cross-correlation, as torch.nn.functional.conv2d).

    x (N, C, H, W) is zero-padded and viewed as windows (N, G, 1, oh, ow, C/G*kh*kw); the weight
    (O, C/G, kh, kw) as (1, G, O/G, 1, 1, C/G*kh*kw); one Mul and one SumReduce give (N, O, oh, ow)."""
    _check_4d(x, "conv2d")
    w = _tensor_of(weight, x)
    if w.ndim != 4:
        raise shape_error("conv2d", f"weight must be (O, C/groups, kh, kw), got {w.shape}")
    n, c, _, _ = x.shape
    o, cg, kh, kw = w.shape
    if groups < 1 or c % groups or o % groups:
        raise shape_error("conv2d", f"groups={groups} must divide the input channels {c} and output channels {o}")
    if cg != c // groups:
        raise shape_error(
            "conv2d", f"weight {w.shape} expects {cg * groups} input channels, input {x.shape} has {c}"
        )
    (pt, pb), (pl, pr) = _pads(padding)
    xp = x.pad(((0, 0), (0, 0), (pt, pb), (pl, pr)))
    win = _pool_windows(xp, (kh, kw), _pair(stride, "stride"), _pair(dilation, "dilation"), "conv2d")
    _, _, oh, ow, _, _ = win.shape  # (N, C, oh, ow, kh, kw)
    g, og, kk = groups, o // groups, cg * kh * kw
    # (C/G, kh, kw) merge into one axis, which copies the windows (im2col): the copy is laid out
    # (kk, oh, ow), so its reads of the input run along ow (runs of 3, kw, the other way round)
    xv = win.reshape((n, g, cg, oh, ow, kh, kw)).permute((0, 1, 2, 5, 6, 3, 4)).reshape((n, g, kk, oh, ow))
    xv = xv.permute((0, 1, 3, 4, 2)).reshape((n, g, 1, oh, ow, kk)).broadcast_to((n, g, og, oh, ow, kk))
    wv = w.reshape((1, g, og, 1, 1, kk)).broadcast_to((n, g, og, oh, ow, kk))
    out = (xv * wv).sum_reduce(-1).reshape((n, o, oh, ow))
    if bias is not None:
        b = _tensor_of(bias, x)
        if b.shape != (o,):
            raise shape_error("conv2d", f"bias must have shape ({o},), got {b.shape}")
        out = out + b.reshape((1, o, 1, 1))
    return out


def _edge_pad(x: GraphTensor, axis: int, before: int, after: int) -> GraphTensor:
    """Pad ``axis`` by repeating its first / last element (concat of views; values, not zeros)."""
    parts = []
    i = x.shape[axis]
    idx = [slice(None)] * x.ndim
    if before:
        idx[axis] = slice(0, 1)
        first = x[tuple(idx)]
        parts.append(first.broadcast_to(x.shape[:axis] + (before,) + x.shape[axis + 1:]))
    parts.append(x)
    if after:
        idx[axis] = slice(i - 1, i)
        last = x[tuple(idx)]
        parts.append(last.broadcast_to(x.shape[:axis] + (after,) + x.shape[axis + 1:]))
    return concat(parts, axis) if len(parts) > 1 else x


@hl_op("max_pool2d")
def max_pool2d(
    x: GraphTensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1
) -> GraphTensor:
    """Max over windows: one MaxReduce over a window view.

    Padding repeats the edge elements instead of padding with zeros (a zero could beat an all-negative
    window; torch pads with -inf). Every padded window holds its nearest edge element when the
    dilation is 1, so the max is unchanged; padding with dilation > 1 is not supported."""
    _check_4d(x, "max_pool2d")
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None else _pair(stride, "stride")
    d = _pair(dilation, "dilation")
    (pt, pb), (pl, pr) = _pads(padding)
    if (pt or pb or pl or pr) and d != (1, 1):
        raise shape_error("max_pool2d", "padding together with dilation > 1 is not supported")
    if max(pt, pb) > k[0] // 2 or max(pl, pr) > k[1] // 2:
        raise shape_error("max_pool2d", f"padding {padding} must be at most half the kernel {k}")
    xp = _edge_pad(_edge_pad(x, 2, pt, pb), 3, pl, pr)
    win = _pool_windows(xp, k, s, d, "max_pool2d")
    return max_reduce(win, (4, 5))


@hl_op("avg_pool2d")
def avg_pool2d(
    x: GraphTensor, kernel_size: Any, stride: Any = None, padding: Any = 0, count_include_pad: bool = True
) -> GraphTensor:
    """Mean over windows: one SumReduce over a zero-padded window view, then a constant factor
    (1/(kh*kw), or 1/(number of real elements) per window when count_include_pad is False)."""
    _check_4d(x, "avg_pool2d")
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None else _pair(stride, "stride")
    (pt, pb), (pl, pr) = _pads(padding)
    xp = x.pad(((0, 0), (0, 0), (pt, pb), (pl, pr)))
    win = _pool_windows(xp, k, s, (1, 1), "avg_pool2d")
    total = sum_reduce(win, (4, 5))
    if count_include_pad or not (pt or pb or pl or pr):
        return mul_const(total, 1.0 / (k[0] * k[1]))
    oh, ow = total.shape[2:]
    h, w = x.shape[2:]

    def counts(o: int, kk: int, st: int, before: int, size: int) -> np.ndarray:
        starts = np.arange(o) * st - before
        return np.minimum(starts + kk, size) - np.maximum(starts, 0)

    cnt = np.outer(counts(oh, k[0], s[0], pt, h), counts(ow, k[1], s[1], pl, w)).astype(np.float64)
    return mul_const(total, 1.0 / cnt)


# -- concat and gather -------------------------------------------------------------------------------


@hl_op("concat")
def concat(tensors: Sequence[GraphTensor], axis: int = 0) -> GraphTensor:
    """Join along ``axis``: each part is zero-padded to the full length and the parts are added
    (padding reads 0, so the sum is exact)."""
    parts = list(tensors)
    if not parts:
        raise GraphError("concat needs at least one tensor")
    first = parts[0]
    if not isinstance(first, GraphTensor):
        raise GraphError("concat: the first item must be a GraphTensor")
    parts = [first._lift(p) for p in parts]
    axis = normalize_axis(axis, first.ndim, "concat")
    for p in parts[1:]:
        if p.ndim != first.ndim or any(a != b for i, (a, b) in enumerate(zip(p.shape, first.shape)) if i != axis):
            raise shape_error(
                "concat",
                f"shapes must match except on axis {axis}: " + ", ".join(str(q.shape) for q in parts),
            )
    if len(parts) == 1:
        return first
    total = sum(p.shape[axis] for p in parts)
    out, offset = None, 0
    for p in parts:
        pads = [(0, 0)] * p.ndim
        pads[axis] = (offset, total - offset - p.shape[axis])
        offset += p.shape[axis]
        piece = p.pad(pads)
        out = piece if out is None else out + piece
    return out


def _runs(idx: list[int]) -> list[tuple[int, int, int]]:
    """Split indices into (start, count, step) runs of arithmetic progressions with step >= 1."""
    runs: list[tuple[int, int, int]] = []
    i = 0
    while i < len(idx):
        start, count, step = idx[i], 1, 1
        if i + 1 < len(idx) and idx[i + 1] > idx[i]:
            step = idx[i + 1] - idx[i]
            while i + count < len(idx) and idx[i + count] - idx[i + count - 1] == step:
                count += 1
        runs.append((start, count, step))
        i += count
    return runs


@hl_op("gather")
def gather(x: GraphTensor, indices: Any, axis: int = 0) -> GraphTensor:
    """x.take(indices, axis) for constant integer indices (numpy/ONNX Gather): each run of
    equally spaced increasing indices is one strided slice; the runs are concatenated."""
    axis = normalize_axis(axis, x.ndim, "gather")
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise GraphError(f"gather: indices must be integers, got dtype {idx.dtype}")
    d = x.shape[axis]
    if ((idx < -d) | (idx >= d)).any():
        raise shape_error("gather", f"indices {idx.tolist()} out of range for axis {axis} of size {d}")
    flat = [int(v) % d for v in idx.reshape(-1)]
    if not flat:
        raise shape_error("gather", "empty index list")
    pieces = []
    for start, count, step in _runs(flat):
        ranges = [(0, e) for e in x.shape]
        ranges[axis] = (start, start + (count - 1) * step + 1, step)
        pieces.append(x.slice(ranges))
    out = concat(pieces, axis) if len(pieces) > 1 else pieces[0]
    return out.reshape(x.shape[:axis] + idx.shape + x.shape[axis + 1:])
