"""ONNX model -> Graph.

Inputs and outputs keep their ONNX names; initializers become named constants (weights); every
graph node built for an ONNX node records that node as its origin, and the node computing an ONNX
tensor carries the tensor's name. A node whose inputs are all static (weights, Constant nodes,
shapes, and everything computed from them alone: the shape arithmetic exporters emit, weight
fills) is computed while importing by the onnx reference evaluator and never becomes graph
nodes. Unsupported ops are found before anything is built and reported together in one
UnsupportedOnnxError.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

from luminair.prover.graph import GraphTensor
from luminair.prover.proving import Graph
from luminair.prover.graph import origin as _origin
from luminair.verifier.numeric import NumericFormat

from .errors import OnnxImportError, UnsupportedOnnxError
from .ops import HANDLERS, Value
from .table import NON_TENSOR_OPS, RANDOM_OPS

_T = onnx.TensorProto
_NUMBER_TYPES = {_T.FLOAT, _T.DOUBLE, _T.FLOAT16, _T.BFLOAT16, _T.BOOL}
_INDEX_TYPES = {_T.INT64, _T.INT32, _T.INT16, _T.INT8, _T.UINT64, _T.UINT32, _T.UINT16, _T.UINT8}
SUPPORTED_OPS = frozenset(HANDLERS)
# ops of other domains the importer converts (domain, op_type)
_DOMAIN_OPS = {("ai.onnx.preview.training", "Gradient")}
# ops whose outputs are static whatever their inputs are (they read only the shape)
_SHAPE_READERS = {"Shape", "Size", "EyeLike"}
NON_TENSOR_REASON = "works on sequences, maps or strings: no tensor semantics in a fixed-point graph"


@dataclass
class OnnxNode:
    op_type: str
    name: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict[str, Any]

    def describe(self) -> str:
        return f"ONNX {self.op_type} node {self.name!r}"


def _load(model: Any) -> onnx.ModelProto:
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_from_string(bytes(model))
    if isinstance(model, (str, os.PathLike)):
        if not os.path.isfile(model):
            raise OnnxImportError(f"ONNX file {str(model)!r} does not exist")
        try:
            return onnx.load(os.fspath(model))
        except Exception as e:  # onnx raises DecodeError and friends
            raise OnnxImportError(f"cannot read {str(model)!r} as an ONNX model: {e}") from None
    raise OnnxImportError(f"expected a path, bytes or onnx.ModelProto, got {type(model).__name__}")


def _known_shapes(model: onnx.ModelProto) -> dict[str, tuple | None]:
    """Tensor name -> static shape where ONNX shape inference knows it (for error messages)."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:
        inferred = model
    out: dict[str, tuple | None] = {}
    g = inferred.graph
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        t = vi.type.tensor_type
        if t.HasField("shape"):
            out[vi.name] = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in t.shape.dim)
    for init in g.initializer:
        out[init.name] = tuple(init.dims)
    return out


def _default_domain(n: onnx.NodeProto) -> bool:
    return n.domain in ("", "ai.onnx")


def foldable(n: onnx.NodeProto) -> bool:
    """Whether a node with all inputs static is computed at import (deterministic tensor ops)."""
    return _default_domain(n) and n.op_type not in RANDOM_OPS and n.op_type not in NON_TENSOR_OPS


def static_names(model: onnx.ModelProto) -> set[str]:
    """The tensors known while importing: initializers, and the outputs of nodes that read only
    static tensors (or only a shape); what fold_static computes."""
    static = {i.name for i in model.graph.initializer}
    for n in model.graph.node:
        ins = [x for x in n.input if x]
        if n.op_type in _SHAPE_READERS and _default_domain(n) or foldable(n) and all(x in static for x in ins):
            static.update(o for o in n.output if o)
    return static


def _refusal(n: onnx.NodeProto, static: set[str]) -> str | None:
    """Why a node cannot be converted (None: it can)."""
    if n.op_type in NON_TENSOR_OPS:
        return NON_TENSOR_REASON
    if _default_domain(n):
        if n.op_type in HANDLERS or foldable(n) and all(x in static for x in n.input if x):
            return None
        return "unsupported"
    return None if (n.domain, n.op_type) in _DOMAIN_OPS else "unsupported"


