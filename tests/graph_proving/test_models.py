"""Real models prove and verify; proven outputs equal the fixed-point reference bit for bit."""

from pathlib import Path

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.graph.model_file import load_model, read_input_json

from proving_helpers import check, prove_graph

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", ["mlp_16_16_4", "mlp_64_64_10", "mlp_784_128_10"])
def test_onnx_mlps_prove_and_verify(name):
    cx = load_model(EXAMPLES / name / "network.onnx")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = read_input_json(EXAMPLES / name / "input.json", cx)
    settings, trace, proof = prove_graph(cx, feed)
    r = check(settings, proof)
    assert r.success, r.error_message
    exact = cx.run(feed, exact=True)
    for out, arr in exact.items():
        assert np.array_equal(np.array(r.outputs[out]["values"]), arr.reshape(-1))
    float_ref = cx.run(feed)
    for out, arr in float_ref.items():
        assert np.abs(np.array(r.outputs[out]["values"]) - arr.reshape(-1)).max() < 0.02


def test_a_small_cnn_proves_and_verifies():
    rng = np.random.default_rng(5)
    cx = Graph()
    x = cx.input("image", (1, 1, 6, 6))
    w = cx.constant(rng.uniform(-0.5, 0.5, (2, 1, 3, 3)), "conv.w")
    b = cx.constant(rng.uniform(-0.1, 0.1, (2,)), "conv.b")
    h = x.conv2d(w, b, stride=1, padding=1).relu().max_pool2d(2)
    fc = cx.constant(rng.uniform(-0.5, 0.5, (18, 3)), "fc.w")
    (h.flatten(1) @ fc).output("logits")
    feed = {"image": rng.uniform(0, 1, (1, 1, 6, 6))}
    settings, trace, proof = prove_graph(cx, feed)
    r = check(settings, proof)
    assert r.success, r.error_message
    assert np.array_equal(np.array(r.outputs["logits"]["values"]), cx.run(feed, exact=True)["logits"].reshape(-1))


def test_softmax_attention_block_proves():
    rng = np.random.default_rng(9)
    cx = Graph()
    q = cx.input("q", (3, 4))
    k = cx.constant(rng.uniform(-1, 1, (5, 4)), "k")
    v = cx.constant(rng.uniform(-1, 1, (5, 2)), "v")
    ((q @ k.transpose()) * 0.5).softmax(-1).__matmul__(v).output("attn")
    feed = {"q": rng.uniform(-1, 1, (3, 4))}
    settings, trace, proof = prove_graph(cx, feed)
    r = check(settings, proof)
    assert r.success, r.error_message
    assert np.array_equal(np.array(r.outputs["attn"]["values"]), cx.run(feed, exact=True)["attn"].reshape(-1))
