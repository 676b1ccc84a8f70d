"""Layers: matmul, linear, concat, gather and tile, built from views and primitives
(convolutions and pooling: hl_conv.py)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .errors import GraphError
from .hl_math import hl_op
from .tensor_base import TensorBase, broadcast_shapes, normalize_axis, shape_error


def _tensor_of(x: Any, like: TensorBase) -> TensorBase:
    return like._lift(x)


# -- matmul --------------------------------------------------------------------------------------------


@hl_op("matmul")
def matmul(a: TensorBase, b: Any) -> TensorBase:
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
def linear(x: TensorBase, weight: Any, bias: Any = None) -> TensorBase:
    """x @ weight.T + bias, with weight of shape (out_features, in_features) as in torch."""
    w = _tensor_of(weight, x)
    if w.ndim != 2:
        raise shape_error("linear", f"weight must be 2-D (out, in), got {w.shape}")
    out = matmul(x, w.T)
    if bias is not None:
        out = out + bias
    return out


# -- concat and gather -------------------------------------------------------------------------------


@hl_op("concat")
def concat(tensors: Sequence[TensorBase], axis: int = 0) -> TensorBase:
    """Join along ``axis``: each part is zero-padded to the full length and the parts are added
    (padding reads 0, so the sum is exact)."""
    parts = list(tensors)
    if not parts:
        raise GraphError("concat needs at least one tensor")
    first = parts[0]
    if not isinstance(first, TensorBase):
        raise GraphError("concat: the first item must be a TensorBase")
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


def concat_tree(parts: Sequence[TensorBase], axis: int) -> TensorBase:
    """concat of many parts as a balanced tree of two-part concats: each level adds tensors of the
    total size once (log2 of the parts levels), where one chain adds every part to the full length."""
    if len(parts) == 1:
        return parts[0]
    half = len(parts) // 2
    return concat([concat_tree(parts[:half], axis), concat_tree(parts[half:], axis)], axis)


def _runs(idx: list[int]) -> list[tuple[int, int, int]]:
    """Split indices into (start, count, step) runs of arithmetic progressions with step >= 0
    (step 0: one index repeated)."""
    runs: list[tuple[int, int, int]] = []
    i = 0
    while i < len(idx):
        start, count, step = idx[i], 1, 1
        if i + 1 < len(idx) and idx[i + 1] >= idx[i]:
            step = idx[i + 1] - idx[i]
            while i + count < len(idx) and idx[i + count] - idx[i + count - 1] == step:
                count += 1
        runs.append((start, count, step))
        i += count
    return runs


@hl_op("gather")
def gather(x: TensorBase, indices: Any, axis: int = 0) -> TensorBase:
    """x.take(indices, axis) for constant integer indices (numpy/ONNX Gather): each run of
    equally spaced increasing indices is one strided slice (a repeated index: one element
    broadcast); the runs are concatenated."""
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
        if step == 0:
            ranges[axis] = (start, start + 1)
            pieces.append(x.slice(ranges).broadcast_to(x.shape[:axis] + (count,) + x.shape[axis + 1:]))
            continue
        ranges[axis] = (start, start + (count - 1) * step + 1, step)
        pieces.append(x.slice(ranges))
    out = concat(pieces, axis) if len(pieces) > 1 else pieces[0]
    return out.reshape(x.shape[:axis] + idx.shape + x.shape[axis + 1:])


@hl_op("tile")
def tile(x: TensorBase, repeats: Sequence[int]) -> TensorBase:
    """numpy.tile with one repeat count per axis (ONNX Tile): each axis (size d) is viewed as
    (r, d) by a broadcast and merged into r * d, a view (copied once by the compiler)."""
    reps = tuple(int(r) for r in repeats)
    if len(reps) != x.ndim or any(r < 1 for r in reps):
        raise shape_error("tile", f"need one repeat count >= 1 per axis of {x.shape}, got {reps}")
    t = x
    for axis, r in enumerate(reps):
        if r == 1:
            continue
        shape = t.shape
        t = t.unsqueeze(axis).broadcast_to(shape[:axis] + (r,) + shape[axis:])
        t = t.reshape(shape[:axis] + (r * shape[axis],) + shape[axis + 1:])
    return t



class NNMethods:
    """This module's functions as GraphTensor methods (a mixin of tensor.GraphTensor)."""

    __slots__ = ()
    matmul = matmul
    linear = linear
    gather = gather
    tile = tile

    def __matmul__(self, other: Any) -> TensorBase:
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> TensorBase:
        return matmul(self._lift(other), self)