def unsupported_nodes(model: Any) -> list[tuple[str, str, list[tuple[str, tuple | None]]]]:
    """(op_type, name, inputs with shapes) of every node this importer cannot convert."""
    return [node for node, _ in _unsupported(_load(model))]


def _unsupported(m: onnx.ModelProto) -> list[tuple[tuple[str, str, list], str]]:
    static = static_names(m)
    refused = [(i, n, why) for i, n in enumerate(m.graph.node) if (why := _refusal(n, static)) is not None]
    shapes = _known_shapes(m) if refused else {}  # shape inference only to describe the refused nodes
    bad = []
    for i, n, why in refused:
        op = n.op_type if _default_domain(n) else f"{n.domain}.{n.op_type}"
        bad.append(((op, n.name or f"#{i}", [(x, shapes.get(x)) for x in n.input if x]), why))
    return bad


class Importer:
    def __init__(self, model: onnx.ModelProto, graph: Graph):
        self.model = model
        self.graph = graph
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13)
        self.values: dict[str, Value] = {}
        self.constants: dict[str, GraphTensor] = {}
        self.current: OnnxNode | None = None

    def to_numpy(self, tensor: onnx.TensorProto) -> np.ndarray:
        return numpy_helper.to_array(tensor).copy()

    def value(self, name: str) -> Value:
        if name not in self.values:
            where = self.current.describe() if self.current else "the graph outputs"
            raise OnnxImportError(f"{where}: tensor {name!r} is not produced by any earlier node or input")
        return self.values[name]

    def tensor(self, name: str) -> GraphTensor:
        """The value as a GraphTensor; a static value becomes a constant named after the tensor."""
        v = self.value(name)
        if isinstance(v, GraphTensor):
            return v
        if name not in self.constants:
            if v.dtype.kind not in "fiub":
                raise OnnxImportError(f"tensor {name!r} of dtype {v.dtype} cannot be a graph constant")
            with _origin.fixed_origin(f"ONNX tensor {name!r}"):
                self.constants[name] = self.graph.constant(v.astype(np.float64), name)
        return self.constants[name]

    def static(self, name: str, node: OnnxNode, what: str) -> np.ndarray:
        v = self.value(name)
        if isinstance(v, GraphTensor) and v.node.index:
            raise OnnxImportError(f"{node.describe()}: input {what} ({name!r}) is an integer graph input: a value "
                                  f"given at run time cannot set a static graph's {what}; give its value at import "
                                  f"(load_onnx(..., shape_values={{{name!r}: ...}}); `luminair prove` reads it from "
                                  f"the input file) and it becomes a constant of the model")
        if not isinstance(v, np.ndarray):
            raise OnnxImportError(f"{node.describe()}: input {what} ({name!r}) must be a constant")
        return v

    def _read_as_indices(self, name: str) -> bool:
        """Whether an integer input is read only as a Gather's indices, or as a static shape (refused
        there by name), and not as a value."""
        readers = [(n.op_type, list(n.input).index(name)) for n in self.model.graph.node if name in n.input]
        return not readers or any(op == "Gather" and k == 1 for op, k in readers) or any(
            op in ("Expand", "Reshape", "Tile", "ConstantOfShape", "Range", "Slice") for op, _ in readers)

    def add_inputs(self, input_shapes: Mapping[str, Sequence[int]] | None, private: Sequence[str],
                   resize: bool = False, shape_values: Mapping[str, Any] | None = None) -> None:
        inits = {i.name for i in self.model.graph.initializer}
        given = dict(input_shapes or {})
        fixed = dict(shape_values or {})
        bad_fixed = set(fixed) - set(shape_inputs(self.model))
        if bad_fixed:
            raise OnnxImportError(f"shape_values names {sorted(bad_fixed)}, not integer inputs read as a shape; "
                                  f"those of this model: {shape_inputs(self.model) or 'none'}")
        names = []
        for vi in self.model.graph.input:
            if vi.name in inits:
                continue  # old exporters list initializers as inputs too
            if vi.name in fixed:  # a shape given with the model: a constant, part of the model digest
                self.values[vi.name] = _shape_value(vi, fixed[vi.name])
                continue
            names.append(vi.name)
            if not vi.type.HasField("tensor_type"):
                kind = vi.type.WhichOneof("value") or "unknown"
                raise OnnxImportError(f"input {vi.name!r} is a {kind.replace('_type', '')}, not a tensor: no tensor "
                                      f"semantics in a fixed-point graph")
            t = vi.type.tensor_type
            # token ids, positions: an index input when only Gathers read it as indices; an integer
            # input read as a value is a fixed-point input fed the same integers
            index = t.elem_type in _INDEX_TYPES and self._read_as_indices(vi.name)
            if not index and t.elem_type not in _NUMBER_TYPES | _INDEX_TYPES:
                raise OnnxImportError(f"input {vi.name!r} has element type {_T.DataType.Name(t.elem_type)}: only "
                                      f"floating-point and bool inputs are supported")
            dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
            if vi.name in given:
                shape = tuple(int(d) for d in given[vi.name])
                if len(shape) != len(dims) or not resize and any(d is not None and d != s for d, s in zip(dims, shape)):
                    hint = "" if len(shape) != len(dims) else " (resize_inputs=True changes static dimensions too)"
                    raise OnnxImportError(f"input {vi.name!r}: given shape {shape} does not match the model's {dims}{hint}")
            else:
                shape = tuple(1 if d is None else d for d in dims)  # symbolic dims (batch) default to 1
            with _origin.fixed_origin(f"ONNX input {vi.name!r}"):
                self.values[vi.name] = self.graph.input(vi.name, shape, private=vi.name in private, index=index)
        unknown = set(given) - set(names)
        if unknown:
            raise OnnxImportError(f"input_shapes names unknown input(s) {sorted(unknown)}; inputs are {names}")
        bad_private = set(private) - set(names)
        if bad_private:
            raise OnnxImportError(f"private names unknown input(s) {sorted(bad_private)}; inputs are {names}")

    def fold_static(self, n: onnx.NodeProto, node: OnnxNode) -> list[Value]:
        """The outputs of a node whose inputs are all static, by the onnx reference evaluator at the
        model's opsets."""
        from onnx.reference import ReferenceEvaluator

        feeds = {x: self.values[x] for x in node.inputs if x}
        graph = helper.make_graph(
            [n], "fold",
            [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape) for k, v in feeds.items()],
            [helper.make_value_info(o, onnx.TypeProto()) for o in node.outputs if o],
        )
        try:
            proto = helper.make_model(graph, opset_imports=list(self.model.opset_import))
            results = ReferenceEvaluator(proto).run(None, feeds)
        except Exception as e:  # noqa: BLE001 - the evaluator raises anything a bad node makes it raise
            raise OnnxImportError(f"{node.describe()}: cannot compute it from its static inputs: {e}") from None
        out = []
        for name, r in zip([o for o in node.outputs if o], results):
            if not isinstance(r, np.ndarray):
                raise OnnxImportError(f"{node.describe()}: output {name!r} is a {type(r).__name__}, not a tensor")
            out.append(r)
        return out

    def convert(self, n: onnx.NodeProto, index: int) -> None:
        node = OnnxNode(
            n.op_type, n.name or f"#{index}", list(n.input), list(n.output),
            {a.name: helper.get_attribute_value(a) for a in n.attribute},
        )
        self.current = node
        static = all(isinstance(self.value(x), np.ndarray) for x in node.inputs if x)
        with _origin.fixed_origin(node.describe()):
            try:
                if static and foldable(n):
                    results = self.fold_static(n, node)
                else:
                    results = HANDLERS[n.op_type](self, node)
            except OnnxImportError:
                raise
            except Exception as e:  # a ShapeError or GraphError from the frontend: say which node
                raise OnnxImportError(f"{node.describe()}: {e}") from e
        outs = [o for o in node.outputs if o]
        if len(results) < len(outs):
            raise OnnxImportError(f"{node.describe()}: produces {len(outs)} outputs, {len(results)} supported")
        if static and foldable(n):
            results = iter(results)
            results = [next(results) if o else None for o in node.outputs]
        for name, v in zip(node.outputs, results):
            if not name:
                continue
            if isinstance(v, GraphTensor) and v.view.is_identity() and v.node.name is None and \
                    v.node.op.name not in ("INPUT", "CONSTANT"):
                try:
                    self.graph.name_node(v.node, name)
                except Exception:
                    pass  # the value is already read elsewhere (e.g. Identity of a used tensor)
            self.values[name] = v
        self.current = None


