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
from .hl_conv import avg_pool, avg_pool2d, conv, conv2d, conv_transpose, flip, lrn, max_pool, max_pool2d, pad
from .hl_math import (
    abs, ceil, celu, clip, cos, div, elu, eq, erf, exp, floor, gelu, ge, gt, hard_sigmoid, hard_swish, le, leaky_relu, log,
    logical_and, logical_not, logical_or, logical_xor, lt, maximum, minimum, mul_const, ne, neg, pow, pow_tensor,
    prelu, relu, rsqrt, select, selu, shrink, sigmoid, sign, softplus, softsign, square, sub, tanh, trunc, where,
)
from .hl_nn import concat, concat_tree, gather, linear, matmul, tile
from .hl_reduce import (
    argmax, argmin, instance_norm, layer_norm, layer_norm_wide, log_softmax, max, mean, min, softmax, sum, var,
)
from .node import Node
from .ops import GroupOp, Op
from .shape import ShapeTracker

__all__ = [
    "BoundsError", "CompileError", "Graph", "GraphError", "GraphTensor", "GroupOp", "InputError", "Node",
    "Op", "ShapeError", "ShapeTracker", "run_compilers",
    "abs", "argmax", "argmin", "avg_pool", "avg_pool2d", "ceil", "celu", "clip", "concat", "concat_tree", "conv", "conv2d",
    "conv_transpose", "cos", "div", "elu", "eq", "erf", "exp", "flip", "floor", "gather", "ge", "gelu", "gt", "hard_sigmoid",
    "hard_swish", "instance_norm", "layer_norm", "layer_norm_wide", "le", "leaky_relu", "linear", "log",
    "log_softmax", "logical_and", "logical_not", "logical_or", "logical_xor", "lrn", "lt", "matmul", "max",
    "max_pool", "max_pool2d", "maximum", "mean", "min", "minimum", "mul_const", "ne", "neg", "pad", "pow",
    "pow_tensor", "prelu", "relu", "rsqrt", "select", "selu", "shrink", "sigmoid", "sign", "softmax", "softplus",
    "softsign", "square", "sub", "sum", "tanh", "tile", "trunc", "var", "where",
]
