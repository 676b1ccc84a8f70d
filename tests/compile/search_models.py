"""The models the search compiler is measured on (tests and bench/search_bench.py): each a
function returning (graph, inputs), uncompiled."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.air.graph_trace import build_spec
from luminair.prover.graph.model_file import load_model, read_input_json
from luminair.verifier.graph.planner import plan_graph
from luminair.verifier.graph.statement import build_components
from luminair.prover.costs import plan_cells

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str) -> Callable[[], tuple[Graph, dict[str, Any]]]:
    def build() -> tuple[Graph, dict[str, Any]]:
        g = load_model(EXAMPLES / name / "network.onnx")
        return g, read_input_json(EXAMPLES / name / "input.json", g)

    return build


def small_cnn() -> tuple[Graph, dict[str, Any]]:
    """conv 3x3 + relu + 2x2 max-pool + linear (tests/graph_proving/test_models.py's CNN)."""
    rng = np.random.default_rng(5)
    cx = Graph()
    x = cx.input("image", (1, 1, 6, 6))
    w = cx.constant(rng.uniform(-0.5, 0.5, (2, 1, 3, 3)), "conv.w")
    b = cx.constant(rng.uniform(-0.1, 0.1, (2,)), "conv.b")
    h = x.conv2d(w, b, stride=1, padding=1).relu().max_pool2d(2)
    fc = cx.constant(rng.uniform(-0.5, 0.5, (18, 3)), "fc.w")
    (h.flatten(1) @ fc).output("logits")
    return cx, {"image": rng.uniform(0, 1, (1, 1, 6, 6))}


def attention() -> tuple[Graph, dict[str, Any]]:
    """softmax(q k^T / 2) v (tests/graph_proving/test_models.py's attention block)."""
    rng = np.random.default_rng(9)
    cx = Graph()
    q = cx.input("q", (3, 4))
    k = cx.constant(rng.uniform(-1, 1, (5, 4)), "k")
    v = cx.constant(rng.uniform(-1, 1, (5, 2)), "v")
    ((q @ k.transpose()) * 0.5).softmax(-1).__matmul__(v).output("attn")
    return cx, {"q": rng.uniform(-1, 1, (3, 4))}


def causal_attention() -> tuple[Graph, dict[str, Any]]:
    """Self-attention over 8 tokens with a causal mask written as exports write it: the scaled
    scores times a 0/1 mask, plus -8 where masked, then softmax."""
    rng = np.random.default_rng(11)
    cx = Graph()
    x = cx.input("x", (8, 8))
    wq, wk, wv = (cx.constant(rng.uniform(-0.4, 0.4, (8, 8)), n) for n in ("wq", "wk", "wv"))
    q, k, v = x @ wq, x @ wk, x @ wv
    keep = np.tril(np.ones((8, 8)))
    scores = ((q @ k.transpose()) * 0.35) * cx.constant(keep, "mask") + cx.constant((keep - 1) * 8, "mask.add")
    scores.softmax(-1).__matmul__(v).output("y")
    return cx, {"x": rng.uniform(-1, 1, (8, 8))}


def residual_layer_norm() -> tuple[Graph, dict[str, Any]]:
    """x + W2 relu(W1 layer_norm(x) + b1) + b2: a pre-norm residual MLP block."""
    rng = np.random.default_rng(13)
    cx = Graph()
    x = cx.input("x", (4, 16))
    h = x.layer_norm(-1, cx.constant(rng.uniform(0.5, 1.5, 16), "ln.w"), cx.constant(rng.uniform(-0.1, 0.1, 16), "ln.b"))
    h = (h @ cx.constant(rng.uniform(-0.3, 0.3, (16, 32)), "w1") + cx.constant(rng.uniform(-0.1, 0.1, 32), "b1")).relu()
    h = h @ cx.constant(rng.uniform(-0.3, 0.3, (32, 16)), "w2") + cx.constant(rng.uniform(-0.1, 0.1, 16), "b2")
    (x + h).output("y")
    return cx, {"x": rng.uniform(-1, 1, (4, 16))}


SMALL_MODELS: dict[str, Callable[[], tuple[Graph, dict[str, Any]]]] = {
    "mlp_16_16_4": example("mlp_16_16_4"),
    "mlp_64_64_10": example("mlp_64_64_10"),
    "mlp_784_128_10": example("mlp_784_128_10"),
    "small_cnn": small_cnn,
    "attention": attention,
    "causal_attention": causal_attention,
    "residual_layer_norm": residual_layer_norm,
}
LARGE_MODELS = {"cnn_cifar": example("cnn_cifar"), "transformer_tiny": example("transformer_tiny")}


def compiled(build: Callable[[], tuple[Graph, dict[str, Any]]], search: bool) -> tuple[Graph, dict[str, Any], StwoCompiler]:
    g, feed = build()
    stwo = StwoCompiler(search=search)
    g.compile(GenericCompiler(), stwo)
    return g, feed, stwo


def committed_cells(graph: Graph) -> int:
    """Committed trace cells of the proof of this compiled graph (the real component layout)."""
    spec = build_spec(graph)
    return sum(plan_cells(plan_graph(spec), p)["cells"] for p in build_components(plan_graph(spec)))
