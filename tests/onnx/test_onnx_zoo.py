"""The model-zoo graphs of the onnx wheel (light_*.onnx): imported as they ship, no pre-folding (their
weights are ConstantOfShape fills, folded while importing); at 224x224 the format's caps refuse them
in one line naming the node; SqueezeNet at 31x31, cut at its logits, matches onnxruntime within the
fixed-point bound. Every zoo graph at 224, and SqueezeNet's proof, are measured by
bench/zoo_bench.py."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from luminair.prover import BoundsError, CompileError, GenericCompiler, StwoCompiler
from luminair.prover.cli import main as cli
from luminair.prover.graph.error_bound import error_bound
from luminair.prover.onnx import load_onnx
from luminair.prover.onnx.zoo import for_onnxruntime, gain_one_fills, zoo_path

LOGITS = "r65"  # SqueezeNet's GlobalAveragePool output (the softmax reads it)
SIZE = 31  # the smallest input its three 3x3 / 2 pools leave a 1x1 grid of


def test_squeezenet_as_shipped_imports_and_the_view_cap_refuses_it_naming_its_node(capsys):
    graph = load_onnx(zoo_path("squeezenet"))
    assert graph.inputs()["data_0"].shape == (1, 3, 224, 224)
    assert not any(n.op.value == "ConstantOfShape" for n in graph.nodes())  # the fills are weights now
    with pytest.raises(CompileError, match=r"conv at ONNX Conv node 'n62'\): input 0 is read through a view of "
                                           r"\(1, 1, 1000, 13, 13, 512\) \(86528000 elements\), more than a view of "
                                           r"the proof format may hold \(67108864 = 2\^26\)"):
        graph.compile(GenericCompiler(), StwoCompiler(search=False))
    assert cli(["inspect", str(zoo_path("squeezenet")), "--no-search"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "2^26" in err and "ONNX Conv node 'n62'" in err, err


def _squeezenet(model: onnx.ModelProto):  # noqa: ANN202 - a Graph
    return load_onnx(model, {"data_0": (1, 3, SIZE, SIZE)}, resize_inputs=True, outputs=[LOGITS])


def test_squeezenet_as_shipped_leaves_every_fixed_point_range_and_is_refused_naming_node_and_value():
    x = np.random.default_rng(0).uniform(0, 1, (1, 3, SIZE, SIZE))
    with pytest.raises(BoundsError, match=r"ONNX (Conv|Relu|MaxPool|Concat) node .*: raw value \d+ .* at element .*"
                                          r"Remedy:"):
        _squeezenet(onnx.load(str(zoo_path("squeezenet")))).run({"data_0": x}, exact=True)


def test_squeezenet_at_31x31_cut_at_its_logits_matches_onnxruntime_within_the_bound():
    model = gain_one_fills(onnx.load(str(zoo_path("squeezenet"))))
    graph = _squeezenet(model)
    assert list(graph.outputs()) == [LOGITS] and graph.outputs()[LOGITS][1].shape == (1, 1000, 1, 1)
    graph.compile(GenericCompiler(), StwoCompiler())
    x = np.random.default_rng(0).uniform(0, 1, (1, 3, SIZE, SIZE)).astype(np.float32).astype(np.float64)
    sess = ort.InferenceSession(for_onnxruntime(model, (1, 3, SIZE, SIZE), [LOGITS]).SerializeToString(),
                                providers=["CPUExecutionProvider"])
    ref = sess.run(None, {"data_0": x.astype(np.float32)})[0].astype(np.float64)
    np.testing.assert_allclose(graph.run({"data_0": x})[LOGITS], ref, rtol=1e-4, atol=1e-5)
    exact = graph.run({"data_0": x}, exact=True)[LOGITS]
    bound = error_bound(graph, {"data_0": x})[LOGITS]
    assert np.all(np.abs(exact - ref) <= bound + 1e-5)
    assert np.abs(exact - ref).max() < 0.01 < np.abs(ref).max()  # measured: a few raw units on logits of ~0.1
