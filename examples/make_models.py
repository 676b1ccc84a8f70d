"""Generate the example ONNX models and their inputs (deterministic: same bytes on every run).

    python examples/make_models.py [OUT_DIR]    (default: the folder of this script)

Writes, for each MLP (16-16-4, 64-64-10, 784-128-10; Gemm + Relu + Gemm, seeded weights drawn like
torch.nn.Linear's default, U(-1/sqrt(fan_in), 1/sqrt(fan_in))):

    OUT_DIR/mlp_<sizes>/network.onnx   the model (input "input" of shape (1, n_in), output "output")
    OUT_DIR/mlp_<sizes>/input.json     {"input_data": [[...n_in floats in [0, 1)...]]} (EZKL format)

The values stay well inside the default fixed-point range (scale 10: +-32).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MODELS = {"mlp_16_16_4": (16, 16, 4), "mlp_64_64_10": (64, 64, 10), "mlp_784_128_10": (784, 128, 10)}
SEED = 20240611
OPSET = 13


def make_mlp(sizes: tuple[int, int, int], seed: int) -> tuple[onnx.ModelProto, list[float]]:
    n_in, n_hidden, n_out = sizes
    rng = np.random.default_rng(seed)

    def layer(fan_in: int, fan_out: int) -> tuple[np.ndarray, np.ndarray]:
        bound = 1.0 / np.sqrt(fan_in)
        w = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        b = rng.uniform(-bound, bound, (fan_out,)).astype(np.float32)
        return w, b

    w1, b1 = layer(n_in, n_hidden)
    w2, b2 = layer(n_hidden, n_out)
    x = rng.uniform(0.0, 1.0, n_in).astype(np.float32)
    nodes = [
        helper.make_node("Gemm", ["input", "fc1.weight", "fc1.bias"], ["hidden"], name="fc1", transB=1),
        helper.make_node("Relu", ["hidden"], ["hidden_relu"], name="relu"),
        helper.make_node("Gemm", ["hidden_relu", "fc2.weight", "fc2.bias"], ["output"], name="fc2", transB=1),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             ((w1, "fc1.weight"), (b1, "fc1.bias"), (w2, "fc2.weight"), (b2, "fc2.bias"))]
    graph = helper.make_graph(
        nodes, f"mlp_{n_in}_{n_hidden}_{n_out}",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, n_in])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, n_out])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="luminair")
    model.ir_version = 8  # readable by onnxruntime releases of the last years
    onnx.checker.check_model(model)
    return model, [float(v) for v in x]


def write_all(out_dir: Path) -> list[Path]:
    written = []
    for i, (name, sizes) in enumerate(MODELS.items()):
        model, x = make_mlp(sizes, SEED + i)
        folder = out_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "network.onnx").write_bytes(model.SerializeToString())
        (folder / "input.json").write_text(json.dumps({"input_data": [x]}) + "\n", encoding="utf-8")
        written += [folder / "network.onnx", folder / "input.json"]
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for p in write_all(target):
        print(p)
