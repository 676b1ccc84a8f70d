"""Generate the example ONNX models and their inputs (deterministic: same bytes on every run).

    python examples/make_models.py [OUT_DIR]    (default: the folder of this script)

Writes, for each MLP (16-16-4, 64-64-10, 784-128-10; Gemm + Relu + Gemm, seeded weights drawn like
torch.nn.Linear's default, U(-1/sqrt(fan_in), 1/sqrt(fan_in))):

    OUT_DIR/mlp_<sizes>/network.onnx   the model (input "input" of shape (1, n_in), output "output")
    OUT_DIR/mlp_<sizes>/input.json     {"input_data": [[...n_in floats in [0, 1)...]]} (EZKL format)

The values stay well inside the default fixed-point range (scale 10: +-32).

Two larger models (issue 9), built node for node as torch.onnx.export (opset 17) writes such modules:

    OUT_DIR/transformer_tiny/   a nanoGPT-like decoder (~0.23M parameters), see make_transformer
    OUT_DIR/cnn_cifar/          a CIFAR-10-style CNN (~0.25M parameters), see make_cnn
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


def n_params(model: onnx.ModelProto, exclude: tuple[str, ...] = ()) -> int:
    """Float initializer elements, except buffers (names ending with one of ``exclude``)."""
    return sum(int(np.prod(i.dims)) for i in model.graph.initializer
               if i.data_type == TensorProto.FLOAT and not i.name.endswith(exclude))


class _Builder:
    """Collects nodes and initializers with torch-export-like names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def init(self, name: str, a: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(a), name))
        return name

    def const(self, a: np.ndarray) -> str:
        self._n += 1
        return self.init(f"onnx::Constant_{self._n}", a)

    def op(self, op_type: str, inputs: list[str], name: str, n_out: int = 1, **attrs) -> str | list[str]:
        outs = [f"/{name}_output_{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=f"/{name}", **attrs))
        return outs[0] if n_out == 1 else outs

    def model(self, name: str, inputs: list, outputs: list, result: str, out_name: str) -> onnx.ModelProto:
        self.nodes[-1].output[0] = out_name  # the last node writes the graph output
        assert self.nodes[-1].output[0] == out_name and result
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="luminair")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def _linear_init(rng: np.random.Generator, fan_in: int, shape: tuple[int, ...], gain: float = 1.0) -> np.ndarray:
    """torch's default for Linear / Conv weights and biases, kaiming_uniform(a=sqrt(5)):
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)); gain sqrt(6) gives kaiming_uniform(nonlinearity="relu")."""
    bound = gain / np.sqrt(fan_in)
    return rng.uniform(-bound, bound, shape).astype(np.float32)


TRANSFORMER = dict(vocab=256, d_model=64, n_head=4, n_layer=4, seq=32)


