"""`prove --symbol`: one settings.bin for every batch size, the batch read from the input file."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from luminair.prover.cli import main as cli

RNG = np.random.default_rng(5)
W, B = RNG.uniform(-0.5, 0.5, (12, 8)), RNG.uniform(-0.2, 0.2, 12)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A Gemm and a Relu whose batch axis is the ONNX dynamic axis "batch"."""
    folder = tmp_path_factory.mktemp("sym")
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 12])],
        [numpy_helper.from_array(W.astype(np.float32), "w"), numpy_helper.from_array(B.astype(np.float32), "b")],
    )
    path = folder / "mlp.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return folder, path


def test_batches_from_json_rows_and_npy_share_one_settings_file(model, capsys):
    folder, path = model
    rows = RNG.uniform(-1, 1, (5, 8))
    (folder / "rows.json").write_text(json.dumps({"input_data": rows.tolist()}))
    np.save(folder / "three.npy", RNG.uniform(-1, 1, (3, 8)))
    for name, out in (("rows.json", "a"), ("three.npy", "b")):
        assert cli(["prove", str(path), "--input", str(folder / name), "--out", str(folder / out),
                    "--symbol", "batch=1:64", "--preset", "fast", "--quiet", "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["symbols"] == {"batch": 5 if out == "a" else 3}
        assert np.array(summary["outputs"]["y"]).shape == ((5 if out == "a" else 3), 12)
    assert (folder / "a" / "settings.bin").read_bytes() == (folder / "b" / "settings.bin").read_bytes()
    # batch 3's proof against the settings written by the batch 5 run
    assert cli(["verify", str(folder / "b" / "proof.bin"), str(folder / "a" / "settings.bin"),
                "--min-security-bits", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("valid: ") and "symbols (fixed by this proof): batch=3" in out
    assert "output y [3, 12]" in out and "    [2] " in out and "    [3] " not in out


@pytest.mark.parametrize("flag, message", [
    ("batch", "expected NAME=LO:HI"),
    ("batch=1:x", "expected NAME=LO:HI"),
    ("seq=1:64", "no dynamic axis named ['seq']"),
    ("batch=0:64", "must lie within"),
])
def test_bad_symbol_flags_are_usage_errors(model, capsys, flag, message):
    folder, path = model
    (folder / "one.json").write_text(json.dumps({"input_data": [RNG.uniform(-1, 1, 8).tolist()]}))
    code = cli(["prove", str(path), "--input", str(folder / "one.json"), "--out", str(folder / "bad"),
                "--symbol", flag, "--preset", "fast", "--quiet"])
    err = capsys.readouterr().err
    assert code != 0 and message in err, err
