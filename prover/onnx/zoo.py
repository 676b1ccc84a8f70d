"""The model-zoo graphs the onnx wheel ships (onnx/backend/test/data/light: SqueezeNet, ResNet-50,
DenseNet-121, Inception v1 and v2, ShuffleNet, VGG-19, AlexNet, ZFNet): the real architectures,
their weights ConstantOfShape fills (every weight of the file one value, e.g. 0.02), and helpers
to run them elsewhere than their 224x224 input: another input size, a cut at an inner tensor, and
weight fills that keep activations in a 16-bit fixed-point range.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .conformance import data_dir

ZOO = ("squeezenet", "resnet50", "densenet121", "inception_v1", "inception_v2", "shufflenet", "vgg19",
       "bvlc_alexnet", "zfnet512")


def zoo_path(name: str) -> Path:
    return data_dir() / "light" / f"light_{name}.onnx"


def gain_one_fills(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy whose ConstantOfShape weight fills are 2^-ceil(log2(fan in)) per layer instead of the
    file's one value: a layer's gain (fan in times the weight) is then in (1/2, 1], where the file's
    0.02 grows SqueezeNet's activations 10^7-fold, past any 16-bit fixed-point range; powers of two
    are exact fixed-point values. Biases (real initializers) are kept."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    shapes = {i.name: numpy_helper.to_array(i) for i in out.graph.initializer}
    weights = {n.input[1] for n in out.graph.node if n.op_type in ("Conv", "Gemm", "MatMul") and len(n.input) > 1}
    for n in out.graph.node:
        if n.op_type != "ConstantOfShape" or n.output[0] not in weights or n.input[0] not in shapes:
            continue
        shape = [int(d) for d in shapes[n.input[0]]]
        fan_in = int(np.prod(shape[1:]))
        value = numpy_helper.from_array(np.array([2.0 ** -np.ceil(np.log2(max(fan_in, 1)))], np.float32))
        for a in n.attribute:
            if a.name == "value":
                a.t.CopyFrom(value)
    return out


def random_fills(model: onnx.ModelProto, seed: int = 0) -> onnx.ModelProto:
    """A copy whose ConstantOfShape weight fills are replaced by seeded random weights, uniform in
    +-sqrt(6 / fan in) (He's, so that activations keep their size through the ReLUs): the real
    architecture with weights that differ, so its outputs (a classifier's logits) differ too."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    rng = np.random.default_rng(seed)
    shapes = {i.name: numpy_helper.to_array(i) for i in out.graph.initializer}
    weights = {n.input[1] for n in out.graph.node if n.op_type in ("Conv", "Gemm", "MatMul") and len(n.input) > 1}
    keep = []
    for n in out.graph.node:
        if n.op_type == "ConstantOfShape" and n.output[0] in weights and n.input[0] in shapes:
            shape = [int(d) for d in shapes[n.input[0]]]
            bound = float(np.sqrt(6.0 / max(int(np.prod(shape[1:])), 1)))
            w = rng.uniform(-bound, bound, shape).astype(np.float32)
            out.graph.initializer.append(numpy_helper.from_array(w, n.output[0]))
        else:
            keep.append(n)
    del out.graph.node[:]
    out.graph.node.extend(keep)
    return out


def for_onnxruntime(model: onnx.ModelProto, input_shape: Sequence[int], outputs: Sequence[str]) -> onnx.ModelProto:
    """A copy with its (first non-initializer) input declared at ``input_shape`` and ``outputs`` as its
    outputs, without the stale inferred shapes: what onnxruntime runs to compare with a graph
    imported with load_onnx(..., resize_inputs=True, outputs=...)."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    inits = {i.name for i in out.graph.initializer}
    vi = next(v for v in out.graph.input if v.name not in inits)
    del vi.type.tensor_type.shape.dim[:]
    for d in input_shape:
        vi.type.tensor_type.shape.dim.add().dim_value = int(d)
    del out.graph.value_info[:]
    del out.graph.output[:]
    out.graph.output.extend(helper.make_empty_tensor_value_info(name) for name in outputs)
    return out