def make_transformer(seed: int, vocab: int = 256, d_model: int = 64, n_head: int = 4, n_layer: int = 4,
                     seq: int = 32) -> tuple[onnx.ModelProto, list[float]]:
    """A nanoGPT-style decoder (pre-LayerNorm blocks of causal self-attention and a GELU MLP of width
    4 * d_model, final LayerNorm, linear LM head without bias), as torch.onnx.export (opset 17)
    writes it: LayerNormalization, Linear on 3-D inputs as MatMul + Add with the weight stored
    transposed, the fused q/k/v projection Split in three, heads by Reshape + Transpose, the scores
    scaled by a Mul, masked_fill(bias[:, :, :T, :T] == 0, -inf) as Slice + Equal + Where, Softmax,
    exact nn.GELU() as x * 0.5 * (1 + Erf(x / sqrt 2)).

    The token embedding is MatMul(onehot, wte) instead of Gather(wte, ids): the importer needs
    constant Gather indices and graph values are 16-bit fixed point (+-32 at scale 10), so token ids
    cannot be graph values. The input "onehot" is the (1, seq, vocab) one-hot matrix of the tokens
    (input.json holds it flat); onehot @ wte picks exactly the embedding rows. The position embedding
    is Gather(wpe, arange(seq)) with constant indices, as torch exports it.

    Weights are torch's default initialization (Embedding N(0, 1), Linear U(+-1/sqrt(fan_in)),
    LayerNorm 1 and 0), which keeps the residual stream at a standard deviation of about 1.5."""
    rng = np.random.default_rng(seed)
    b = _Builder()
    hs = d_model // n_head
    wte = b.init("transformer.wte.weight", rng.standard_normal((vocab, d_model)).astype(np.float32))
    wpe = b.init("transformer.wpe.weight", rng.standard_normal((seq, d_model)).astype(np.float32))

    def linear(x: str, fan_in: int, fan_out: int, name: str, bias: bool = True) -> str:
        w = b.init(f"onnx::MatMul_{name}.weight", _linear_init(rng, fan_in, (fan_out, fan_in)).T.copy())
        y = b.op("MatMul", [x, w], f"{name}/MatMul")
        if bias:
            y = b.op("Add", [b.init(f"{name}.bias", _linear_init(rng, fan_in, (fan_out,))), y], f"{name}/Add")
        return y

    def layer_norm(x: str, name: str) -> str:
        g = b.init(f"{name}.weight", np.ones(d_model, np.float32))
        beta = b.init(f"{name}.bias", np.zeros(d_model, np.float32))
        return b.op("LayerNormalization", [x, g, beta], f"{name}/LayerNormalization", axis=-1, epsilon=1e-5)

    tok = b.op("MatMul", ["onehot", wte], "transformer/wte/MatMul")
    pos = b.op("Gather", [wpe, b.const(np.arange(seq, dtype=np.int64))], "transformer/wpe/Gather")
    x = b.op("Add", [tok, pos], "transformer/Add")
    heads_shape = b.const(np.array([1, seq, n_head, hs], np.int64))
    flat_shape = b.const(np.array([1, seq, d_model], np.int64))
    for i in range(n_layer):
        p = f"transformer.h.{i}"
        h = layer_norm(x, f"{p}.ln_1")
        qkv = linear(h, d_model, 3 * d_model, f"{p}.attn.c_attn")
        q, k, v = b.op("Split", [qkv, b.const(np.array([d_model] * 3, np.int64))], f"{p}/attn/Split", 3, axis=2)
        q = b.op("Transpose", [b.op("Reshape", [q, heads_shape], f"{p}/attn/Reshape_q")], f"{p}/attn/Transpose_q",
                 perm=[0, 2, 1, 3])
        kt = b.op("Transpose", [b.op("Reshape", [k, heads_shape], f"{p}/attn/Reshape_k")], f"{p}/attn/Transpose_k",
                  perm=[0, 2, 3, 1])
        v = b.op("Transpose", [b.op("Reshape", [v, heads_shape], f"{p}/attn/Reshape_v")], f"{p}/attn/Transpose_v",
                 perm=[0, 2, 1, 3])
        att = b.op("MatMul", [q, kt], f"{p}/attn/MatMul")
        att = b.op("Mul", [att, b.const(np.array(1.0 / np.sqrt(hs), np.float32))], f"{p}/attn/Mul")
        buf = b.init(f"{p}.attn.bias", np.tril(np.ones((seq, seq), np.float32)).reshape(1, 1, seq, seq))
        sl = b.op("Slice", [buf, b.const(np.array([0, 0], np.int64)), b.const(np.array([seq, seq], np.int64)),
                            b.const(np.array([2, 3], np.int64))], f"{p}/attn/Slice")
        masked = b.op("Equal", [sl, b.const(np.array(0.0, np.float32))], f"{p}/attn/Equal")
        att = b.op("Where", [masked, b.const(np.array(-np.inf, np.float32)), att], f"{p}/attn/Where")
        att = b.op("Softmax", [att], f"{p}/attn/Softmax", axis=-1)
        y = b.op("MatMul", [att, v], f"{p}/attn/MatMul_1")
        y = b.op("Transpose", [y], f"{p}/attn/Transpose_y", perm=[0, 2, 1, 3])
        y = b.op("Reshape", [y, flat_shape], f"{p}/attn/Reshape_y")
        x = b.op("Add", [x, linear(y, d_model, d_model, f"{p}.attn.c_proj")], f"{p}/Add")
        h = linear(layer_norm(x, f"{p}.ln_2"), d_model, 4 * d_model, f"{p}.mlp.c_fc")
        u = b.op("Div", [h, b.const(np.array(np.sqrt(2.0), np.float32))], f"{p}/mlp/gelu/Div")
        e = b.op("Add", [b.op("Erf", [u], f"{p}/mlp/gelu/Erf"), b.const(np.array(1.0, np.float32))],
                 f"{p}/mlp/gelu/Add")
        g = b.op("Mul", [b.op("Mul", [h, e], f"{p}/mlp/gelu/Mul"), b.const(np.array(0.5, np.float32))],
                 f"{p}/mlp/gelu/Mul_1")
        x = b.op("Add", [x, linear(g, 4 * d_model, d_model, f"{p}.mlp.c_proj")], f"{p}/Add_1")
    logits = linear(layer_norm(x, "transformer.ln_f"), d_model, vocab, "lm_head", bias=False)
    model = b.model(
        "transformer_tiny", [helper.make_tensor_value_info("onehot", TensorProto.FLOAT, [1, seq, vocab])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, seq, vocab])], logits, "logits",
    )
    tokens = rng.integers(0, vocab, seq)
    onehot = np.zeros((seq, vocab), np.float32)
    onehot[np.arange(seq), tokens] = 1.0
    return model, [float(v) for v in onehot.reshape(-1)]


