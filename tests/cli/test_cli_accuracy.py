"""`luminair prove`'s accuracy report (prover/cli/accuracy.py): distances of the attested outputs
to a reference, onnxruntime's top-1 agreement, and what it says where onnxruntime cannot help."""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import helper

from luminair.prover.cli.accuracy import error_report, onnxruntime_report


def _identity_model() -> bytes:
    g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "id",
                          [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


X = np.array([[0.1, 0.9, 0.3], [0.8, 0.2, 0.1]])


def test_error_report_covers_the_outputs_both_hold():
    r = error_report({"y": X, "other": X}, {"y": X + [[0.0, 0.0, 0.5], [0.0, 0.0, 0.0]]})
    assert set(r) == {"y"} and r["y"]["max_abs_error"] == 0.5 and abs(r["y"]["mean_abs_error"] - 0.5 / 6) < 1e-12


def test_top1_agreement_counts_the_rows_whose_argmax_agrees():
    attested = X.copy()
    attested[1] = [0.0, 0.9, 0.0]  # row 1's class changes
    r = onnxruntime_report(_identity_model(), {"x": X}, {"y": attested})
    assert r["y"]["top1_agreement"] == 0.5 and abs(r["y"]["max_abs_error"] - 0.8) < 1e-6


def test_a_model_onnxruntime_cannot_run_is_named_not_raised():
    r = onnxruntime_report(b"not an onnx model", {"x": X}, {"y": X})
    assert set(r) == {"error"} and r["error"]


def test_without_onnxruntime_there_is_no_report(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import raises ImportError
    assert onnxruntime_report(_identity_model(), {"x": X}, {"y": X}) is None


def test_prove_reports_the_worst_case_and_first_order_bounds_on_request(tmp_path, capsys):
    import json

    from cli_helpers import TINY
    from luminair.prover.cli import main as cli

    assert cli(["prove", *TINY, "--out", str(tmp_path), "--preset", "fast", "--quiet", "--json", "--error-bound"]) == 0
    s = json.loads(capsys.readouterr().out)
    (b,) = s["error_bound"].values()
    assert 0 < b["first_order"] <= b["worst_case"] < 1
    for name, q in s["quantization_error"].items():  # the measured error lies within both
        assert q["max_abs_error"] <= b["first_order"]
    assert cli(["prove", *TINY, "--out", str(tmp_path), "--preset", "fast", "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["error_bound"] is None


def test_samples_report_pools_every_samples_rows():
    from luminair.prover.cli.accuracy import samples_report

    class Two:  # exact runs that differ from the float run on the second sample's class
        def run(self, sample, exact=False):
            y = np.array(sample["x"], dtype=np.float64)
            return {"y": y[:, ::-1] if exact and sample["flip"] else y}

    r = samples_report(Two(), [{"x": [[0.1, 0.9]], "flip": False}, {"x": [[0.2, 0.7]], "flip": True}])
    assert r["y"]["top1_agreement"] == 0.5
    assert abs(r["y"]["max_abs_error"] - 0.5) < 1e-12 and abs(r["y"]["mean_abs_error"] - 0.25) < 1e-12
