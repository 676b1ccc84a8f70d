"""ShapeTracker: a view of a source tensor as a short list of movement ops.

A view never moves data; it says, for every element of the view, which element of the source it
reads (or that it reads padding, value 0). Views are built from five kinds of step:

* ``reshape(shape)``   same elements, new shape (row-major)
* ``permute(axes)``    axes reordered
* ``expand(shape)``    size-1 axes repeated (broadcast)
* ``slice(ranges)``    per axis ``(start, stop, step)`` with step >= 1
* ``pad(pads)``        per axis ``(before, after)`` zeros

Any sequence of steps is allowed (a reshape of a permuted, padded view is fine); ``src_indices()``
replays the steps on an index array, which is exact by construction. Steps are merged where that
is free (two reshapes, two permutes), so equal views usually compare equal for CSE.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ...verifier.graph.spec import window_shape

MAX_CACHED_INDICES = 1 << 22  # a larger view's index map is rebuilt when asked (not kept alive with its graph)

Shape = tuple[int, ...]


def prod(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _check_shape(shape: Sequence[int]) -> Shape:
    out = tuple(map(int, shape))  # called for every view a compile makes: no generator expressions
    if out and min(out) < 0:
        raise ValueError(f"negative dimension in shape {out}")
    return out


class ShapeTracker:
    """An immutable view: ``src_shape`` -> ``shape`` through ``steps``."""

    __slots__ = ("src_shape", "steps", "shape", "_indices", "_hash", "_replayed")

    def __init__(self, src_shape: Sequence[int], steps: tuple = (), shape: Sequence[int] | None = None):
        self.src_shape: Shape = _check_shape(src_shape)
        self.steps: tuple = steps
        self.shape: Shape = self.src_shape if shape is None else _check_shape(shape)
        self._indices: np.ndarray | None = None
        self._hash: int | None = None
        self._replayed: ShapeTracker | None = None  # ShapeTracker(src_shape).compose(self), once computed

    # -- identity ---------------------------------------------------------------------------------

    @classmethod
    def contiguous(cls, shape: Sequence[int]) -> "ShapeTracker":
        """The identity view of a tensor of ``shape``."""
        return cls(shape)

    def key(self) -> tuple:
        return (self.src_shape, self.steps)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeTracker) and self.key() == other.key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.key())
        return self._hash

    def __repr__(self) -> str:
        return f"ShapeTracker({self.src_shape} -> {self.shape}: {self.describe()})"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return prod(self.shape)

    def describe(self) -> str:
        if not self.steps:
            return "identity"
        parts = []
        for kind, arg in self.steps:
            if kind == "slice":
                arg = tuple(f"{a}:{b}" + (f":{c}" if c != 1 else "") for a, b, c in arg)
            parts.append(f"{kind}{arg}")
        return " | ".join(parts)

    def is_identity(self) -> bool:
        """True when the view reads every source element once, in order."""
        if not self.steps:
            return True
        if self.shape != self.src_shape:
            return False
        idx = self.src_indices()
        return bool(np.array_equal(idx, np.arange(idx.size, dtype=np.int64)))

    def reads_padding(self) -> bool:
        return bool((self.src_indices() < 0).any())

    # -- the index map -------------------------------------------------------------------------

    def src_indices(self) -> np.ndarray:
        """int64 array of length prod(shape): for each view element in row-major order, the flat
        row-major index of the source element it reads, or -1 where it reads padding (0)."""
        if self._indices is None:
            idx = np.arange(prod(self.src_shape), dtype=np.int64).reshape(self.src_shape)
            for kind, arg in self.steps:
                if kind == "reshape":
                    idx = idx.reshape(arg)
                elif kind == "permute":
                    idx = idx.transpose(arg)
                elif kind == "expand":
                    idx = np.broadcast_to(idx, arg)
                elif kind == "slice":
                    idx = idx[tuple(slice(a, b, c) for a, b, c in arg)]
                elif kind == "pad":
                    idx = np.pad(idx, arg, mode="constant", constant_values=-1)
                elif kind == "window":
                    axis, k, stride, dilation = arg
                    o = (idx.shape[axis] - dilation * (k - 1) - 1) // stride + 1
                    pos = stride * np.arange(o)[:, None] + dilation * np.arange(k)[None, :]
                    idx = np.take(idx, pos, axis=axis)
                else:  # pragma: no cover - steps are only made by the methods below
                    raise AssertionError(kind)
            flat = np.ascontiguousarray(idx, dtype=np.int64).reshape(-1)
            flat.flags.writeable = False
            if flat.size > MAX_CACHED_INDICES:
                return flat
            self._indices = flat
        return self._indices

    def gather(self, src_flat: np.ndarray) -> np.ndarray:
        """Apply the view to a flat source array: returns the view's elements, flat, row-major
        (padding reads 0)."""
        idx = self.src_indices()
        if not self.steps:
            return src_flat
        if idx.size and idx.min() < 0:
            padded = np.concatenate([src_flat, np.zeros(1, dtype=src_flat.dtype)])
            return padded[idx]  # -1 reads the appended 0
        return src_flat[idx]

    # -- building ----------------------------------------------------------------------------------

    def _push(self, kind: str, arg: tuple, new_shape: Shape) -> "ShapeTracker":
        steps = self.steps
        if kind in ("reshape", "expand") and new_shape == self.shape:
            return self
        if steps and steps[-1][0] == "reshape" and kind == "reshape":
            steps = steps[:-1]  # reshape o reshape = reshape
        elif steps and steps[-1][0] == "permute" and kind == "permute":
            prev = steps[-1][1]
            arg = tuple(prev[a] for a in arg)  # permute o permute = permute
            steps = steps[:-1]
            if arg == tuple(range(len(arg))):
                return ShapeTracker(self.src_shape, steps, new_shape)._drop_trivial_reshape()
        steps = steps + ((kind, arg),)
        return ShapeTracker(self.src_shape, steps, new_shape)._drop_trivial_reshape()

    def _drop_trivial_reshape(self) -> "ShapeTracker":
        # a lone reshape back to the source shape (or a trailing no-op reshape) is the identity
        if len(self.steps) == 1 and self.steps[0][0] == "reshape" and self.shape == self.src_shape:
            return ShapeTracker(self.src_shape)
        return self

    def reshape(self, shape: Sequence[int]) -> "ShapeTracker":
        shape = _check_shape(shape)
        if prod(shape) != self.numel:
            raise ValueError(f"cannot reshape {self.shape} ({self.numel} elements) to {shape}")
        return self._push("reshape", shape, shape)

    def permute(self, axes: Sequence[int]) -> "ShapeTracker":
        axes = tuple(int(a) for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"permute axes {axes} are not a permutation of {self.ndim} axes")
        if axes == tuple(range(self.ndim)):
            return self
        return self._push("permute", axes, tuple(self.shape[a] for a in axes))

    def expand(self, shape: Sequence[int]) -> "ShapeTracker":
        shape = _check_shape(shape)
        if len(shape) != self.ndim or any(a != b and a != 1 for a, b in zip(self.shape, shape)):
            raise ValueError(f"cannot expand {self.shape} to {shape} (only size-1 axes can grow)")
        return self._push("expand", shape, shape)

    def slice(self, ranges: Sequence[tuple[int, int] | tuple[int, int, int]]) -> "ShapeTracker":
        if len(ranges) != self.ndim:
            raise ValueError(f"slice needs one range per axis ({self.ndim}), got {len(ranges)}")
        norm = []
        for (r, d) in zip(ranges, self.shape):
            a, b, c = (tuple(r) + (1,))[:3]
            a, b, c = int(a), int(b), int(c)
            if c < 1 or not (0 <= a <= b <= d):
                raise ValueError(f"slice range {r} is not within an axis of size {d} with step >= 1")
            norm.append((a, b, c))
        norm_t = tuple(norm)
        if all(r == (0, d, 1) for r, d in zip(norm_t, self.shape)):
            return self
        shape = tuple(len(range(a, b, c)) for a, b, c in norm_t)
        return self._push("slice", norm_t, shape)

    def pad(self, pads: Sequence[tuple[int, int]]) -> "ShapeTracker":
        if len(pads) != self.ndim:
            raise ValueError(f"pad needs one (before, after) per axis ({self.ndim}), got {len(pads)}")
        norm = tuple((int(a), int(b)) for a, b in pads)
        if any(a < 0 or b < 0 for a, b in norm):
            raise ValueError(f"pad widths must be non-negative, got {norm}")
        if all(p == (0, 0) for p in norm):
            return self
        shape = tuple(d + a + b for d, (a, b) in zip(self.shape, norm))
        return self._push("pad", norm, shape)

    def window(self, axis: int, k: int, stride: int = 1, dilation: int = 1) -> "ShapeTracker":
        """Replace `axis` (size n) by (o, k): element [t, j] reads [t stride + j dilation]."""
        arg = (int(axis), int(k), int(stride), int(dilation))
        return self._push("window", arg, window_shape(self.shape, arg))

    def step(self, kind: str, arg: tuple) -> "ShapeTracker":
        """This view followed by one recorded step (kind, arg)."""
        return _APPLY[kind](self, arg)

    def compose(self, then: "ShapeTracker") -> "ShapeTracker":
        """This view followed by ``then`` (a view over this view's shape)."""
        if then.src_shape != self.shape:
            raise ValueError(f"cannot compose a view of {then.src_shape} onto a view of shape {self.shape}")
        # onto an identity view the result depends on then's key alone (Graph.transform composes
        # every edge so, every pass): kept on then, and on a result of the same key
        identity = not self.steps and self.src_shape == self.shape
        if identity and then._replayed is not None:
            return then._replayed
        out = self
        for kind, arg in then.steps:
            out = out.step(kind, arg)
        if out.shape != then.shape:  # pragma: no cover - replaying the same steps gives the same shape
            raise AssertionError((out.shape, then.shape))
        if identity:
            then._replayed = out
            if out._replayed is None and out.key() == then.key():
                out._replayed = out
        return out


_APPLY = {
    "reshape": ShapeTracker.reshape,
    "permute": ShapeTracker.permute,
    "expand": ShapeTracker.expand,
    "slice": ShapeTracker.slice,
    "pad": ShapeTracker.pad,
    "window": lambda st, arg: st.window(*arg),
}
