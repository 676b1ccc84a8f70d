"""Convolutions, pooling, padding modes and LRN over any number of spatial axes, built from views
and primitives.

Sliding windows are views, not copies: an axis of size i becomes (out, kernel) through one window
step (two strides on the axis), or a slice and a split where windows do not overlap; a padded
input is materialized once (StwoCompiler's materialize_views), the windows read that copy. Inputs
are (N, C, spatial...) as in ONNX and torch; ``pads`` are per spatial axis (before, after).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from luminair.verifier.graph.spec import MAX_VIEW_NUMEL
from luminair.verifier.graph.topology import MAX_SPARSE_ENTRIES

from .errors import GraphError
from .hl_math import hl_op, mul_const
from .hl_nn import concat_tree, gather
from .hl_reduce import max as max_reduce, sum as sum_reduce
from .shape import prod
from .tensor_base import TensorBase, shape_error

Pads = tuple[tuple[int, int], ...]

# The most elements one window copy (a pooling's windows, a convolution's im2col) holds: its
# topology costs at most two boundary rows an element, so a copy this size fits a verifier's
# per-trace bound (MAX_SPARSE_ENTRIES) alone; a larger layer is computed in bands of output rows
MAX_WINDOW_COPY = MAX_SPARSE_ENTRIES // 2  # (below settings.MAX_NUMEL, the tensor cap)


def _ints(v: Any, n: int, name: str) -> tuple[int, ...]:
    """An int (the same for every spatial axis) or one int per spatial axis."""
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    t = tuple(int(e) for e in v)
    if len(t) != n:
        raise GraphError(f"{name} must be an int or {n} ints (one per spatial axis), got {v!r}")
    return t


def _pads(padding: Any, n: int) -> Pads:
    """int | one int per axis | one (before, after) pair per axis -> ((before, after), ...)."""
    if isinstance(padding, (int, np.integer)):
        return ((int(padding), int(padding)),) * n
    items = tuple(padding)
    if len(items) == n and all(isinstance(e, (int, np.integer)) for e in items):
        return tuple((int(e), int(e)) for e in items)
    if len(items) == n and all(len(tuple(e)) == 2 for e in items):
        return tuple((int(a), int(b)) for a, b in items)
    raise GraphError(f"padding must be an int, {n} ints or {n} (before, after) pairs, got {padding!r}")


def _check_spatial(x: TensorBase, op: str, dims: int | None = None) -> int:
    """The number of spatial axes of an (N, C, spatial...) input."""
    if dims is not None and x.ndim != dims + 2:
        names = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}
        raise shape_error(op, f"input must be {names.get(dims, f'(N, C, {dims} spatial axes)')}, got {x.shape}")
    if x.ndim < 3:
        raise shape_error(op, f"input must be (N, C, spatial...), got {x.shape}")
    return x.ndim - 2


def _windows(x: TensorBase, axis: int, k: int, stride: int, dilation: int, op: str) -> TensorBase:
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


def window_view(x: TensorBase, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int],
                op: str) -> TensorBase:
    """(..., S1..Sd) -> (..., o1..od, k1..kd) for the last d = len(kernel) axes."""
    d = len(kernel)
    lead = x.ndim - d
    t = x
    for i in range(d):  # spatial axis i sits at lead + 2 i once the axes before it are split
        t = _windows(t, lead + 2 * i, kernel[i], stride[i], dilation[i], op)
    order = tuple(range(lead)) + tuple(lead + 2 * i for i in range(d)) + tuple(lead + 2 * i + 1 for i in range(d))
    return t.permute(order)


def _im2col(xp: TensorBase, k: tuple[int, ...], stride: tuple[int, ...], dilation: tuple[int, ...], groups: int,
            op: str) -> TensorBase:
    """The padded input (N, C, S...) as windows (N, G, 1, o..., C/G*prod(k))."""
    d = len(k)
    n, c = xp.shape[:2]
    cg = c // groups
    win = window_view(xp, k, stride, dilation, op)
    outs = tuple(win.shape[2:2 + d])  # (N, C, o..., k...)
    # (C/G, k...) merge into one axis, which copies the windows (im2col): the copy is laid out
    # (kk, o...), so its reads of the input run along the last spatial axis
    spatial, kernel_axes = tuple(range(3, 3 + d)), tuple(range(3 + d, 3 + 2 * d))
    kk = cg * prod(k)
    xv = win.reshape((n, groups, cg) + outs + k).permute((0, 1, 2) + kernel_axes + spatial).reshape((n, groups, kk) + outs)
    return xv.permute((0, 1) + spatial + (2,)).reshape((n, groups, 1) + outs + (kk,))


def _windows_dot(xv: TensorBase, w: TensorBase, groups: int) -> TensorBase:
    """im2col windows (N, G, 1, o..., kk) times the weight (O, C/G, k...): (N, O, o...)."""
    n, outs, kk = xv.shape[0], tuple(xv.shape[3:-1]), xv.shape[-1]
    o, d = w.shape[0], len(xv.shape) - 4
    og = o // groups
    full = (n, groups, og) + outs + (kk,)
    wv = w.reshape((1, groups, og) + (1,) * d + (kk,)).broadcast_to(full)
    return (xv.broadcast_to(full) * wv).sum_reduce(-1).reshape((n, o) + outs)


def _pieces(total: int, size: int) -> list[tuple[int, int]]:
    """[0, total) in ceil(total / size) near-equal ranges."""
    count = -(-total // size)
    bounds = [total * i // count for i in range(count + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def _conv(x: TensorBase, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any, groups: int,
          op: str, dims: int | None = None) -> TensorBase:
    """Cross-correlation (torch.nn.functional.conv{d}d): x (N, C, S...) is zero-padded and viewed as
    windows (N, G, 1, o..., C/G*prod(k)); the weight (O, C/G, k...) as (1, G, O/G, 1..., C/G*prod(k));
    one Mul and one SumReduce (fused into one Dot) give (N, O, o...).

    A layer whose windows copy (im2col) or whose Dot view would exceed the proof format's caps
    (MAX_WINDOW_COPY elements a copy, spec.MAX_VIEW_NUMEL a view) is computed in bands of
    output rows (the first spatial axis), and, where one row is still too large, in chunks of
    output channels (of each group on its own, groups > 1): each piece is the same Dot over a slice of the padded input and of
    the weight, so every output element is computed exactly as unsplit (one rounding); the pieces
    are joined by concat (zero padding and exact additions)."""
    d = _check_spatial(x, op, dims)
    w = x._lift(weight)
    if w.ndim != x.ndim:
        raise shape_error(op, f"weight must be (O, C/groups, {d} kernel axes), got {w.shape}")
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    k = tuple(w.shape[2:])
    if groups < 1 or c % groups or o % groups:
        raise shape_error(op, f"groups={groups} must divide the input channels {c} and output channels {o}")
    if cg != c // groups:
        raise shape_error(op, f"weight {w.shape} expects {cg * groups} input channels, input {x.shape} has {c}")
    st, dl = _ints(stride, d, "stride"), _ints(dilation, d, "dilation")
    xp = x.pad(((0, 0), (0, 0)) + _pads(padding, d))
    spans = [dl[i] * (k[i] - 1) + 1 for i in range(d)]
    outs = tuple((xp.shape[2 + i] - spans[i]) // st[i] + 1 for i in range(d))
    kk, og = cg * prod(k), o // groups
    row = n * groups * prod(outs[1:]) * kk  # the im2col copy of one output row

    def fits(rows: int, channels: int) -> bool:
        return row * rows <= MAX_WINDOW_COPY and row * rows * channels <= MAX_VIEW_NUMEL

    if min(outs) < 1 or min(k) < 1 or fits(outs[0], og):
        out = _windows_dot(_im2col(xp, k, st, dl, groups, op), w, groups)
    elif groups > 1 and not fits(1, og):  # each group its own convolution (then split further)
        parts = [_conv(x.slice([(i * cg, (i + 1) * cg) if a == 1 else (0, s) for a, s in enumerate(x.shape)]),
                       w.slice([(i * og, (i + 1) * og) if a == 0 else (0, s) for a, s in enumerate(w.shape)]),
                       None, st, _pads(padding, d), dl, 1, op)
                 for i in range(groups)]
        out = concat_tree(parts, 1)
    else:
        rows = max(1, max((r for r in range(1, outs[0] + 1) if fits(r, og)), default=1))
        chunk = og if fits(rows, og) else max(1, MAX_VIEW_NUMEL // (row * rows))
        bands = []
        for r0, r1 in _pieces(outs[0], rows):
            lo, hi = r0 * st[0], (r1 - 1) * st[0] + spans[0]
            band = xp.slice([(lo, hi) if a == 2 else (0, s) for a, s in enumerate(xp.shape)])
            xv = _im2col(band, k, st, dl, groups, op)
            parts = [_windows_dot(xv, w.slice([(c0, c1) if a == 0 else (0, s) for a, s in enumerate(w.shape)]), 1)
                     for c0, c1 in _pieces(o, chunk)] if chunk < og else [_windows_dot(xv, w, groups)]
            bands.append(concat_tree(parts, 1))
        out = concat_tree(bands, 2)
    if bias is not None:
        b = x._lift(bias)
        if b.shape != (o,):
            raise shape_error(op, f"bias must have shape ({o},), got {b.shape}")
        out = out + b.reshape((1, o) + (1,) * d)
    return out


@hl_op("conv")
def conv(x: TensorBase, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
         groups: int = 1) -> TensorBase:
    """Convolution over the spatial axes of (N, C, S1..Sd), any d >= 1 (ONNX Conv)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, "conv")


