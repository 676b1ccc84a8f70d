"""The graph frontend: lazy GraphTensor handles over a static graph of primitive ops, reference
executors (float64 and exact fixed point) and display.

What the prover reads from a (compiled) graph:

* ``graph.nodes()``: nodes in topological order, ``node.id`` = position (dense, renumbered by each
  compile). ``node.op`` is an ``Op``; ``node.srcs`` are ``(source_node, view)`` pairs whose
  ``view.src_indices()`` maps each input element to a flat source index (-1 = padding, value 0);
  ``node.shape``, ``node.axis`` (reductions; the axis is removed), ``node.name``,
  ``node.private`` (inputs), ``node.value`` (constants, float64).
* ``graph.inputs()`` / ``graph.outputs()``: name -> input node / name -> (node, view).
* ``graph.execute_exact(inputs)``: node id -> raw int64 values (flat), checked by the bounds pass.
  These are the values to prove. For constants they are ``quantize(node.value)``, except for
  constants made by constant folding, which carry their exact fixed-point result in ``node.raw``
  (at scale ``node.raw_scale``) because re-quantizing the float value could differ by a raw unit.
"""

# tensor first: it loads the high-level modules, which need GraphTensor defined
from .tensor import GraphTensor  # noqa: I001
from .errors import BoundsError, CompileError, GraphError, InputError, ShapeError
from .graph import Graph, run_compilers
from .hl_math import (
    abs, clip, cos, div, eq, exp, gelu, ge, gt, le, leaky_relu, log, lt, maximum, minimum, mul_const,
    ne, neg, pow, relu, rsqrt, select, sigmoid, sign, square, sub, tanh, where,
)
from .hl_nn import avg_pool2d, concat, conv2d, gather, linear, matmul, max_pool2d
from .hl_reduce import argmax, layer_norm, log_softmax, max, mean, min, softmax, sum, var
from .node import Node
from .ops import GroupOp, Op
from .shape import ShapeTracker

__all__ = [
    "BoundsError", "CompileError", "Graph", "GraphError", "GraphTensor", "GroupOp", "InputError", "Node",
    "Op", "ShapeError", "ShapeTracker", "run_compilers",
    "abs", "argmax", "avg_pool2d", "clip", "concat", "conv2d", "cos", "div", "eq", "exp", "gather", "ge",
    "gelu", "gt", "layer_norm", "le", "leaky_relu", "linear", "log", "log_softmax", "lt", "matmul", "max",
    "max_pool2d", "maximum", "mean", "min", "minimum", "mul_const", "ne", "neg", "pow", "relu", "rsqrt",
    "select", "sigmoid", "sign", "softmax", "square", "sub", "sum", "tanh", "var", "where",
]
