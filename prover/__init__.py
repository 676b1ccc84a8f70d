"""Prover side: build a model as a graph of primitive ops, compile it, run it, prove the run.

Import-light on purpose: ONNX import lives in ``luminair.prover.onnx`` and loads onnx only there,
and the names below load their modules (numpy among them) on first use, so that a command that
only verifies (`luminair verify`, prover/cli) never imports them.
"""

from importlib import import_module
from typing import Any

_HOMES = {  # name -> the module that defines it (relative to this package)
    **dict.fromkeys(("FuseOpCompiler", "GenericCompiler", "Looped", "SearchCompiler", "StwoCompiler"), ".compile"),
    **dict.fromkeys(("BoundsError", "CompileError", "GraphError", "GraphTensor", "GroupOp", "InputError", "Node", "Op",
                     "ShapeError", "ShapeTracker", "concat", "where"), ".graph"),
    **dict.fromkeys(("load_model", "load_python_model", "read_input_json"), ".graph.model_file"),
    "Graph": ".proving", "NumericFormat": "luminair.verifier.numeric",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """A public name's value, its module imported on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value
