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
    graph = load_python_builder(path)()
    if not isinstance(graph, Graph):
        raise GraphError(f"build() in {str(path)!r} returned {type(graph).__name__}, not a Graph")
    return graph


def load_python_builder(path: str | os.PathLike) -> Any:
    """The ``build`` function of a Python model file (keyword arguments: symbolic dimensions)."""
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
    return build


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
            arr = (np.asarray(row) if node.index else np.asarray(row, dtype=np.float64)).reshape(-1)  # ids stay integers
        except (TypeError, ValueError):
            raise InputError(f"input {name!r}: input_data entry is not a list of numbers") from None
        if arr.size != node.numel:
            raise InputError(
                f"input {name!r}: expected {node.numel} values (shape {node.shape}), got {arr.size}"
            )
        out[name] = arr.reshape(node.shape)
    return out


def read_symbolic_input(data: dict, template: Any) -> dict[str, np.ndarray]:
    """EZKL-style input JSON for a model with symbolic dimensions -> {input name: array}. Each entry
    of input_data is one input (flat or nested); for a model with one input, several rows of
    numbers are a batch: input_data [[row 1], [row 2], ...]."""
    if not isinstance(data, dict) or "input_data" not in data:
        raise InputError('input JSON must be an object {"input_data": [[...floats...], ...]}')
    rows = data["input_data"]
    names = [i.name for i in template.inputs]
    if isinstance(rows, list) and rows and all(isinstance(v, (int, float)) for v in rows):
        rows = [rows]
    if len(names) == 1 and isinstance(rows, list) and len(rows) > 1:
        rows = [rows]  # several rows of the one input: a batch
    if not isinstance(rows, list) or len(rows) != len(names):
        raise InputError(f"input_data must hold one entry per graph input ({len(names)}: {', '.join(names)})")
    out = {}
    for name, row in zip(names, rows):
        try:
            out[name] = np.asarray(row, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"input {name!r}: input_data entry is not a (rectangular) list of numbers") from None
    return out
