"""Issue 9's larger example models (examples/make_models.py): the nanoGPT-like decoder and the
CIFAR-style CNN load from ONNX, their float runs equal onnxruntime, and the fixed-point outputs a
proof attests (after GenericCompiler + StwoCompiler) are within the derived error bound of
onnxruntime and, measured, within a few thousandths of it. Proving the full models is left to
bench/models_bench.py; a scaled-down decoder with the same ops is proven here."""

import importlib.util
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx_helpers import ort_run

from luminair.prover import GenericCompiler, StwoCompiler, load_model, read_input_json
from luminair.prover.graph.error_bound import error_bound
from luminair.prover.onnx import load_onnx

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _make_models():
    spec = importlib.util.spec_from_file_location("make_models", EXAMPLES / "make_models.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MM = _make_models()
# output name, ONNX ops the export must contain, measured max |exact - onnxruntime| budget
MODELS = {
    "transformer_tiny": ("logits", {"LayerNormalization", "Split", "Slice", "Equal", "Where", "Softmax", "Erf",
                                    "Gather", "MatMul"}, 0.03),
    "cnn_cifar": ("output", {"Conv", "Relu", "MaxPool", "Flatten", "Gemm"}, 0.03),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_large_model_matches_onnxruntime_in_float_and_fixed_point(name):
    out, ops, budget = MODELS[name]
    path = EXAMPLES / name / "network.onnx"
    model = onnx.load(str(path))
    assert ops <= {n.op_type for n in model.graph.node}
    assert 200_000 <= MM.n_params(model, MM.LARGE[name][1]) <= 300_000  # "about 0.25M parameters"
    cx = load_model(path)
    feed = read_input_json(EXAMPLES / name / "input.json", cx)
    ref = ort_run(model, feed)[out]
    np.testing.assert_allclose(cx.run(feed)[out], ref, rtol=1e-4, atol=1e-5)
    cx.compile(GenericCompiler(), StwoCompiler())
    exact = cx.run(feed, exact=True)[out]  # the values a proof of this run attests
    err = np.abs(exact - ref)
    assert np.all(err <= error_bound(cx, feed)[out] + 1e-4)
    # the worst-case bound is loose for deep models (inf for the decoder: the softmax's reciprocal
    # bound); the measured error is what a user sees
    assert err.max() < budget, err.max()
    assert np.abs(ref).max() > 20 * budget  # the outputs are not all near zero


def test_transformer_input_is_the_one_hot_token_matrix():
    data = read_input_json(EXAMPLES / "transformer_tiny" / "input.json", load_model(EXAMPLES / "transformer_tiny" /
                                                                                        "network.onnx"))["onehot"]
    seq, vocab = MM.TRANSFORMER["seq"], MM.TRANSFORMER["vocab"]
    assert data.shape == (1, seq, vocab)
    assert np.array_equal(data.sum(-1), np.ones((1, seq))) and set(np.unique(data)) == {0.0, 1.0}


def test_causal_mask_hides_the_future():
    """Changing the last token changes only the last position's logits: exactly in fixed point (the
    -inf fill's exp is 0), up to e^-16 in float (the fill is -16 there too)."""
    model, x = MM.make_transformer(3, vocab=16, d_model=8, n_head=2, n_layer=1, seq=4)
    cx = load_onnx(model)
    a = np.asarray(x).reshape(1, 4, 16)
    b = a.copy()
    b[0, 3] = np.roll(b[0, 3], 5)
    for exact, tol in ((False, 1e-6), (True, 0.0)):
        ya, yb = cx.run({"onehot": a}, exact=exact)["logits"], cx.run({"onehot": b}, exact=exact)["logits"]
        assert np.abs(ya[0, :3] - yb[0, :3]).max() <= tol
        assert np.abs(ya[0, 3] - yb[0, 3]).max() > 0.01


def test_small_decoder_with_the_same_ops_is_proven_and_attests_the_exact_outputs():
    from luminair.verifier import verify

    model, x = MM.make_transformer(7, vocab=8, d_model=8, n_head=2, n_layer=1, seq=4)
    cx = load_onnx(model)
    feed = {"onehot": np.asarray(x).reshape(1, 4, 8)}
    ref = ort_run(model, feed)["logits"]
    cx.compile(GenericCompiler(), StwoCompiler())
    exact = cx.run(feed, exact=True)["logits"]
    assert np.all(np.abs(exact - ref) <= error_bound(cx, feed)["logits"] + 1e-4)
    settings = cx.gen_settings(preset="fast")
    proof = cx.prove(cx.gen_trace(feed), settings)
    r = verify(proof.data, settings.data, min_security_bits=0)
    assert r.success, r.error_message
    assert np.array_equal(np.array(r.outputs["logits"]["values"]), exact.reshape(-1))
