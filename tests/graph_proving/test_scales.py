"""A scale per tensor (format 12): the rules of numeric.node_constant, the settings reader that
enforces them, per-tensor calibration, and the forgeries a scale assignment invites: a witness that
rounds one node by another shift, settings that show another scale for an output or a node, a
scale assignment that breaks a rule. Each is rejected with a named check."""

import sys
from pathlib import Path

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.graph import softmax
from luminair.prover.graph.errors import BoundsError, CompileError
from luminair.verifier import numeric as num
from luminair.verifier.errors import FormatError
from luminair.verifier.graph.components import HALF
from luminair.verifier.statement import KIND_GRAPH, encode_settings, read_settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "graph"))
from graph_helpers import assert_exact_matches_scalar, assert_within_bound  # noqa: E402
from proving_helpers import check, component_index, forge, forge_as, prove_graph  # noqa: E402
from test_forgery import set_limbs  # noqa: E402

RNG = np.random.default_rng(27)


@pytest.mark.parametrize("op, ins, out, expect", [
    ("Mul", [12, 13], 11, 14), ("Mul", [10, 10], 10, 10), ("Dot", [8, 8, 9], 9, 7), ("Recip", [6], 20, 26),
    ("Sqrt", [14], 12, 10), ("LessThan", [9, 9], 14, 14), ("Exp", [10], 10, 10), ("Add", [7, 7], 7, 0),
    ("Gather", [11, 0], 11, 0), ("Constant", [], 24, 0),
])
def test_each_op_takes_the_constant_its_scales_give(op, ins, out, expect):
    assert num.node_constant(op, ins, out, 10) == expect


@pytest.mark.parametrize("op, ins, out, words", [
    ("Mul", [10, 10], 20, "shift 0 outside [1, 14]"), ("Mul", [14, 14], 13, "shift 15"),
    ("Dot", [10, 10, 8], 9, "bias"), ("Recip", [14], 15, "exceeds 2^28"), ("Sqrt", [14], 6, "outside [0, 14]"),
    ("LessThan", [9, 10], 9, "one scale"), ("LessThan", [9, 9], 15, "at most 2^14"),
    ("Exp", [12], 12, "graph's scale"), ("Add", [10, 11], 10, "one scale"), ("Relu", [10], 11, "one scale"),
    ("Input", [], 25, "outside [2^0, 2^24]"),
])
def test_a_scale_assignment_that_breaks_a_rule_is_refused_naming_it(op, ins, out, words):
    with pytest.raises(num.NumericError, match=words.replace("^", r"\^").replace("[", r"\[").replace("]", r"\]")):
        num.node_constant(op, ins, out, 10)


def _scaled_mul(scales=(12, 11, 9)):
    """out = x * y at scales (x, y, out): a rounding shift of x + y - out."""
    cx = Graph()
    x, y = cx.input("x", (4, 4)), cx.input("y", (4, 4))
    (x * y).output("out")
    cx.compile(GenericCompiler(), StwoCompiler(fuse=False))
    cx.set_scales(dict(enumerate(scales)))
    feed = {"x": RNG.uniform(-3, 3, (4, 4)), "y": RNG.uniform(-3, 3, (4, 4))}
    return cx, feed


def test_a_graph_of_several_scales_proves_and_its_outputs_decode_at_their_scale():
    cx, feed = _scaled_mul()
    assert_exact_matches_scalar(cx, feed)
    settings, trace, proof = prove_graph(cx, feed)
    r = check(settings, proof)
    assert r.success, r.error_message
    assert r.outputs["out"]["scale_bits"] == 9
    expected = np.floor(feed["x"] * 4096 + 0.5) * np.floor(feed["y"] * 2048 + 0.5)
    expected = np.floor((expected + (1 << 13)) / (1 << 14)) / 512
    np.testing.assert_array_equal(np.array(r.outputs["out"]["values"]).reshape(4, 4), expected)
    assert settings.plans[component_index(settings, "Mul")].component.name == "mul@14"


def test_a_witness_that_rounds_one_node_by_another_shift_is_rejected():
    """The settings say shift 14 (x 2^12, y 2^11, out 2^9); the forger rounds by 13 (out at 2^10,
    claimed as if at 2^9: twice the value) with limbs that fit: the Mul constraint objects."""
    cx, feed = _scaled_mul()
    settings, trace, proof = prove_graph(cx, feed)
    k = component_index(settings, "Mul")
    out = trace.values[max(trace.values)].copy()

    def tamper(main):
        c = main[k]
        prod = c["a"] * c["b"] + (1 << 12)
        c["out"] = prod >> 13
        c["rem"] = prod - (c["out"] << 13)  # < 2^13: inside the 14-bit range check
        set_limbs(c, "out", 16, c["out"] + HALF)
        set_limbs(c, "rem", 14, c["rem"])

    a, b = (np.floor(feed[n] * (1 << s) + 0.5).astype(np.int64).reshape(-1) for n, s in (("x", 12), ("y", 11)))
    out = (a * b + (1 << 12)) >> 13
    public = [list(v) for v in trace.public]
    public[-1] = [int(v) % num.P for v in out]
    r = check(settings, forge(cx, trace, settings, tamper, public=public))
    assert not r.success
    assert r.check in ("OODS mismatch", "LogUp sum"), r.error_message


