"""Symbolic dimensions: one settings.bin serves every batch size; a proof fixes the batch size as a
public value bound in the statement, and cannot be passed off as a proof for another size."""

import hashlib

import numpy as np
import pytest

from luminair.prover import Graph
from luminair.prover.symbolic import SymbolicError, SymbolicModel, symbol_values_from_inputs
from luminair.verifier.formats import ProofFile, read_proof_file
from luminair.verifier.graph.symbols import ref
from luminair.verifier.statement import KIND_GRAPH, encode_settings, read_settings
from luminair.verifier.summary import settings_summary

from proving_helpers import check

RNG = np.random.default_rng(11)
W1, B1, W2 = RNG.uniform(-0.5, 0.5, (16, 12)), RNG.uniform(-0.3, 0.3, 12), RNG.uniform(-0.5, 0.5, (12, 4))


def build(batch: int) -> Graph:
    cx = Graph()
    x = cx.input("x", (batch, 16))
    h = (x @ cx.constant(W1, "w1") + cx.constant(B1, "b1")).relu()
    (h @ cx.constant(W2, "w2")).output("y")
    return cx


MODEL = SymbolicModel(build, {"batch": (1, 64)})


@pytest.fixture(scope="module")
def settings():
    return MODEL.gen_settings(preset="fast")


@pytest.fixture(scope="module")
def proofs(settings):
    out = {}
    for b in (1, 3, 7):
        xs = RNG.uniform(-1, 1, (b, 16))
        proof, outputs = MODEL.prove(settings, {"x": xs})
        out[b] = (xs, proof, outputs)
    return out


def test_one_settings_file_for_every_batch_size(settings, proofs):
    assert MODEL.gen_settings(preset="fast").data == settings.data  # deterministic: the same file
    for b, (xs, proof, outputs) in proofs.items():
        r = check(settings, proof)
        assert r.success, r.error_message
        assert r.symbols == {"batch": b}
        assert r.outputs["y"]["shape"] == [b, 4]
        assert r.inputs["x"]["shape"] == [b, 16]
        # exactly what the model compiled for this batch size computes (bit for bit)
        exact = MODEL.graph_at({"batch": b}).run({"x": xs}, exact=True)["y"]
        assert np.array_equal(np.array(r.outputs["y"]["values"]).reshape(b, 4), exact)
        assert np.array_equal(outputs["y"], exact)


def test_the_template_holds_each_shape_as_a_polynomial(settings):
    spec = settings.parsed.body
    assert [s.name for s in spec.symbols] == ["batch"]
    assert spec.nodes[0].shape == (ref(spec.exprs.index(((1, (1,)),))), 16)
    assert all(n.op != "Constant" or all(d > 0 for d in n.shape) for n in spec.nodes)
    summary = settings_summary(settings.data)
    assert summary["symbols"] == [{"name": "batch", "min": 1, "max": 64}]
    assert summary["inputs"][0]["shape"] == ["batch", 16]
    assert summary["model_digest"] == settings.model_digest


def _with_public(proof, public):
    p = read_proof_file(proof.data)
    return ProofFile(p.settings_digest, public, p.stark).to_bytes()


def test_a_proof_for_one_batch_size_cannot_pass_as_another(settings, proofs):
    _, proof, _ = proofs[7]
    pub = read_proof_file(proof.data).public_values
    assert list(pub[0]) == [7]
    # claim batch 3 with the first three rows of the inputs and outputs: another AIR, rejected
    short = [[3], pub[1][: 3 * 16], pub[2][: 3 * 4]]
    r = check(settings.data, _with_public(proof, short))
    assert not r.success and r.check in ("OODS mismatch", "proof shape", "malformed file", "LogUp sum", "proof of work"), r
    # claim batch 8 keeping batch 7's values: the public tensors do not fit the claimed shapes
    r = check(settings.data, _with_public(proof, [[8], *pub[1:]]))
    assert not r.success and "public input 'x'" in r.error_message