def make_cnn(seed: int, channels: tuple[int, ...] = (16, 32, 64), hidden: int = 220,
             classes: int = 10) -> tuple[onnx.ModelProto, list[float]]:
    """A CIFAR-10-style CNN on (1, 3, 32, 32) inputs in [0, 1): three blocks of conv 3x3 (padding 1)
    + ReLU + MaxPool 2x2 (32 -> 16 -> 8 -> 4), Flatten, Linear(1024, 220) + ReLU, Linear(220, 10);
    exported as torch writes it (Conv, Relu, MaxPool, Flatten, Gemm with transB=1).

    Most of the parameters sit in the first Linear layer (one multiply each), not in wide convolutions
    at full resolution (one multiply per output pixel each), which keeps the trace small. Weights are
    kaiming_uniform(nonlinearity="relu") as torchvision initializes such nets, so the activations keep
    their size through the ReLU layers (torch's plain default would shrink the logits toward the
    fixed-point resolution); biases are torch's default."""
    rng = np.random.default_rng(seed)
    b = _Builder()
    x, c_in = "input", 3
    for i, c in enumerate(channels):
        fan_in = c_in * 9
        w = b.init(f"features.{i}.conv.weight", _linear_init(rng, fan_in, (c, c_in, 3, 3), np.sqrt(6.0)))
        bias = b.init(f"features.{i}.conv.bias", _linear_init(rng, fan_in, (c,)))
        x = b.op("Conv", [x, w, bias], f"features.{i}/conv/Conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                 strides=[1, 1], dilations=[1, 1], group=1)
        x = b.op("Relu", [x], f"features.{i}/relu/Relu")
        x = b.op("MaxPool", [x], f"features.{i}/pool/MaxPool", kernel_shape=[2, 2], strides=[2, 2],
                 pads=[0, 0, 0, 0], ceil_mode=0)
        c_in = c
    x = b.op("Flatten", [x], "Flatten", axis=1)
    flat = c_in * (32 >> len(channels)) ** 2
    for j, (fi, fo) in enumerate(((flat, hidden), (hidden, classes))):
        w = b.init(f"classifier.{j}.weight", _linear_init(rng, fi, (fo, fi), np.sqrt(6.0) if j == 0 else 1.0))
        bias = b.init(f"classifier.{j}.bias", _linear_init(rng, fi, (fo,)))
        x = b.op("Gemm", [x, w, bias], f"classifier.{j}/Gemm", alpha=1.0, beta=1.0, transB=1)
        if j == 0:
            x = b.op("Relu", [x], "classifier/Relu")
    model = b.model(
        "cnn_cifar", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, classes])], x, "output",
    )
    return model, [float(v) for v in rng.uniform(0.0, 1.0, 3 * 32 * 32).astype(np.float32)]


LARGE = {"transformer_tiny": (make_transformer, (".attn.bias",)), "cnn_cifar": (make_cnn, ())}


def write_all(out_dir: Path, verbose: bool = False) -> list[Path]:
    written = []
    builds = [(name, lambda i=i, sizes=sizes: make_mlp(sizes, SEED + i)) for i, (name, sizes) in enumerate(MODELS.items())]
    builds += [(name, lambda j=j, fn=fn: fn(SEED + 100 + j)) for j, (name, (fn, _)) in enumerate(LARGE.items())]
    for name, build in builds:
        model, x = build()
        if verbose and name in LARGE:
            print(f"{name}: {n_params(model, LARGE[name][1])} parameters")
        folder = out_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "network.onnx").write_bytes(model.SerializeToString())
        (folder / "input.json").write_text(json.dumps({"input_data": [x]}) + "\n", encoding="utf-8")
        written += [folder / "network.onnx", folder / "input.json"]
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for p in write_all(target, verbose=True):
        print(p)