def test_settings_that_show_another_scale_for_an_output_are_rejected():
    """A publisher shows the output at 2^10 (values read twice as large) while the proof's witness
    rounds to 2^9: the shown graph's shift is 13, its Mul component another (mul@13): the proof
    does not fit it."""
    cx, feed = _scaled_mul()
    honest, _, _ = prove_graph(cx, feed)
    shown, _ = _scaled_mul((12, 11, 10))
    shown_settings, _, _ = prove_graph(shown, feed)
    assert honest.model_digest != shown_settings.model_digest
    with pytest.raises(AssertionError, match="same layout"):
        forge_as(shown_settings, cx, feed)
    # the honest proof against the shown settings: another settings digest
    _, _, proof = prove_graph(cx, feed, settings=honest)
    r = check(shown_settings, proof)
    assert not r.success and r.check == "statement mismatch", r.error_message


def test_two_scale_assignments_of_one_model_have_different_digests():
    a, _ = _scaled_mul((12, 11, 9))
    b, _ = _scaled_mul((12, 11, 10))
    c, _ = _scaled_mul((12, 11, 9))
    assert a.gen_settings(preset="fast").model_digest == c.gen_settings(preset="fast").model_digest
    assert a.gen_settings(preset="fast").model_digest != b.gen_settings(preset="fast").model_digest


@pytest.mark.parametrize("node, scale, words", [
    (2, 23, "shift 0 outside"),  # out 2^23: 12 + 11 - 23 = 0
    (2, 8, "shift 15"),
    (0, 25, "outside"),
])
def test_a_settings_file_whose_scales_break_a_rule_is_refused_at_the_node(node, scale, words):
    cx, feed = _scaled_mul()
    settings, _, _ = prove_graph(cx, feed)
    spec = read_settings(settings.data).body
    spec.nodes[node].scale = scale
    with pytest.raises(FormatError, match=f"node {node} scale") as e:
        read_settings(encode_settings(KIND_GRAPH, settings.config, spec))
    assert words in str(e.value)


def test_an_exact_op_of_two_scales_is_refused_before_proving():
    cx = Graph()
    x, y = cx.input("x", (3,)), cx.input("y", (3,))
    (x + y).output("out")
    cx.compile(GenericCompiler(), StwoCompiler())
    cx.set_scales({0: 10, 1: 11, 2: 10})
    with pytest.raises(BoundsError, match="Add node 2.*one scale"):
        cx.run({"x": np.ones(3), "y": np.ones(3)}, exact=True)


def test_compiling_after_per_tensor_scales_is_refused():
    cx, _ = _scaled_mul()
    with pytest.raises(CompileError, match="compile before choosing per-tensor scales"):
        cx.compile(GenericCompiler())


def _softmax_graph(classes: int):
    cx = Graph()
    x = cx.input("x", (2, classes))
    w = cx.constant(RNG.uniform(-0.5, 0.5, (classes, classes)), "w")
    softmax(x @ w, -1).output("p")
    cx.compile(GenericCompiler(), StwoCompiler())
    return cx


def test_calibration_holds_a_wide_softmax_that_one_scale_cannot():
    """400 classes of near-equal logits: the sum of the exponentials is about 400, outside the
    16-bit range at 2^10 (one global scale would need 2^6 for everything); per tensor the sum
    becomes a Dot with 1.0 at a coarse scale, the probabilities (about 1/400) take a fine one."""
    cx = _softmax_graph(400)
    feed = {"x": RNG.uniform(-0.05, 0.05, (2, 400))}
    with pytest.raises(BoundsError):
        cx.run(feed, exact=True)
    cal = cx.calibrate_tensors([feed])
    assert cal.sums_as_dots == 1
    assert max(cal.scales.values()) >= 18  # the probabilities
    assert_within_bound(cx, feed)
    assert_exact_matches_scalar(cx, feed)
    exact, ref = cx.run(feed, exact=True)["p"], cx.run(feed)["p"]
    assert np.abs(exact - ref).max() < 2e-5
    settings, trace, proof = prove_graph(cx, feed)
    r = check(settings, proof)
    assert r.success, r.error_message


def test_calibration_refuses_a_value_no_scale_holds_naming_node_and_calibration():
    cx = Graph()
    x = cx.input("x", (3,))
    (x * x).output("y")
    cx.compile(GenericCompiler(), StwoCompiler(fuse=False))
    with pytest.raises(num.NumericError, match=r"calibration over 2 sample\(s\).*Mul node 1.*reaches \|value\| 90000 "
                       r"at element 2 \(index \(2,\)\) of sample 1, which no scale of the format holds"):
        cx.calibrate_tensors([{"x": np.array([1.0, 2.0, 3.0])}, {"x": np.array([1.0, 2.0, 300.0])}])
