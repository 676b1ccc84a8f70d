"""Calibration of the global scale from sample inputs (prover/graph/calibrate.py, `luminair prove
--calibrate`): the largest scale at which every node's exact value over the samples fits with the
headroom asked for; a value no scale holds is refused naming node, value and the calibration."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from luminair.prover import Graph
from luminair.prover.cli import main as cli
from luminair.verifier import verify
from luminair.verifier.numeric import NumericError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _scaled(factor: float) -> Graph:
    g = Graph()
    (g.input("x", (2,)) * g.constant(np.array([factor, 0.5]), "w")).output("y")
    return g


@pytest.mark.parametrize("headroom, expected", [(1, 12), (0, 13)])
def test_the_largest_scale_that_holds_the_samples_with_headroom(headroom, expected):
    g = _scaled(1.5)  # 2 * 1.5 = 3.0: raw 3 * 2^s must stay below 2^(15 - headroom)
    cal = g.calibrate([{"x": np.array([2.0, 1.0])}, {"x": np.array([-1.0, 0.25])}], headroom_bits=headroom)
    assert cal.scale_bits == g.numeric_format.scale_bits == expected and cal.samples == 2
    assert cal.peak_raw == 3 << expected and "Mul node" in cal.peak_node
    assert np.allclose(g.run({"x": np.array([2.0, 1.0])}, exact=True)["y"], [3.0, 0.5])


def test_a_wider_sample_lowers_the_scale():
    assert _scaled(1.5).calibrate([{"x": np.array([2.0, 1.0])}]).scale_bits == 12
    assert _scaled(1.5).calibrate([{"x": np.array([2.0, 1.0])}, {"x": np.array([20.0, 1.0])}]).scale_bits == 9


def test_a_value_no_scale_holds_is_refused_naming_node_and_calibration():
    with pytest.raises(NumericError) as e:
        _scaled(1000.0).calibrate([{"x": np.array([5.0, 1.0])}])
    text = str(e.value)
    assert "calibration over 1 sample(s)" in text and "node" in text and "2^4" in text


def test_prove_calibrate_chooses_the_scale_and_the_proof_verifies(tmp_path, capsys):
    rng = np.random.default_rng(3)
    np.save(tmp_path / "samples.npy", rng.uniform(0, 1, (4, 8)))
    model, inp = EXAMPLES / "tiny_mlp.py", EXAMPLES / "tiny_mlp.input.json"
    args = ["prove", str(model), "--input", str(inp), "--preset", "fast", "--quiet", "--json"]
    assert cli([*args, "--out", str(tmp_path / "plain")]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert cli([*args, "--out", str(tmp_path / "cal"), "--calibrate", str(tmp_path / "samples.npy")]) == 0
    captured = capsys.readouterr()
    cal = json.loads(captured.out)
    assert cal["calibration"]["samples"] == 5 and cal["calibration"]["per_tensor"]  # the input and 4 samples
    assert max(int(s) for s in cal["calibration"]["scales"]) > 10
    assert "a scale per tensor from the input and 4 sample(s)" in captured.err
    assert plain["calibration"] is None and cal["model_digest"] != plain["model_digest"]  # the scale is in the digest
    err = cal["quantization_error"]["y"]["max_abs_error"]
    assert err <= plain["quantization_error"]["y"]["max_abs_error"]
    # the accuracy over the calibration set: the proving input is one of its samples
    acc = cal["calibration"]["accuracy"]["y"]
    assert err <= acc["max_abs_error"] < 0.01 and 0 <= acc["mean_abs_error"] <= acc["max_abs_error"]
    if "top1_agreement" in acc:
        assert 0.0 <= acc["top1_agreement"] <= 1.0
    r = verify((tmp_path / "cal" / "proof.bin").read_bytes(), (tmp_path / "cal" / "settings.bin").read_bytes(),
               min_security_bits=0)
    assert r.success, r.error_message


@pytest.mark.parametrize("content, extra, needle", [
    ("{}", [], "must hold a JSON list of input objects"),
    ("[1, 2]", [], "must hold a JSON list of input objects"),
    ("[]", ["--scale-bits", "8"], "--calibrate chooses a scale per tensor: drop --scale-bits"),
])
def test_bad_calibration_arguments_are_refused_in_one_line(tmp_path, capsys, content, extra, needle):
    (tmp_path / "cal.json").write_text(content)
    code = cli(["prove", str(EXAMPLES / "tiny_mlp.py"), "--input", str(EXAMPLES / "tiny_mlp.input.json"),
                "--out", str(tmp_path / "o"), "--quiet", "--calibrate", str(tmp_path / "cal.json"), *extra])
    err = capsys.readouterr().err.strip()
    assert code != 0 and needle in err and "\n" not in err


def test_a_constant_needs_to_fit_but_takes_no_headroom():
    """A -16 mask constant (a causal mask's fill) is the same for every input: it only has to fit
    (-16 * 2^11 = -32768, the range's least value), where 1 bit of headroom would cap the scale at
    2^9. A value that depends on the input keeps its headroom."""
    g = Graph()
    m = g.constant(np.array([-16.0, 0.0]), "mask")
    (g.input("x", (2,)) * 0.5 + m * 0.001).output("y")
    assert g.calibrate([{"x": np.array([0.01, 0.25])}]).scale_bits == 11
    g2 = Graph()
    (g2.input("x", (2,)) + g2.constant(np.array([-16.0, 0.0]), "mask")).output("y")
    cal = g2.calibrate([{"x": np.array([0.01, 0.25])}])  # x - 16 at 2^11: -32747 raw, no headroom
    assert cal.scale_bits == 10 and "Add node" in cal.peak_node
