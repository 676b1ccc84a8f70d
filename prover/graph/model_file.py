"""Model and input files the command line accepts.

* A model is an ONNX file (``*.onnx``) or a Python file that defines ``build() -> Graph``
  (see examples/tiny_mlp.py).
* Inputs are JSON in the format EZKL uses: ``{"input_data": [[...floats...], ...]}``, one flat
  row-major list per graph input, in the order of ``graph.inputs()``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .errors import GraphError, InputError
from .graph import Graph


def load_python_model(path: str | os.PathLike) -> Graph:
    """Import a Python file and return the Graph its ``build()`` function makes."""
    path = Path(path)
    if not path.is_file():
        raise GraphError(f"model file {str(path)!r} does not exist")
    name = f"_luminair_model_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise GraphError(f"cannot import {str(path)!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    build = getattr(module, "build", None)
    if not callable(build):
        raise GraphError(f"{str(path)!r} must define a function build() -> Graph")
    graph = build()
    if not isinstance(graph, Graph):
        raise GraphError(f"build() in {str(path)!r} returned {type(graph).__name__}, not a Graph")
    return graph


def load_model(path: str | os.PathLike, **onnx_options: Any) -> Graph:
    """An ONNX file (``.onnx``, options go to load_onnx) or a Python model file (``.py``)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".onnx":
        from luminair.prover.onnx import load_onnx  # imports onnx only when needed

        return load_onnx(path, **onnx_options)
    if suffix == ".py":
        return load_python_model(path)
    raise GraphError(f"unknown model file type {suffix or '(none)'!r}: expected .onnx or .py")


def read_input_json(source: str | os.PathLike | dict, graph: Graph) -> dict[str, np.ndarray]:
    """EZKL-style input JSON -> {input name: array of the input's shape}."""
    if isinstance(source, dict):
        data = source
    else:
        try:
            with open(source, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise InputError(f"cannot read input file {str(source)!r}: {e}") from None
    if not isinstance(data, dict) or "input_data" not in data:
        raise InputError('input JSON must be an object {"input_data": [[...floats...], ...]}')
    rows = data["input_data"]
    inputs = graph.inputs()
    if isinstance(rows, list) and rows and all(isinstance(v, (int, float)) for v in rows):
        rows = [rows]  # a single flat list for a single input
    if not isinstance(rows, list) or len(rows) != len(inputs):
        raise InputError(
            f"input_data must hold one list per graph input ({len(inputs)}: {', '.join(inputs)}), "
            f"got {len(rows) if isinstance(rows, list) else type(rows).__name__}"
        )
    out = {}
    for (name, node), row in zip(inputs.items(), rows):
        try:
            arr = np.asarray(row, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise InputError(f"input {name!r}: input_data entry is not a list of numbers") from None
        if arr.size != node.numel:
            raise InputError(
                f"input {name!r}: expected {node.numel} values (shape {node.shape}), got {arr.size}"
            )
        out[name] = arr.reshape(node.shape)
    return out