def test_a_tampered_symbol_value_is_rejected(settings, proofs):
    _, proof, _ = proofs[3]
    pub = read_proof_file(proof.data).public_values
    for bad, message in (([65], "outside the model's range [1, 64]"), ([0], "outside the model's range"),
                         ([3, 3], "first public tensor of 1 values, got 2"), ([], "got 0")):
        r = check(settings.data, _with_public(proof, [bad, *pub[1:]]))
        assert not r.success and message in r.error_message, (bad, r.error_message)
    r = check(settings.data, _with_public(proof, pub[1:]))  # the symbol tensor left out
    assert not r.success and "symbolic dimensions (batch)" in r.error_message


def _respec(settings, edit):
    spec = read_settings(settings.data).body
    edit(spec)
    return encode_settings(KIND_GRAPH, settings.parsed.config, spec)


@pytest.mark.parametrize("edit, message", [
    (lambda g: setattr(g.nodes[1], "shape", (ref(0), 12)), "a constant's shape cannot depend on the symbols"),
    (lambda g: setattr(g.nodes[0], "shape", (ref(9), 16)), "refers to expression 9"),
    (lambda g: g.exprs.__setitem__(0, ((1 << 30, (4,)),)), "gives"),
    (lambda g: g.exprs.__setitem__(0, ((1, (1,)), (1, (0,)))), "canonical"),
    (lambda g: g.exprs.__setitem__(0, ((0, (1,)),)), "nonzero coefficient"),
    (lambda g: setattr(g.nodes[0], "shape", (ref(0), 17)), "settings.bin at batch=3: node 3 view"),
])
def test_malformed_templates_are_rejected_by_name(settings, proofs, edit, message):
    data = _respec(settings, edit)
    _, proof, _ = proofs[3]
    p = read_proof_file(proof.data)
    forged = ProofFile(hashlib.blake2s(data).digest(), p.public_values, p.stark).to_bytes()
    r = check(data, forged)
    assert not r.success and message in r.error_message, r.error_message


def test_symbol_bounds_in_settings_are_checked(settings):
    from luminair.verifier.graph.symbols import Symbol

    for lo, hi in ((0, 4), (5, 4), (1, (1 << 20) + 1)):
        data = _respec(settings, lambda g: g.symbols.__setitem__(0, Symbol("batch", lo, hi)))
        with pytest.raises(Exception, match="bounds"):
            read_settings(data)


def test_weights_that_depend_on_the_symbol_cannot_be_symbolic():
    def build_bad(batch):
        cx = Graph()
        x = cx.input("x", (batch, 4))
        (x @ cx.constant(np.full((4, 2), batch / 10))).output("y")
        return cx

    with pytest.raises(SymbolicError, match="values of constant node"):
        SymbolicModel(build_bad, {"batch": (1, 16)}).gen_settings(preset="fast")


