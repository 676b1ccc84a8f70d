"""ONNX op handlers: each turns one ONNX node into graph values, registered in table.OPS with
what it becomes and its error bound (ops_math: elementwise; ops_nn: products, convolutions,
pooling, normalizations; ops_shape: views, masks, reductions, shape arithmetic).

A value is a GraphTensor, or a numpy array when it is known while importing (initializers,
Constant nodes, shapes): shape and index inputs must be such static values, and a node whose
inputs are all static is computed at import time (importer.fold_static).
"""

from __future__ import annotations

from . import ops_math, ops_nn, ops_shape  # noqa: F401  (each module registers its handlers)
from .table import HANDLERS, OPS, Value

__all__ = ["HANDLERS", "OPS", "Value"]
