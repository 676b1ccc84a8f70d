"""The model-zoo graphs of the onnx wheel (light_*.onnx): imported as they ship, no pre-folding (their
weights are ConstantOfShape fills, folded while importing); at 224x224 each compiles within the
format's caps (layers past them split) and `luminair inspect` prints its committed cells; SqueezeNet
at 31x31, cut at its logits, matches onnxruntime within the fixed-point bound. Every zoo graph at
224, and SqueezeNet's proof, are measured by bench/zoo_bench.py."""

from __future__ import annotations

import json
import re

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

from luminair.prover import BoundsError, GenericCompiler, StwoCompiler
from luminair.prover.cli import main as cli
from luminair.prover.graph.error_bound import error_bound
from luminair.prover.onnx import load_onnx
from luminair.prover.onnx.zoo import ZOO, for_onnxruntime, gain_one_fills, zoo_path
from luminair.verifier.graph.settings import MAX_NUMEL
from luminair.verifier.graph.spec import MAX_VIEW_NUMEL

LOGITS = "r65"  # SqueezeNet's GlobalAveragePool output (the softmax reads it)
SIZE = 31  # the smallest input its three 3x3 / 2 pools leave a 1x1 grid of


# scale bits a graph's weight fills need: its folded batch-norm factors (316.2 and 37.07) are past
# the default format's range (the refusal names the node and this remedy)
SCALE_BITS = {"densenet121": 6, "shufflenet": 9}
SLOW = {"vgg19"}  # 143M weights, the planner's pass over them most of it: 55 s alone, 100-150 s on a loaded machine


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in ZOO])
def test_each_zoo_graph_compiles_as_shipped_at_224_and_inspect_prints_its_committed_cells(name, capsys):
    """As shipped (ConstantOfShape fills folded while importing, nothing pre-folded), at 224x224:
    every node within the format's caps (convolutions and fully connected layers past them are
    split), and `luminair inspect` counts the committed cells without proving; their topology is
    past what a verifier derives, which inspect says."""
    args = ["inspect", str(zoo_path(name)), "--no-search", "--json"]
    if name in SCALE_BITS:
        args += ["--scale-bits", str(SCALE_BITS[name])]
    assert cli(args) == 0
    info = json.loads(capsys.readouterr().out)
    (inp,) = info["inputs"]
    assert inp["shape"][2:] == [224, 224]
    assert not any(n["op"] == "ConstantOfShape" for n in info["graph"]["nodes"])
    cells = sum(c["cells"] for c in info["components"])
    assert cells > 10**8 and all(c["cells"] > 0 for c in info["components"]), cells
    assert info["weights"] > 10**6
    assert "past its hard bound" in info["topology"] and "luminair prove` refuses it" in info["topology"]


def test_squeezenet_at_224_splits_its_last_convolution_and_inspect_prints_cells_and_the_topology_line(capsys):
    """Its last convolution (1000 channels over 13x13 windows of 512 values) read a view of 86.5M
    elements, past spec.MAX_VIEW_NUMEL: it is now two Dots in bands of output rows."""
    graph = load_onnx(zoo_path("squeezenet"))
    assert graph.inputs()["data_0"].shape == (1, 3, 224, 224)
    graph.compile(GenericCompiler(), StwoCompiler(search=False))
    last = [n for n in graph.nodes() if n.op.value == "Dot" and "'n62'" in (n.origin or "")]
    assert len(last) == 2 and sum(n.shape[3] for n in last) == 13, last  # two bands of the 13 rows
    assert all(v.numel <= MAX_VIEW_NUMEL for n in graph.nodes() for _, v in n.srcs)
    assert all(n.numel <= MAX_NUMEL for n in graph.nodes())
    assert cli(["inspect", str(zoo_path("squeezenet")), "--no-search"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^components: \d+, \d{9} committed trace cells$", out, re.M), out
    assert re.search(r"^topology: at most \d+ boundary rows for a verifier to derive, past its hard bound of 1048576", out,
                     re.M)


def test_a_fully_connected_weight_past_the_constant_cap_is_split_into_columns_computed_as_unsplit(monkeypatch):
    """Gemm and MatMul with a static weight larger than one constant may be (VGG-19's fc6: 103M
    values, past settings.MAX_NUMEL): column chunks, each its own constant and Dot, concatenated;
    with the caps lowered, every raw output equals the unsplit product's."""
    import luminair.prover.onnx.ops_nn as ops_nn

    rng = np.random.default_rng(3)
    w = rng.uniform(-0.5, 0.5, (10, 12)).astype(np.float32)
    x = rng.uniform(-1, 1, (2, 12))
    for op, attrs, weight in (("Gemm", {"transB": 1}, w), ("MatMul", {}, w.T.copy()), ("Gemm", {}, w.T.copy())):
        graph = helper.make_graph([helper.make_node(op, ["x", "w"], ["y"], **attrs)], "fc",
                                  [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 12])],
                                  [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 10])],
                                  [numpy_helper.from_array(weight, "w")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        whole = load_onnx(model)
        monkeypatch.setattr(ops_nn, "MAX_NUMEL", 40)
        split = load_onnx(model)
        monkeypatch.undo()
        constants = [n for n in split.nodes() if n.op.value == "Constant"]
        assert len(constants) == 4 and all(n.numel <= 40 for n in constants), constants  # 10 columns in 4 chunks
        for g in (whole, split):
            g.compile(GenericCompiler(), StwoCompiler(search=False))
        np.testing.assert_array_equal(split.run({"x": x}, exact=True)["y"], whole.run({"x": x}, exact=True)["y"])
        np.testing.assert_allclose(split.run({"x": x})["y"], x @ w.astype(np.float64).T, atol=1e-6)


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
