"""GraphTensor: a lazy handle on a node, read through a view: TensorBase (the primitive ops,
tensor_base.py) with the high-level ops of hl_math, hl_reduce, hl_nn and hl_conv as methods."""

from __future__ import annotations

from .hl_conv import ConvMethods
from .hl_math import MathMethods
from .hl_nn import NNMethods
from .hl_reduce import ReduceMethods
from .tensor_base import TensorBase, broadcast_shapes, normalize_axis, shape_error

__all__ = ["GraphTensor", "TensorBase", "broadcast_shapes", "normalize_axis", "shape_error"]


class GraphTensor(MathMethods, ReduceMethods, NNMethods, ConvMethods, TensorBase):
    """A value in a Graph: ``node`` read through ``view`` (a ShapeTracker). Operators and methods
    add nodes to the graph; nothing is computed until the graph runs."""

    __slots__ = ()
