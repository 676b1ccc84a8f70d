"""Training programs from an existing graph (an imported ONNX model or any uncompiled Graph): its
named weight constants become the trained parameters, its input the batch input "x", and the loss
is the softmax cross entropy of its output against a one-hot "y"."""

from __future__ import annotations

import os
from typing import Any, Mapping

import numpy as np

from ..graph import Graph, GraphError, GraphTensor
from ..graph.node import Node
from ..graph.ops import Op
from .models import cross_entropy
from .optim import Optimizer
from .program import TrainProgram


def trainable_constants(graph: Graph) -> dict[str, Node]:
    """Named constants with at least one axis (weights and biases), in graph order."""
    out: dict[str, Node] = {}
    for n in graph.nodes():
        if n.op is Op.CONSTANT and n.name and n.ndim >= 1:
            if n.name in out:
                raise GraphError(f"two constants are named {n.name!r}; parameters need unique names")
            out[n.name] = n
    return out


def replay(
    graph: Graph, params: Mapping[str, GraphTensor], inputs: Mapping[str, GraphTensor]
) -> dict[str, GraphTensor]:
    """The outputs of ``graph`` rebuilt in the graph of ``params``, reading each named constant
    from ``params`` and each input from ``inputs`` (same shapes)."""
    target = next(iter(params.values())).graph
    mapped: dict[int, Node] = {}
    for n in graph.nodes():
        if n.op is Op.INPUT:
            t = inputs[n.name]
            if t.shape != n.shape:
                raise GraphError(f"input {n.name!r}: shape {t.shape}, the model expects {n.shape}")
            mapped[n.id] = t.contiguous().node
        elif n.op is Op.CONSTANT and n.name in params:
            mapped[n.id] = params[n.name].node
        elif n.op is Op.CONSTANT:
            mapped[n.id] = target.add_node(
                Op.CONSTANT, (), n.shape, name=n.name, value=n.value, raw=n.raw, raw_scale=n.raw_scale
            )
        else:
            mapped[n.id] = target.add_node(n.op, [(mapped[s.id], v) for s, v in n.srcs], n.shape, axis=n.axis)
    return {
        name: GraphTensor(target, mapped[node.id], view) for name, (node, view) in graph.outputs().items()
    }


def graph_program(
    graph: Graph, optimizer: Optimizer, **kwargs: Any
) -> tuple[TrainProgram, dict[str, np.ndarray]]:
    """A TrainProgram training every named weight constant of ``graph`` (one input, one output:
    the logits) with a cross-entropy loss; returns it and the graph's current weights."""
    if len(graph.inputs()) != 1 or len(graph.outputs()) != 1:
        raise GraphError("a classifier for training has one input and one output (the logits)")
    ((in_name, in_node),) = graph.inputs().items()
    ((out_name, (out_node, out_view)),) = graph.outputs().items()
    consts = trainable_constants(graph)
    if not consts:
        raise GraphError("the model has no named weight constants to train")
    classes = out_view.shape[-1]

    def loss(params: dict[str, GraphTensor], batch: dict[str, GraphTensor]) -> GraphTensor:
        logits = replay(graph, params, {in_name: batch["x"]})[out_name]
        return cross_entropy(logits.reshape(batch["y"].shape), batch["y"])

    batch_shape = {"x": in_node.shape, "y": (in_node.shape[0], classes)}
    if kwargs.get("loss_scale") is None:  # as mlp_program: the gradient of min(batch, 16) * loss
        kwargs["loss_scale"] = float(min(in_node.shape[0], 16))
    prog = TrainProgram(
        loss,
        {k: n.shape for k, n in consts.items()},
        batch_shape,
        optimizer,
        scale_bits=graph.numeric_format.scale_bits,
        **kwargs,
    )
    return prog, {k: np.array(n.value) for k, n in consts.items()}


def onnx_program(
    path: str | os.PathLike, batch: int, optimizer: Optimizer, **kwargs: Any
) -> tuple[TrainProgram, dict[str, np.ndarray]]:
    """graph_program of an ONNX classifier whose first input axis is the batch: that axis is set to
    ``batch`` (a model that fixes its batch elsewhere, e.g. in a Reshape, fails in the importer)."""
    import onnx

    from ..onnx import load_onnx

    model = onnx.load(str(path))
    inputs = [i for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    if len(inputs) != 1:
        raise GraphError(f"{path}: a classifier for training has one input, this model has {len(inputs)}")
    dims = inputs[0].type.tensor_type.shape.dim
    dims[0].ClearField("dim_param")
    dims[0].dim_value = batch
    scale = kwargs.pop("scale_bits", None)
    graph = load_onnx(model, scale_bits=scale)
    return graph_program(graph, optimizer, **kwargs)
