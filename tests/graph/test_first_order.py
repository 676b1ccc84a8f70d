"""The first-order error bound (prover/graph/first_order.py): by hand on a product, correlations kept
where the worst case loses them (a softmax's shift, a layer norm's shared variance), the places where
the linearization does not hold, and the torch-exported GPT whose worst case is infinite."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.graph.error_bound import error_bound
from luminair.prover.graph.first_order import first_order_bound

ROOT = Path(__file__).resolve().parents[2]
EPS = 2.0 ** -10


def _errors(cx: Graph, inputs: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(|exact - float|, first-order bound, worst-case bound) of the graph's one output."""
    (name,) = cx.outputs()
    err = np.abs(cx.run(inputs, exact=True)[name] - cx.run(inputs)[name])
    return err, first_order_bound(cx, inputs)[name], error_bound(cx, inputs)[name]


def test_a_product_by_hand():
    cx = Graph()
    x = cx.input("x", (1, 3))
    w = 0.3
    (x * cx.constant(np.full((1, 3), w))).output("y")
    xs = np.array([[0.1, -2.0, 5.123]])
    qx = np.abs(np.floor(xs * 1024 + 0.5) / 1024 - xs)
    qw = abs(np.floor(w * 1024 + 0.5) / 1024 - w)
    expect = w * qx + np.abs(xs) * qw + EPS / 2
    err, first, _ = _errors(cx, {"x": xs})
    assert np.allclose(first, expect, rtol=1e-6)
    assert np.all(err <= first)


def test_a_softmax_does_not_see_a_shift_all_its_inputs_share():
    """x + c: c's quantization error moves every logit alike, which a softmax ignores; the worst case
    counts it once per logit."""
    cx = Graph()
    x = cx.input("x", (1, 8))
    (x + cx.constant(np.full((1, 1), 0.3337))).softmax(-1).output("p")  # one constant, broadcast
    xs = np.floor(np.linspace(-2, 2, 8) * 1024).reshape(1, 8) / 1024
    cx2 = Graph()
    y = cx2.input("x", (1, 8))
    y.softmax(-1).output("p")
    err, first, worst = _errors(cx, {"x": xs})
    _, plain, _ = _errors(cx2, {"x": xs})
    assert np.all(err <= first)
    # the shared shift adds nothing to first order (the constant's broadcast copies cancel) ...
    assert np.allclose(first, plain, rtol=1e-6, atol=1e-12)
    # ... while the worst case grows by it
    assert np.all(worst > first)


def test_a_layer_norm_of_a_small_variance_is_bounded_where_the_worst_case_is_not():
    cx = Graph()
    x = cx.input("x", (2, 32))
    x.layer_norm(-1).output("y")
    rng = np.random.default_rng(3)
    xs = np.floor(rng.normal(0, 0.12, (2, 32)) * 1024) / 1024  # variance about 15 raw units
    err, first, worst = _errors(cx, {"x": xs})
    assert np.all(np.isfinite(first)) and np.all(err <= first)
    assert first.max() < worst.max()


def test_a_comparison_that_may_flip_counts_a_whole_step():
    cx = Graph()
    x = cx.input("x", (1, 2))
    (x < cx.constant(np.full((1, 2), 0.30005))).output("y")  # 0.30005 rounds to 307/1024 = 0.2998
    err, first, _ = _errors(cx, {"x": np.array([[0.2998046875, 5.0]])})
    assert first.tolist() == [[1.0, 0.0]]
    assert np.all(err <= first)


def test_a_reciprocal_of_a_value_within_its_error_has_no_bound():
    """64 products of half a raw unit each round up: the sum is 64 raw units in fixed point, 32 in
    float, and its first-order bound is 32 raw units: 1 / sum is not linear over that interval."""
    cx = Graph()
    x = cx.input("x", (2, 64))
    (x * cx.constant(np.full((1, 64), 0.5))).sum(-1).recip().output("y")
    _, first, _ = _errors(cx, {"x": np.stack([np.full(64, EPS), np.full(64, 64 * EPS)])})
    assert first[0] == np.inf and np.isfinite(first[1])


@pytest.mark.parametrize("opset", [13])
def test_the_torch_gpt_is_within_its_first_order_bound_of_onnxruntime(opset):
    """The exported nanoGPT (int64 ids, Gather, layer norms, softmax attention): its worst case is
    infinite (the first softmax's recip), its first-order bound finite and above the distance of
    the attested logits to onnxruntime's."""
    ort = pytest.importorskip("onnxruntime")
    from luminair.prover.onnx import load_onnx

    path = ROOT / "examples" / "gpt_torch" / f"gpt_opset{opset}.onnx"
    ids = np.array(json.loads((ROOT / "examples" / "gpt_torch" / "input.json").read_text())["input_data"])
    cx = load_onnx(str(path))
    cx.compile(GenericCompiler(), StwoCompiler())
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ref = sess.run(None, {sess.get_inputs()[0].name: ids.astype(np.int64)})[0]
    attested = cx.run({"input_ids": ids}, exact=True)["logits"]
    first = first_order_bound(cx, {"input_ids": ids})["logits"]
    assert np.isinf(error_bound(cx, {"input_ids": ids})["logits"]).any()
    assert np.all(np.isfinite(first))
    assert np.all(np.abs(attested - ref) <= first + 1e-5)  # + onnxruntime's float32 rounding


def test_a_graph_too_large_for_the_reverse_passes_is_refused_before_any(monkeypatch):
    import luminair.prover.graph.first_order as fo
    from luminair.prover.cli.accuracy import bound_report

    cx = Graph()
    (cx.input("x", (4, 8)) * 0.5).output("y")
    monkeypatch.setattr(fo, "MAX_CELLS", 100)  # 32 outputs x 65 elements (x, the constant, the product)
    monkeypatch.setattr(fo, "_FirstOrder", None)  # no pass may start
    with pytest.raises(ValueError, match="32 outputs x 65 graph elements = 2080 cells, above its limit of 100"):
        first_order_bound(cx, {"x": np.zeros((4, 8))})
    (report,) = bound_report(cx, {"x": np.zeros((4, 8))}).values()  # prove --error-bound: said, not raised
    assert report["first_order"] is None and "above its limit" in report["first_order_refused"]
    assert report["worst_case"] > 0
