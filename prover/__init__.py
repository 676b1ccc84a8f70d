"""Prover side: build a model as a graph of primitive ops, compile it, run it, prove the run.

Import-light on purpose: ONNX import lives in ``luminair.prover.onnx`` and loads onnx only there.
"""

from luminair.verifier.numeric import NumericFormat

from .compile import FuseOpCompiler, GenericCompiler, Looped, SearchCompiler, StwoCompiler
from .graph import (
    BoundsError, CompileError, GraphError, GraphTensor, GroupOp, InputError, Node, Op, ShapeError, ShapeTracker,
    concat, where,
)
from .graph.model_file import load_model, load_python_model, read_input_json
from .proving import Graph

__all__ = [
    "BoundsError", "CompileError", "GenericCompiler", "Graph", "GraphError", "GraphTensor", "GroupOp",
    "FuseOpCompiler", "InputError", "Looped", "Node", "NumericFormat", "Op", "ShapeError", "SearchCompiler", "ShapeTracker", "StwoCompiler",
    "concat", "load_model", "load_python_model", "read_input_json", "where",
]
