"""Integer inputs read as shapes (Expand's shape given as a graph input, as in ONNX's
test_expand_shape_model cases): a static graph's shapes are constants, so their values are taken at
import (`load_onnx(..., shape_values=...)`; `luminair prove` reads them from the input file) and
become constants of the model, part of its digest. Without a value the import refuses in one line
naming the input and the remedy; a wrong value is refused before any work."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx_helpers import ort_run

from luminair.prover.cli import main as cli
from luminair.prover.onnx import OnnxImportError, load_onnx, shape_inputs
from luminair.prover.proving import gen_settings
from luminair.verifier import verify


def expand_model() -> onnx.ModelProto:
    """x (1, 3, 1) expanded to the runtime shape, then Relu: the computation the proof attests."""
    nodes = [helper.make_node("Expand", ["x", "shape"], ["e"]), helper.make_node("Relu", ["e"], ["y"])]
    graph = helper.make_graph(nodes, "expand",
                              [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 3, 1]),
                               helper.make_tensor_value_info("shape", onnx.TensorProto.INT64, [3])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


X = np.array([[[0.5], [-1.25], [2.0]]])


def test_shape_inputs_names_the_integer_inputs_read_as_shapes():
    assert shape_inputs(expand_model()) == ["shape"]


def test_without_its_value_a_shape_input_is_refused_in_one_line_naming_the_remedy():
    with pytest.raises(OnnxImportError) as e:
        load_onnx(expand_model())
    text = str(e.value)
    assert "\n" not in text and "'shape'" in text and "integer graph input" in text and "shape_values=" in text


@pytest.mark.parametrize("value, needle", [
    ([2, 3, 4, 5], "has shape (4,)"),
    ([2.0, 3, 4], "must be a rectangular list of integers, got [2.0, 3, 4]"),
    (["a", "b", "c"], "must be a rectangular list of integers"),
    ([[1], [2, 3]], "must be a rectangular list of integers"),
])
def test_a_wrong_shape_value_is_refused_by_name(value, needle):
    with pytest.raises(OnnxImportError, match="input 'shape'") as e:
        load_onnx(expand_model(), shape_values={"shape": value})
    assert needle in str(e.value)


def test_shape_values_for_an_input_that_is_no_shape_is_refused():
    with pytest.raises(OnnxImportError, match=r"shape_values names \['x'\]"):
        load_onnx(expand_model(), shape_values={"x": [1, 2, 3], "shape": [2, 3, 1]})


def test_the_shape_is_a_constant_of_the_model_and_part_of_its_digest():
    a = load_onnx(expand_model(), shape_values={"shape": [2, 3, 1]})
    b = load_onnx(expand_model(), shape_values={"shape": [4, 3, 1]})
    assert list(a.inputs()) == ["x"]
    assert a.run({"x": X})["y"].shape == (2, 3, 1) and b.run({"x": X})["y"].shape == (4, 3, 1)
    assert gen_settings(a, preset="fast").model_digest != gen_settings(b, preset="fast").model_digest


def test_prove_takes_the_shape_from_the_input_file_and_matches_onnxruntime(tmp_path, capsys):
    onnx.save(expand_model(), tmp_path / "m.onnx")
    (tmp_path / "in.json").write_text(json.dumps({"input_data": [X.tolist(), [2, 3, 4]]}))
    assert cli(["prove", str(tmp_path / "m.onnx"), "--input", str(tmp_path / "in.json"), "--out", str(tmp_path / "o"),
                "--preset", "fast", "--quiet", "--json", "--onnxruntime"]) == 0
    captured = capsys.readouterr()
    assert "shape=[2, 3, 4]" in captured.err and "constants of this model" in captured.err
    y = np.array(json.loads(captured.out)["outputs"]["y"])
    ref = ort_run(expand_model(), {"x": X, "shape": np.array([2, 3, 4])})["y"]
    assert y.shape == ref.shape == (2, 3, 4) and np.allclose(y, ref, atol=1e-3)
    ort = json.loads(captured.out)["onnxruntime_error"]["y"]  # onnxruntime ran with the shape input too
    assert ort["max_abs_error"] <= 1e-3 and ort["top1_agreement"] == 1.0
    assert cli(["prove", str(tmp_path / "m.onnx"), "--input", str(tmp_path / "in.json"), "--out", str(tmp_path / "o2"),
                "--preset", "fast", "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["onnxruntime_error"] is None  # onnxruntime only when asked
    r = verify((tmp_path / "o" / "proof.bin").read_bytes(), (tmp_path / "o" / "settings.bin").read_bytes(),
               min_security_bits=0)
    assert r.success and len(r.outputs["y"]["values"]) == 24


def test_an_input_file_without_the_shape_is_refused_in_one_line(tmp_path, capsys):
    onnx.save(expand_model(), tmp_path / "m.onnx")
    (tmp_path / "in.json").write_text(json.dumps({"input_data": [X.tolist()]}))
    assert cli(["prove", str(tmp_path / "m.onnx"), "--input", str(tmp_path / "in.json"), "--out", str(tmp_path / "o"),
                "--quiet"]) != 0
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "['shape'] as shapes" in err and "(2: x, shape), got 1" in err