@hl_op("conv2d")
def conv2d(x: TensorBase, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> TensorBase:
    """2-D convolution (cross-correlation, as torch.nn.functional.conv2d) of (N, C, H, W); padding
    is an int, (ph, pw) or ((top, bottom), (left, right))."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, "conv2d", dims=2)


def _dilate(x: TensorBase, axis: int, s: int) -> TensorBase:
    """Insert s - 1 zeros between the elements of ``axis`` (a view: unsqueeze, pad, merge, slice)."""
    if s == 1:
        return x
    i = x.shape[axis]
    t = x.unsqueeze(axis + 1).pad([(0, s - 1) if a == axis + 1 else (0, 0) for a in range(x.ndim + 1)])
    t = t.reshape(x.shape[:axis] + (i * s,) + x.shape[axis + 1:])
    return t.slice([(0, (i - 1) * s + 1) if a == axis else (0, d) for a, d in enumerate(t.shape)])


def _crop_or_pad(x: TensorBase, axis: int, before: int, after: int) -> TensorBase:
    """Zero-pad ``axis`` by (before, after); a negative amount crops instead."""
    if before < 0 or after < 0:
        n = x.shape[axis]
        start, stop = max(0, -before), n - max(0, -after)
        if start >= stop:
            raise shape_error("conv_transpose", f"the padding crops all of axis {axis} (size {n})")
        x = x.slice([(start, stop) if a == axis else (0, d) for a, d in enumerate(x.shape)])
    return x.pad([(max(0, before), max(0, after)) if a == axis else (0, 0) for a in range(x.ndim)])


@hl_op("flip")
def flip(x: Any, axis: int) -> Any:
    """x reversed along ``axis``: numpy's flip for an array, a gather of the reversed index list
    (one slice per element, concatenated) for a tensor."""
    if not isinstance(x, TensorBase):
        return np.flip(np.asarray(x, dtype=np.float64), axis)
    return gather(x, np.arange(x.shape[axis] - 1, -1, -1), axis)


@hl_op("conv_transpose")
def conv_transpose(x: TensorBase, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                   output_padding: Any = 0, dilation: Any = 1, groups: int = 1) -> TensorBase:
    """Transposed convolution (ONNX ConvTranspose, torch conv_transpose{d}d): the input's spatial
    axes are dilated by the stride (zeros between elements, a view), padded by (k - 1) dilation
    minus the padding (plus output_padding at the end), and correlated with the kernel flipped
    and its channel axes swapped: weight (C, O/G, k...) -> (O, C/G, k...). Output size per axis:
    stride (i - 1) + output_padding + (k - 1) dilation + 1 - before - after."""
    d = _check_spatial(x, "conv_transpose")
    w_arr = None if isinstance(weight, TensorBase) else np.asarray(weight, dtype=np.float64)
    w_shape = weight.shape if w_arr is None else w_arr.shape
    if len(w_shape) != x.ndim:
        raise shape_error("conv_transpose", f"weight must be (C, O/groups, {d} kernel axes), got {tuple(w_shape)}")
    c, og = w_shape[:2]
    k = tuple(w_shape[2:])
    if groups < 1 or c % groups or x.shape[1] != c:
        raise shape_error("conv_transpose", f"weight {tuple(w_shape)} expects {c} input channels (groups={groups}), "
                                            f"input {x.shape} has {x.shape[1]}")
    s, dl = _ints(stride, d, "stride"), _ints(dilation, d, "dilation")
    op_ = _ints(output_padding, d, "output_padding")
    pads = _pads(padding, d)
    t = x
    for i in range(d):
        axis = 2 + i
        t = _dilate(t, axis, s[i])
        edge = (k[i] - 1) * dl[i]
        t = _crop_or_pad(t, axis, edge - pads[i][0], edge - pads[i][1] + op_[i])
    cg = c // groups
    order = (0, 2, 1) + tuple(range(3, 3 + d))
    if w_arr is not None:
        wt = w_arr.reshape((groups, cg, og) + k).transpose(order).reshape((groups * og, cg) + k)
        wt = np.ascontiguousarray(np.flip(wt, tuple(range(2, 2 + d))))
    else:
        wt = weight.reshape((groups, cg, og) + k).permute(order).reshape((groups * og, cg) + k)
        for i in range(d):
            wt = flip(wt, 2 + i)
    return _conv(t, wt, bias, 1, 0, dl, groups, "conv_transpose")


# -- pooling ----------------------------------------------------------------------------------------


def _out_size(i: int, k: int, s: int, d: int, before: int, after: int, ceil: bool) -> int:
    span = d * (k - 1) + 1
    total = i + before + after - span
    o = (-(-total // s) if ceil else total // s) + 1
    if ceil and (o - 1) * s >= i + before:  # ONNX: a window must start inside the input or the left padding
        o -= 1
    return o


def _pool_geometry(x: TensorBase, kernel: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool,
                   op: str, dims: int | None) -> tuple[tuple, tuple, tuple, Pads, Pads]:
    """(kernel, stride, dilation, pads, pads with the extra end padding ceil_mode needs)."""
    d = _check_spatial(x, op, dims)
    k = _ints(kernel, d, "kernel_size")
    s = k if stride is None else _ints(stride, d, "stride")
    dl = _ints(dilation, d, "dilation")
    pads = _pads(padding, d)
    full = []
    for i in range(d):
        o = _out_size(x.shape[2 + i], k[i], s[i], dl[i], *pads[i], ceil_mode)
        need = (o - 1) * s[i] + dl[i] * (k[i] - 1) + 1 - (x.shape[2 + i] + pads[i][0])
        full.append((pads[i][0], max(pads[i][1], need)))
    return k, s, dl, pads, tuple(full)


def _real_counts(n: int, o: int, k: int, s: int, d: int, before: int, lo: int, hi: int) -> np.ndarray:
    """Per output position, how many of its window's taps t s + j d - before lie in [lo, hi)."""
    taps = np.arange(o)[:, None] * s + np.arange(k)[None, :] * d - before
    return ((taps >= lo) & (taps < hi)).sum(axis=1)


def _fill_pad(x: TensorBase, pads: Pads, value: float) -> TensorBase:
    """x padded with ``value`` (not zeros) on its last len(pads) axes: per padded axis one zero-pad
    view and one Add of a constant that holds ``value`` at that axis's padding positions (a corner
    is zero-padded by the later axis, so it gets ``value`` once). Exact."""
    lead = x.ndim - len(pads)
    t = x
    for i, (b, a) in enumerate(pads):
        if not (b or a):
            continue
        axis = lead + i
        t = t.pad([(b, a) if j == axis else (0, 0) for j in range(t.ndim)])
        if value != 0.0:
            line = np.zeros(t.shape[axis])
            line[:b] = value
            line[t.shape[axis] - a:] = value
            shape = tuple(t.shape[axis] if j == axis else 1 for j in range(t.ndim))
            t = t + x.graph.constant(line.reshape(shape))
    return t


def _max_pool(x: TensorBase, kernel: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool, op: str,
              dims: int | None) -> TensorBase:
    """Max over windows: one MaxReduce over a window view (in bands of output rows where the
    windows' copy would pass MAX_WINDOW_COPY). Padding holds the format's smallest
    value (what -inf padding means once every window holds at least one element of the input,
    checked here), so the max is exactly the max of the window's real elements."""
    k, s, dl, pads, full = _pool_geometry(x, kernel, stride, padding, dilation, ceil_mode, op, dims)
    d = len(k)
    for i in range(d):
        n = x.shape[2 + i]
        o = _out_size(n, k[i], s[i], dl[i], *pads[i], ceil_mode)
        if (_real_counts(n, o, k[i], s[i], dl[i], full[i][0], 0, n) == 0).any():
            raise shape_error(op, f"a window of spatial axis {i} holds only padding (kernel {k[i]}, stride {s[i]}, "
                                  f"dilation {dl[i]}, pads {pads[i]}); its max would be -inf")
    xp = _fill_pad(x, full, x.graph.numeric_format.min_real)
    win = window_view(xp, k, s, dl, op)
    axes = tuple(range(2 + d, 2 + 2 * d))
    outs, rows = win.shape[2:2 + d], prod(win.shape[3:])  # (the windows of one output row, every channel)
    if prod(win.shape) <= MAX_WINDOW_COPY or outs[0] == 1:
        return max_reduce(win, axes)
    # in bands of output rows, each its own window copy within MAX_WINDOW_COPY: every output is
    # the same max over the same elements, joined by concat (exact)
    band = max(1, MAX_WINDOW_COPY // (x.shape[0] * x.shape[1] * rows))
    span = dl[0] * (k[0] - 1) + 1
    parts = []
    for r0, r1 in _pieces(outs[0], band):
        lo, hi = r0 * s[0], (r1 - 1) * s[0] + span
        piece = xp.slice([(lo, hi) if a == 2 else (0, n) for a, n in enumerate(xp.shape)])
        parts.append(max_reduce(window_view(piece, k, s, dl, op), axes))
    return concat_tree(parts, 2)


@hl_op("max_pool")
def max_pool(x: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
             ceil_mode: bool = False) -> TensorBase:
    """Max pooling over the spatial axes of (N, C, S1..Sd) (ONNX MaxPool)."""
    return _max_pool(x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool", None)


@hl_op("max_pool2d")
def max_pool2d(x: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1) -> TensorBase:
    """2-D max pooling of (N, C, H, W) (torch.nn.functional.max_pool2d: -inf padding)."""
    return _max_pool(x, kernel_size, stride, padding, dilation, False, "max_pool2d", 2)


def _avg_pool(x: TensorBase, kernel: Any, stride: Any, padding: Any, count_include_pad: bool, dilation: Any,
              ceil_mode: bool, op: str, dims: int | None) -> TensorBase:
    """Mean over windows: one SumReduce over a zero-padded window view, then a constant factor per
    output position, 1 / (the taps inside the input, or inside the input and its explicit padding
    with count_include_pad; ceil_mode's extra end padding never counts)."""
    k, s, dl, pads, full = _pool_geometry(x, kernel, stride, padding, dilation, ceil_mode, op, dims)
    d = len(k)
    xp = x.pad(((0, 0), (0, 0)) + full)
    total = sum_reduce(window_view(xp, k, s, dl, op), tuple(range(2 + d, 2 + 2 * d)))
    per_axis = []
    for i in range(d):
        n, (b, a) = x.shape[2 + i], pads[i]
        lo, hi = (-b, n + a) if count_include_pad else (0, n)
        per_axis.append(_real_counts(n, total.shape[2 + i], k[i], s[i], dl[i], b, lo, hi))
    cnt = per_axis[0].astype(np.float64)
    for c in per_axis[1:]:
        cnt = np.multiply.outer(cnt, c)
    if (cnt == 0).any():
        raise shape_error(op, "a window holds no element of the input (its mean is undefined)")
    if (cnt == prod(k)).all():
        return mul_const(total, 1.0 / prod(k))
    return mul_const(total, 1.0 / cnt)


@hl_op("avg_pool")
def avg_pool(x: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0, count_include_pad: bool = True,
             dilation: Any = 1, ceil_mode: bool = False) -> TensorBase:
    """Average pooling over the spatial axes of (N, C, S1..Sd) (ONNX AveragePool)."""
    return _avg_pool(x, kernel_size, stride, padding, count_include_pad, dilation, ceil_mode, "avg_pool", None)


@hl_op("avg_pool2d")
def avg_pool2d(x: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               count_include_pad: bool = True) -> TensorBase:
    """2-D average pooling of (N, C, H, W) (torch.nn.functional.avg_pool2d)."""
    return _avg_pool(x, kernel_size, stride, padding, count_include_pad, 1, False, "avg_pool2d", 2)


# -- padding modes and LRN ----------------------------------------------------------------------------


@hl_op("pad")
def pad(x: TensorBase, pads: Sequence[tuple[int, int]], mode: str = "constant", value: float = 0.0) -> TensorBase:
    """numpy.pad of every axis by (before, after): mode "constant" (zeros are a view; another value
    adds it at the padding positions, exact), "edge" (the first / last element repeated) or
    "reflect" (mirrored without the edge). The edge and reflect modes gather the index list of
    each padded axis (one slice per run of indices, concatenated). Exact in every mode."""
    pads = tuple((int(b), int(a)) for b, a in pads)
    if len(pads) != x.ndim or any(b < 0 or a < 0 for b, a in pads):
        raise shape_error("pad", f"need one non-negative (before, after) per axis of {x.shape}, got {pads}")
    if mode == "constant":
        return _fill_pad(x, pads, float(value))
    if mode not in ("edge", "reflect"):
        raise GraphError(f"pad: unknown mode {mode!r} (constant, edge, reflect)")
    t = x
    for axis, (b, a) in enumerate(pads):
        if not (b or a):
            continue
        n = t.shape[axis]
        if mode == "edge":
            idx = [0] * b + list(range(n)) + [n - 1] * a
        else:
            if b > n - 1 or a > n - 1:
                raise shape_error("pad", f"reflect padding ({b}, {a}) of axis {axis} needs at most {n - 1} a side")
            idx = list(range(b, 0, -1)) + list(range(n)) + list(range(n - 2, n - 2 - a, -1))
        t = gather(t, np.asarray(idx), axis)
    return t


@hl_op("lrn")
def lrn(x: TensorBase, size: int, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0) -> TensorBase:
    """Local response normalization across channels (ONNX LRN): x / (bias + alpha / size * s)^beta,
    s the sum of squares over the size channels around c. The squares are of x * sqrt(alpha / size)
    (so s is already scaled, never large), summed by one SumReduce over a window view of the
    zero-padded channel axis; the power is exp2(-beta * log2(base)), in (0, 1] for base >= 1."""
    if x.ndim < 2 or size < 1:
        raise shape_error("lrn", f"needs (N, C, ...) and size >= 1, got {x.shape} and size {size}")
    if bias <= 0:
        raise GraphError(f"lrn: bias must be positive (the base of the power), got {bias}")
    u = mul_const(x, float(np.sqrt(alpha / size)))
    sq = (u * u).pad([((size - 1) // 2, size // 2) if a == 1 else (0, 0) for a in range(x.ndim)])
    s = sq.window(1, size, 1, 1).sum_reduce(2)  # (N, C, size, ...) -> (N, C, ...)
    return x * ((s + float(bias)).log2() * -float(beta)).exp2()


class ConvMethods:
    """This module's functions as GraphTensor methods (a mixin of tensor.GraphTensor)."""

    __slots__ = ()
    conv = conv
    conv2d = conv2d
    conv_transpose = conv_transpose
    max_pool = max_pool
    max_pool2d = max_pool2d
    avg_pool = avg_pool
    avg_pool2d = avg_pool2d
