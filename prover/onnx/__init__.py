"""ONNX import: ``load_onnx(path) -> Graph`` (this package imports the onnx library)."""

from .errors import OnnxImportError, UnsupportedOnnxError
from .importer import SUPPORTED_OPS, load_onnx, shape_inputs, unsupported_nodes

__all__ = ["OnnxImportError", "SUPPORTED_OPS", "UnsupportedOnnxError", "load_onnx", "shape_inputs", "unsupported_nodes"]
