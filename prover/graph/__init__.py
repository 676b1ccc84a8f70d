"""The graph frontend: lazy GraphTensor handles over a static graph of primitive ops, reference
executors (float64 and exact fixed point) and display."""

# tensor first: it loads the high-level modules, which need GraphTensor defined
from .tensor import GraphTensor  # noqa: I001
from .errors import BoundsError, CompileError, GraphError, InputError, ShapeError
from .graph import Graph, run_compilers
from .hl_math import (
    abs, clip, cos, div, eq, exp, gelu, ge, gt, le, leaky_relu, log, lt, maximum, minimum, mul_const,
    ne, neg, pow, relu, rsqrt, sigmoid, sign, square, sub, tanh, where,
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
    "sigmoid", "sign", "softmax", "square", "sub", "sum", "tanh", "var", "where",
]