_SHAPE_OPERANDS = {"Expand": {1}, "Reshape": {1}, "Tile": {1}, "ConstantOfShape": {0}, "Range": {0, 1, 2},
                   "Slice": {1, 2, 3, 4}}


def shape_inputs(model: onnx.ModelProto) -> list[str]:
    """The integer graph inputs that some node reads as a shape or shape argument (Expand's shape,
    Reshape's, Tile's repeats, Slice's starts...): a static graph takes their values at import
    (`load_onnx(..., shape_values=...)`), where they become constants of the model."""
    inits = {i.name for i in model.graph.initializer}
    ints = [vi.name for vi in model.graph.input if vi.name not in inits and vi.type.HasField("tensor_type")
            and vi.type.tensor_type.elem_type in _INDEX_TYPES]
    read = {x for n in model.graph.node for k, x in enumerate(n.input) if k in _SHAPE_OPERANDS.get(n.op_type, ())}
    return [name for name in ints if name in read]


def _shape_value(vi: onnx.ValueInfoProto, value: Any) -> np.ndarray:
    """A shape input's given value, checked against its declared element type and shape."""
    try:
        arr = np.asarray(value)
    except ValueError:  # ragged lists
        arr = np.asarray(None)
    if arr.dtype.kind not in "iu":  # as index inputs: floats are refused, even whole ones
        raise OnnxImportError(f"shape value of input {vi.name!r} must be a rectangular list of integers, got {value!r:.60}")
    arr = arr.astype(np.int64)
    dims = [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim]
    if arr.ndim != len(dims) or any(d is not None and d != s for d, s in zip(dims, arr.shape)):
        raise OnnxImportError(f"shape value of input {vi.name!r} has shape {arr.shape}; the model declares {dims}")
    return arr


