"""TensorBase: a lazy handle on a node, read through a view, with the primitive ops (the ones the
graph's nodes are made of), the view changes and the helpers every high-level op uses.

Operators and methods add nodes to the graph (or, for movement ops, only change the view); nothing
is computed until the graph runs. Handles stay valid when compilers rewrite the graph. The
high-level ops (hl_math, hl_reduce, hl_nn, hl_conv) add their methods as mixins: GraphTensor
(tensor.py) is TensorBase with all of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from . import origin as _origin
from .errors import GraphError, InputError, ShapeError
from .node import Node, reduced_shape
from .ops import Op
from .shape import Shape, ShapeTracker, prod

if TYPE_CHECKING:
    from .graph import Graph


def shape_error(op: str, message: str) -> ShapeError:
    """A ShapeError naming the op and the user's line of code."""
    where = _origin.user_line()
    ctx = _origin.current_context()
    head = f"{ctx} > {op}" if ctx and not ctx.endswith(op) else (ctx or op)
    return ShapeError(f"{head}: {message}" + (f" (at {where})" if where else ""))


def normalize_axis(axis: int, ndim: int, op: str) -> int:
    if not isinstance(axis, (int, np.integer)):
        raise shape_error(op, f"axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise shape_error(op, f"axis {axis} is out of range for a tensor with {ndim} axes")
    return int(axis) % ndim if ndim else 0


def broadcast_shapes(a: Shape, b: Shape, op: str) -> Shape:
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(pa, pb):
        if x != y and x != 1 and y != 1:
            raise shape_error(op, f"shapes {a} and {b} cannot be broadcast together")
        out.append(y if x == 1 else x)
    return tuple(out)


class TensorBase:
    """A value in a Graph: ``node`` read through ``view`` (a ShapeTracker)."""

    __array_ufunc__ = None  # numpy defers to our reflected operators (array + tensor works)
    __slots__ = ("graph", "_node", "_view", "_mask", "__weakref__")

    def __init__(self, graph: "Graph", node: Node, view: ShapeTracker, mask: bool = False):
        self.graph = graph
        self._node: Node | None = node
        self._view = view
        self._mask = mask  # True when every element is 0 or 1 (comparison results)
        graph._register(self)

    # -- identity ----------------------------------------------------------------------------

    @property
    def node(self) -> Node:
        if self._node is None:
            raise GraphError(
                "this tensor's node was removed by compilation (nothing depended on it); mark it as an "
                "output with .output() before compiling to keep it"
            )
        return self._node

    @property
    def view(self) -> ShapeTracker:
        return self._view

    @property
    def shape(self) -> Shape:
        return self._view.shape

    @property
    def ndim(self) -> int:
        return len(self._view.shape)

    @property
    def numel(self) -> int:
        return prod(self._view.shape)

    def __repr__(self) -> str:
        if self._node is None:
            return f"<GraphTensor (removed) {self.shape}>"
        return f"<GraphTensor {self.shape} of {self._node.label()} node {self._node.id}>"

    def __bool__(self) -> bool:
        raise GraphError("a GraphTensor has no value until the graph runs (use where() for conditions)")

    def __iter__(self):
        raise TypeError("a GraphTensor is not iterable; index it (t[i]) or run the graph")

    def output(self, name: str | None = None) -> "TensorBase":
        """Mark this value as a graph output (returned by run under ``name``)."""
        self.graph.set_output(name, self.node, self._view)
        return self

    def named(self, name: str) -> "TensorBase":
        """Name the node computing this value (shown in summaries and errors); call it right after
        building the value, before anything reads it."""
        self.graph.name_node(self.node, name)
        return self

    # -- helpers ---------------------------------------------------------------------------------

    def _with_view(self, view: ShapeTracker) -> "TensorBase":
        return type(self)(self.graph, self.node, view, self._mask)

    def _new(self, op: Op, srcs: Sequence[tuple["TensorBase", ShapeTracker]], shape: Shape,
             axis: int | None = None, mask: bool = False) -> "TensorBase":
        node = self.graph.add_node(op, [(t.node, v) for t, v in srcs], shape, axis=axis)
        return type(self)(self.graph, node, ShapeTracker(shape), mask)

    def _lift(self, other: Any) -> "TensorBase":
        """Another tensor of this graph, or a number/array made a constant."""
        if isinstance(other, TensorBase):
            if other.graph is not self.graph:
                raise GraphError("cannot combine tensors of two different graphs")
            return other
        if isinstance(other, (bool, int, float, np.integer, np.floating)):
            return self.graph.constant(float(other))
        return self.graph.constant(other)

    def _movement(self, op: str, fn, *args) -> "TensorBase":
        try:
            return self._with_view(fn(self._view, *args))
        except ValueError as e:
            raise shape_error(op, str(e)) from None

    # -- primitives ------------------------------------------------------------------------------

    def _unary(self, op: Op) -> "TensorBase":
        return self._new(op, [(self, self._view)], self.shape)

    def _binary(self, op: Op, other: Any, name: str, reflected: bool = False) -> "TensorBase":
        other = self._lift(other)
        a, b = (other, self) if reflected else (self, other)
        shape = broadcast_shapes(a.shape, b.shape, name)
        mask = op is Op.LESS_THAN or (op is Op.MUL and a._mask and b._mask)
        return self._new(op, [(a, a.broadcast_to(shape)._view), (b, b.broadcast_to(shape)._view)], shape,
                         mask=mask)

    def log2(self) -> "TensorBase":
        return self._unary(Op.LOG2)

    def exp2(self) -> "TensorBase":
        return self._unary(Op.EXP2)

    def sin(self) -> "TensorBase":
        return self._unary(Op.SIN)

    def sqrt(self) -> "TensorBase":
        return self._unary(Op.SQRT)

    def recip(self) -> "TensorBase":
        return self._unary(Op.RECIP)

    def contiguous(self) -> "TensorBase":
        """Materialize the view as a node of its own (no-op when the view is already the node)."""
        if self._view.is_identity():
            return self
        t = self._new(Op.CONTIGUOUS, [(self, self._view)], self.shape)
        t._mask = self._mask
        return t

    def __add__(self, other: Any) -> "TensorBase":
        return self._binary(Op.ADD, other, "add")

    def __radd__(self, other: Any) -> "TensorBase":
        return self._binary(Op.ADD, other, "add", reflected=True)

    def __mul__(self, other: Any) -> "TensorBase":
        return self._binary(Op.MUL, other, "mul")

    def __rmul__(self, other: Any) -> "TensorBase":
        return self._binary(Op.MUL, other, "mul", reflected=True)

    def __mod__(self, other: Any) -> "TensorBase":
        return self._binary(Op.MOD, other, "mod")

    def __rmod__(self, other: Any) -> "TensorBase":
        return self._binary(Op.MOD, other, "mod", reflected=True)

    def __lt__(self, other: Any) -> "TensorBase":
        return self._binary(Op.LESS_THAN, other, "less_than")

    def less_than(self, other: Any) -> "TensorBase":
        return self._binary(Op.LESS_THAN, other, "less_than")

    def _reduce(self, op: Op, axis: int, name: str) -> "TensorBase":
        axis = normalize_axis(axis, self.ndim, name)
        if self.shape[axis] == 0 and op is Op.MAX_REDUCE:
            raise shape_error(name, f"cannot take the max over an empty axis of {self.shape}")
        return self._new(op, [(self, self._view)], reduced_shape(self.shape, axis), axis=axis)

    def sum_reduce(self, axis: int) -> "TensorBase":
        """Primitive SumReduce over one axis (the axis is removed)."""
        return self._reduce(Op.SUM_REDUCE, axis, "sum_reduce")

    def max_reduce(self, axis: int) -> "TensorBase":
        """Primitive MaxReduce over one axis (the axis is removed)."""
        return self._reduce(Op.MAX_REDUCE, axis, "max_reduce")

    # -- views (no nodes) --------------------------------------------------------------------------

    def reshape(self, *shape: Any) -> "TensorBase":
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(int(d) for d in shape)
        if shape.count(-1) > 1:
            raise shape_error("reshape", f"at most one -1 allowed in {shape}")
        if -1 in shape:
            rest = prod(d for d in shape if d != -1)
            if rest == 0 or self.numel % rest:
                raise shape_error("reshape", f"cannot reshape {self.shape} to {shape}")
            shape = tuple(self.numel // rest if d == -1 else d for d in shape)
        if prod(shape) != self.numel:
            raise shape_error(
                "reshape", f"cannot reshape {self.shape} ({self.numel} elements) to {shape} ({prod(shape)} elements)"
            )
        return self._movement("reshape", ShapeTracker.reshape, shape)

    def permute(self, *axes: Any) -> "TensorBase":
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if len(axes) != self.ndim:
            raise shape_error("permute", f"got {len(axes)} axes {tuple(axes)} for shape {self.shape}")
        axes = tuple(normalize_axis(a, self.ndim, "permute") for a in axes)
        return self._movement("permute", ShapeTracker.permute, axes)

    def transpose(self, a: int = -2, b: int = -1) -> "TensorBase":
        """Swap two axes (the last two by default)."""
        if self.ndim < 2:
            return self
        a, b = normalize_axis(a, self.ndim, "transpose"), normalize_axis(b, self.ndim, "transpose")
        axes = list(range(self.ndim))
        axes[a], axes[b] = axes[b], axes[a]
        return self.permute(axes)

    @property
    def T(self) -> "TensorBase":
        """All axes reversed (numpy's .T)."""
        return self.permute(tuple(reversed(range(self.ndim))))

    def broadcast_to(self, *shape: Any) -> "TensorBase":
        """numpy broadcasting: leading axes are added, size-1 axes repeated."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(int(d) for d in shape)
        if shape == self.shape:
            return self
        if len(shape) < self.ndim:
            raise shape_error("broadcast", f"cannot broadcast {self.shape} to fewer axes {shape}")
        t = self
        if len(shape) > self.ndim:
            t = self.reshape((1,) * (len(shape) - self.ndim) + self.shape)
        if any(a != b and a != 1 for a, b in zip(t.shape, shape)):
            raise shape_error("broadcast", f"cannot broadcast {self.shape} to {shape}")
        return t._movement("broadcast", ShapeTracker.expand, shape)

    expand = broadcast_to

    def unsqueeze(self, axis: int) -> "TensorBase":
        axis = normalize_axis(axis, self.ndim + 1, "unsqueeze")
        return self.reshape(self.shape[:axis] + (1,) + self.shape[axis:])

    def squeeze(self, axis: int | Sequence[int] | None = None) -> "TensorBase":
        if axis is None:
            axes = {i for i, d in enumerate(self.shape) if d == 1}
        else:
            axes = {normalize_axis(a, self.ndim, "squeeze") for a in ((axis,) if isinstance(axis, int) else axis)}
            for a in axes:
                if self.shape[a] != 1:
                    raise shape_error("squeeze", f"axis {a} of {self.shape} has size {self.shape[a]}, not 1")
        return self.reshape(tuple(d for i, d in enumerate(self.shape) if i not in axes))

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "TensorBase":
        """Merge axes start_dim..end_dim into one (torch.flatten)."""
        if self.ndim == 0:
            return self.reshape((1,))
        a, b = normalize_axis(start_dim, self.ndim, "flatten"), normalize_axis(end_dim, self.ndim, "flatten")
        if a > b:
            raise shape_error("flatten", f"start_dim {start_dim} is after end_dim {end_dim} for {self.shape}")
        return self.reshape(self.shape[:a] + (prod(self.shape[a:b + 1]),) + self.shape[b + 1:])

    def slice(self, ranges: Sequence[tuple[int, ...]]) -> "TensorBase":
        """Per-axis (start, stop[, step]) ranges, step >= 1."""
        return self._movement("slice", ShapeTracker.slice, ranges)

    def pad(self, pads: Sequence[tuple[int, int]]) -> "TensorBase":
        """Per-axis (before, after) zero padding."""
        return self._movement("pad", ShapeTracker.pad, pads)

    def window(self, axis: int, k: int, stride: int = 1, dilation: int = 1) -> "TensorBase":
        """Sliding windows: `axis` (size n) becomes (o, k), element [t, j] reading
        [t stride + j dilation] (o = (n - dilation (k - 1) - 1) // stride + 1); a view, no copy."""
        return self._movement("window", ShapeTracker.window, axis, k, stride, dilation)

    def __getitem__(self, key: Any) -> "TensorBase":
        if not isinstance(key, tuple):
            key = (key,)
        n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
        if n_real > self.ndim:
            raise shape_error("index", f"too many indices ({n_real}) for shape {self.shape}")
        if sum(1 for k in key if k is Ellipsis) > 1:
            raise shape_error("index", "at most one ... allowed")
        if Ellipsis in key:
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (self.ndim - n_real) + key[i + 1:]
        else:
            key = key + (slice(None),) * (self.ndim - n_real)
        ranges, out_shape, axis = [], [], 0
        for k in key:
            if k is None:
                out_shape.append(1)
                continue
            d = self.shape[axis]
            if isinstance(k, slice):
                start, stop, step = k.indices(d)
                if step < 1:
                    raise shape_error("index", f"negative slice steps are not supported ({k})")
                stop = max(start, stop)
                ranges.append((start, stop, step))
                out_shape.append(len(range(start, stop, step)))
            elif isinstance(k, (int, np.integer)):
                i = int(k)
                if not -d <= i < d:
                    raise shape_error("index", f"index {i} is out of range for axis {axis} of size {d}")
                i %= d
                ranges.append((i, i + 1, 1))
            else:
                raise shape_error("index", f"unsupported index {k!r} (use ints, slices, None, ...)")
            axis += 1
        return self.slice(ranges).reshape(tuple(out_shape))

    # -- operators and methods defined in the high-level modules --------------------------------


MAX_INDEX = (1 << 31) - 1


def index_array(value: Any, what: str) -> np.ndarray:
    """Indices (token ids): an integer array (numpy, lists of ints, torch tensors) -> int64, each in
    [0, 2^31). Floats are refused, even whole ones: an index is not a fixed-point value."""
    if hasattr(value, "detach") and hasattr(value, "cpu") and hasattr(value, "numpy"):
        value = value.detach().cpu().numpy()
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise InputError(f"{what} holds indices (token ids): give integers, got an array of {arr.dtype}")
    bad = np.flatnonzero((arr.reshape(-1) < 0) | (arr.reshape(-1) > MAX_INDEX))
    if bad.size:
        i = int(bad[0])
        v = int(arr.reshape(-1)[i])
        why = "negative" if v < 0 else "past 2^31 - 1"
        raise InputError(f"{what}: index {v} at element {i} is {why}; indices are rows of a table, 0 <= index < 2^31")
    return arr.astype(np.int64)


def as_array(value: Any, what: str) -> np.ndarray:
    """Anything array-like (numpy, lists, scalars, torch tensors by duck typing) -> float64 array."""
    if hasattr(value, "detach") and hasattr(value, "cpu") and hasattr(value, "numpy"):
        value = value.detach().cpu().numpy()  # a torch tensor, without importing torch
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise GraphError(f"{what}: cannot read {type(value).__name__} as a numeric array ({e})") from None
    return arr