def test_shapes_that_are_not_polynomials_are_refused():
    def build_bad(batch):
        cx = Graph()
        x = cx.input("x", ((batch + 2) // 3, 4))
        (x * 2.0).output("y")
        return cx

    with pytest.raises(SymbolicError, match="not"):
        SymbolicModel(build_bad, {"batch": (1, 64)}).gen_settings(preset="fast")


def test_too_narrow_a_range_is_refused():
    with pytest.raises(SymbolicError, match="too few"):
        SymbolicModel(build, {"batch": (1, 3)}).gen_settings(preset="fast")


def test_symbol_values_come_from_the_inputs(settings):
    spec = settings.parsed.body
    assert symbol_values_from_inputs(spec, {"x": np.zeros((5, 16))}) == {"batch": 5}
    assert symbol_values_from_inputs(spec, {"x": np.zeros(5 * 16)}) == {"batch": 5}
    with pytest.raises(Exception, match="whole number of rows"):
        symbol_values_from_inputs(spec, {"x": np.zeros(17)})


def test_graphs_without_symbols_report_none(mlp_fused_case):
    _, settings, _, proof = mlp_fused_case
    r = check(settings, proof)
    assert r.success and r.symbols is None


D, TMAX = 16, 32
WQ, WK, WV = (RNG.uniform(-0.4, 0.4, (D, D)) for _ in range(3))
CAUSAL = np.triu(np.full((TMAX, TMAX), -24.0), 1)  # added before the softmax: e^-24 is 0 at scale 2^10


def build_attention(seq: int) -> Graph:
    """Causal self-attention with layer norm and a residual; the mask is a slice of a constant of
    the longest length, so the weights do not depend on the sequence length."""
    cx = Graph()
    x = cx.input("x", (seq, D))
    h = x.layer_norm(-1)
    q, k, v = h @ cx.constant(WQ), h @ cx.constant(WK), h @ cx.constant(WV)
    scores = (q @ k.transpose(0, 1)) * 0.25 + cx.constant(CAUSAL, "causal_mask")[:seq, :seq]
    (scores.softmax(-1) @ v + x).output("y")
    return cx


def test_attention_with_a_symbolic_sequence_length_proves_at_two_lengths():
    model = SymbolicModel(build_attention, {"seq": (1, TMAX)})
    settings = model.gen_settings(preset="fast")
    for seq in (5, 12):
        xs = RNG.uniform(-1, 1, (seq, D))
        proof, _ = model.prove(settings, {"x": xs})
        r = check(settings, proof)
        assert r.success and r.symbols == {"seq": seq}, r.error_message
        exact = model.graph_at({"seq": seq}).run({"x": xs}, exact=True)["y"]
        assert np.array_equal(np.array(r.outputs["y"]["values"]).reshape(seq, D), exact)


def _dynamic_mlp_onnx():
    import onnx
    from onnx import helper, numpy_helper

    w = numpy_helper.from_array(W1.T.astype(np.float32).copy(), "w")
    b = numpy_helper.from_array(B1.astype(np.float32), "b")
    node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 12])], [w, b],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_onnx_dynamic_axes_become_symbols():
    model = SymbolicModel(_dynamic_mlp_onnx(), {"batch": (1, 32)})
    settings = model.gen_settings(preset="fast")
    xs = RNG.uniform(-1, 1, (6, 16))
    proof, outputs = model.prove(settings, {"x": xs})
    r = check(settings, proof)
    assert r.success and r.symbols == {"batch": 6}
    assert np.abs(outputs["y"] - (xs @ W1 + B1)).max() < 0.02
    with pytest.raises(SymbolicError, match="no dynamic axis named"):
        SymbolicModel(_dynamic_mlp_onnx(), {"seq": (1, 32)})


def test_an_input_names_its_symbolic_dimension():
    def build_named():
        cx = Graph()
        x = cx.input("x", ("batch", 16))
        y = (x @ cx.constant(W1, "w1")).relu()
        y.reshape((x.shape[0] * 12,)).output("flat")  # shapes follow from the instance's batch size
        return cx

    model = SymbolicModel(build_named, {"batch": (1, 64)})
    settings = model.gen_settings(preset="fast")
    assert settings.parsed.body.exprs == [((1, (1,)),), ((12, (1,)),)]
    proof, _ = model.prove(settings, {"x": RNG.uniform(-1, 1, (9, 16))})
    r = check(settings, proof)
    assert r.success and r.symbols == {"batch": 9} and r.outputs["flat"]["shape"] == [108]
    with pytest.raises(Exception, match="dimension 'batch' is symbolic; build the graph through"):
        build_named()


def test_a_range_the_format_cannot_serve_is_refused_with_the_largest_value_that_fits():
    def build_wide(batch):
        cx = Graph()
        x = cx.input("x", (batch, 256))
        (x @ cx.constant(np.full((256, 512), 0.01))).output("y")  # the Dot reads a (batch, 512, 256) view
        return cx

    with pytest.raises(SymbolicError, match="the largest batch this graph allows is 512"):
        SymbolicModel(build_wide, {"batch": (1, 1000)}).gen_settings(preset="fast")
    assert SymbolicModel(build_wide, {"batch": (1, 512)}).gen_settings(preset="fast")