def load_onnx(
    model: str | os.PathLike | bytes | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    numeric_format: NumericFormat | None = None,
    scale_bits: int | None = None,
    private_inputs: Sequence[str] = (),
    resize_inputs: bool = False,
    outputs: Sequence[str] | None = None,
    shape_values: Mapping[str, Any] | None = None,
) -> Graph:
    """Import an ONNX model as a Graph whose inputs and outputs keep their ONNX names.

    ``input_shapes`` fixes symbolic dimensions (by default each symbolic dimension is 1), and with
    ``resize_inputs`` static ones too (a fully convolutional model at another image size);
    ``private_inputs`` names inputs to mark private; ``outputs`` names the ONNX tensors to output
    instead of the graph's outputs (a model cut before its last ops, e.g. at its logits);
    ``shape_values`` gives the values of integer inputs read as shapes (`shape_inputs(model)`), which
    become constants of the model instead of inputs (a static graph's shapes are constants). Raises
    UnsupportedOnnxError listing every unsupported node at once, or OnnxImportError naming the node
    that cannot be converted."""
    m = _load(model)
    bad = _unsupported(m)
    if bad:
        raise UnsupportedOnnxError([node for node, _ in bad], [why for _, why in bad])
    graph = Graph(numeric_format, scale_bits=scale_bits)
    im = Importer(m, graph)
    for init in m.graph.initializer:
        im.values[init.name] = im.to_numpy(init)
    im.add_inputs(input_shapes, private_inputs, resize_inputs, shape_values)
    names = [o.name for o in m.graph.output] if outputs is None else list(outputs)
    produced = {o for n in m.graph.node for o in n.output} | set(im.values)
    unknown = [n for n in names if n not in produced]
    if unknown:
        raise OnnxImportError(f"outputs names tensor(s) {unknown} that no node of the model produces")
    for i, n in enumerate(m.graph.node):
        im.convert(n, i)
    for name in names:
        im.tensor(name).output(name)
    if outputs is not None:
        graph.remove_unused()  # the nodes after the chosen outputs
    return graph
