"""Committed weights (docs/committed-models.md): settings.bin holds the model tree's root instead of
the weights, the committed component reads each weight from that tree (opened at every query
against settings.bin's root) and range-checks it to the settings' model bits. The forgeries: a
proof made with other weights under the root, one weight of the witness changed, a root that mixes
two weight vectors, a weight past the model bits, settings relabelled between public and committed,
and settings whose model section or flags are malformed."""

import sys
from pathlib import Path

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.audit import audit
from luminair.verifier.errors import FormatError
from luminair.verifier.statement import read_settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proving_helpers import check, forge  # noqa: E402


def _mlp(seed: int = 7, nudge: float = 0.0) -> Graph:
    rng = np.random.default_rng(seed)
    cx = Graph()
    x = cx.input("x", (2, 8))
    w1 = rng.uniform(-0.35, 0.35, (8, 8))
    w1[0, 0] += nudge
    h = (x @ cx.constant(w1, "fc1.weight") + cx.constant(rng.uniform(-0.35, 0.35, (8,)), "fc1.bias")).relu()
    (h @ cx.constant(rng.uniform(-0.35, 0.35, (8, 3)), "fc2.weight")).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    return cx


FEED = {"x": np.linspace(-1.0, 1.0, 16).reshape(2, 8)}


def _proven(cx: Graph, feed: dict):
    """(graph, committed settings, trace, proof) at the fast preset."""
    settings = cx.gen_settings(preset="fast", weights="committed")
    trace = cx.gen_trace(feed)
    return cx, settings, trace, cx.prove(trace, settings)


@pytest.fixture(scope="module")
def honest():
    return _proven(_mlp(), FEED)


def test_committed_proof_verifies_without_weights_in_settings(honest):
    cx, settings, trace, proof = honest
    r = check(settings, proof)
    assert r.success, r.error_message
    assert r.visibility == {"weights": "committed", "inputs": {"x": "public"}, "outputs": "public"}
    assert r.model_root == settings.spec.model_root.hex()
    body = read_settings(settings.data).body
    committed = [n for n in body.nodes if n.committed]
    assert len(committed) == 3 and all(n.values is None for n in committed)  # no weight in settings.bin
    public = cx.gen_settings(preset="fast")
    rp = check(public, cx.prove(cx.gen_trace(FEED), public))
    assert rp.success and rp.visibility["weights"] == "public" and rp.model_root is None
    assert r.outputs["y"]["values"] == rp.outputs["y"]["values"]
    assert r.model_digest != rp.model_digest  # the identity names the root, not the values
    assert len(settings.data) < len(public.data)


def test_audit_recomputes_the_root(honest):
    cx, settings, _, _ = honest
    assert audit(_mlp(), settings.data).matches
    other = audit(_mlp(nudge=0.25), settings.data)
    assert not other.matches and "not the commitment of these weights" in other.detail


def test_other_weights_under_the_root_are_rejected(honest, monkeypatch):
    """The prover commits the model tree of other weights (and proves their run) while settings.bin
    names the honest root: the model tree's openings fail against it."""
    cx, settings, _, _ = honest
    cx2 = _mlp(nudge=0.25)
    forged = cx2.gen_settings(preset="fast", weights="committed")
    assert forged.spec.model_root != settings.spec.model_root
    (tree,) = [t for t in settings.air.preprocessed if t.statement]
    monkeypatch.setattr(tree, "root", forged.spec.model_root)  # the prover's own check, patched away
    monkeypatch.setattr(settings, "model_tree", forged.model_tree)
    monkeypatch.setattr(settings, "model", forged.model)
    monkeypatch.setattr(settings, "weights", forged.weights)
    trace2 = cx2.gen_trace(FEED)
    r = check(settings, forge(cx2, trace2, settings))
    assert not r.success and r.check == "Merkle path" and "model" in r.error_message


def test_one_weight_changed_in_the_witness_is_rejected(honest):
    """The honest model tree, but the products read one weight that differs from it (the run of
    weights with one element changed): the committed rows yield the tree's values, the Dot rows
    consume others, and the LogUp sums do not cancel."""
    cx, settings, trace, _ = honest
    assert check(settings, forge(cx, trace, settings)).success  # the harness, without the change
    cx2 = _mlp(nudge=0.25)
    r = check(settings, forge(cx2, cx2.gen_trace(FEED), settings))
    assert not r.success and r.check == "LogUp sum"


def test_a_root_of_two_weight_vectors_is_rejected(honest):
    """A model tree whose leaves mix two weight vectors' extensions (the first half of the domain
    from one, the rest from the other): no weight vector has that root (audit says so for each), and
    an honest proof under it fails the Merkle openings."""
    cx, settings, trace, _ = honest
    other = _mlp(nudge=0.25).gen_settings(preset="fast", weights="committed")
    (tree,) = [t for t in settings.air.preprocessed if t.statement]
    from luminair.prover.stark.merkle_tree import MerkleTree

    mixed = []
    for a, b in zip(settings.model_tree.evals, other.model_tree.evals):
        m = a.copy()
        m[len(m) // 2:] = b[len(m) // 2:]
        mixed.append(m)
    root = MerkleTree(mixed).root
    data = settings.data[: -len(root)] + root
    assert read_settings(data).body.model_root == root
    for graph in (_mlp(), _mlp(nudge=0.25)):
        assert not audit(graph, data).matches
    st = read_settings(data)
    from luminair.prover.proving import Settings

    forged = Settings(data, st, settings.plans, settings.air, settings.topology, settings.topology_tree,
                      settings.model, settings.model_tree, settings.weights)
    forged.parsed.body = settings.parsed.body  # the prover's AIR, honest tree (statement digest: data's)
    r = check(data, forge(cx, trace, forged))
    assert not r.success and r.check == "Merkle path"
    del tree


def test_a_weight_past_the_model_bits_is_rejected(monkeypatch):
    """Settings that claim fewer model bits than a weight needs (the products' lanes are sized for
    the claim): the committed component's range check refuses the weight."""
    import luminair.prover.air.graph_trace as gt

    real = gt.commit_constants

    def narrow(spec):
        real(spec)
        spec.model_bits -= 1

    monkeypatch.setattr(gt, "commit_constants", narrow)
    cx = _mlp()
    settings = cx.gen_settings(preset="fast", weights="committed")
    monkeypatch.undo()
    real_counts = gt.table_multiplicities  # the forger drops the lookups its tables lack
    monkeypatch.setattr(gt, "table_multiplicities", lambda *a, **k: real_counts(*a, **{**k, "strict": False}))
    r = check(settings, forge(cx, cx.gen_trace(FEED), settings))
    assert not r.success and r.check == "LogUp sum"


def test_settings_relabelled_between_public_and_committed_are_rejected(honest):
    cx, settings, trace, proof = honest
    public = cx.gen_settings(preset="fast")
    proof_public = cx.prove(cx.gen_trace(FEED), public)
    for s, p in ((settings, proof_public), (public, proof)):
        r = check(s, p)
        assert not r.success and r.check == "statement mismatch" and "not for these settings" in r.error_message


def test_malformed_model_sections_are_refused(honest):
    _, settings, _, _ = honest
    data = bytearray(settings.data)
    blowup_at = len(data) - len(settings.spec.model_root) - 1
    data[blowup_at] ^= 1
    with pytest.raises(FormatError, match="model log blowup"):
        read_settings(bytes(data))
    bits_at = blowup_at - 5  # the body's end: the model bits, then the committed outputs (u32 0)
    for bad, why in ((0, "0 exactly when there are none"), (17, "outside")):
        data = bytearray(settings.data)
        data[bits_at] = bad
        with pytest.raises(FormatError, match=why):
            read_settings(bytes(data))
    with pytest.raises(FormatError, match="trailing|end of file|truncated|bytes"):
        read_settings(settings.data[:-3])


def test_visibility_arguments_are_checked_and_private_inputs_leave_the_proof():
    with pytest.raises(ValueError, match="weights='hidden'"):
        _mlp().gen_settings(preset="fast", weights="hidden")
    with pytest.raises(ValueError, match="inputs='secret'"):
        _mlp().gen_settings(preset="fast", inputs="secret")
    cx = _mlp()
    settings = cx.gen_settings(preset="fast", inputs="private")
    r = check(settings, cx.prove(cx.gen_trace(FEED), settings))
    assert r.success and r.visibility["inputs"] == {"x": "private"} and r.inputs is None


# --- Freivalds-checked products of committed weights (MatW) ---------------------------------------


def _wide(nudge: float = 0.0) -> Graph:
    """A product large enough for the Freivalds check: x (4, 64) @ W (64, 32)."""
    rng = np.random.default_rng(11)
    cx = Graph()
    x = cx.input("x", (4, 64))
    w = rng.uniform(-0.2, 0.2, (64, 32))
    w[3, 5] += nudge
    (x @ cx.constant(w, "fc.weight")).relu().output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    return cx


WIDE = {"x": np.random.default_rng(12).uniform(-1, 1, (4, 64))}


@pytest.fixture(scope="module")
def wide():
    return _proven(_wide(), WIDE)


def test_a_checked_product_of_committed_weights_verifies(wide):
    cx, settings, trace, proof = wide
    kinds = [p.kind for p in settings.plans]
    assert "MatW" in kinds and "MatIn" in kinds and "Committed" not in kinds  # W only in the model tree
    r = check(settings, proof)
    assert r.success, r.error_message
    np.testing.assert_array_equal(np.array(r.outputs["y"]["values"]), cx.run(WIDE, exact=True)["y"].reshape(-1))
    assert audit(_wide(), settings.data).matches and not audit(_wide(0.1), settings.data).matches


def _forged_run(settings, nudge: float, v_of: str = "theirs"):
    """A proof of the run of other weights W' under the honest settings (model tree W): the trace
    and v are W''s (v_of="theirs": v = W' rho, so the Freivalds check of S = A W' holds), or v = W rho
    ("honest", inconsistent with the trace)."""
    from luminair.prover.proving import product_vectors

    cx2 = _wide(nudge)
    other = cx2.gen_settings(preset="fast", weights="committed")
    source = other if v_of == "theirs" else settings

    def vectors(challenges):
        return product_vectors(settings, settings.air, challenges, source.weights)

    return forge(cx2, cx2.gen_trace(WIDE), settings, vectors=vectors)


def test_other_weights_with_their_own_v_are_rejected_by_the_matw_check(wide, monkeypatch):
    """S = A W' with v = W' rho passes the Freivalds check; only MatW's check of v against the
    model tree objects. Without that check (both of its sides removed) the same forgery verifies."""
    cx, settings, trace, _ = wide
    assert check(settings, forge(cx, trace, settings)).success  # the harness, honest
    r = check(settings, _forged_run(settings, 0.1))
    assert not r.success and r.check == "LogUp sum"
    from luminair.verifier.graph.components import MatWComponent

    monkeypatch.setattr(MatWComponent, "public_term", lambda self, ch, v: (0, 0, 0, 0))
    real = MatWComponent.evaluate_op

    def without_check(self, ev):
        saved = ev.add_to_sum
        ev.add_to_sum = lambda term: saved(term * 0)
        try:
            real(self, ev)
        finally:
            ev.add_to_sum = saved

    monkeypatch.setattr(MatWComponent, "evaluate_op", without_check)
    assert check(settings, _forged_run(settings, 0.1)).success  # (mutation: the check is what catches it)


def test_a_v_that_differs_from_w_rho_in_one_element_is_rejected(wide):
    from luminair.prover.proving import product_vectors
    from luminair.verifier.fields import q_add

    cx, settings, trace, _ = wide

    def one_off(challenges):
        vecs = product_vectors(settings, settings.air, challenges)
        vecs[0][7] = q_add(vecs[0][7], (1, 0, 0, 0))
        return vecs

    r = check(settings, forge(cx, trace, settings, vectors=one_off))
    assert not r.success and r.check == "LogUp sum"


def test_a_missing_or_short_vector_is_refused(wide):
    from luminair.verifier.formats import ProofFile, read_proof_file

    _, settings, _, proof = wide
    pf = read_proof_file(proof.data)
    for vectors, why in (([], "0 vectors, expected 1"), ([list(pf.stark.vectors[0])[:-1]], "values, expected")):
        pf.stark.vectors = vectors
        r = check(settings, ProofFile(pf.settings_digest, pf.public_values, pf.stark).to_bytes())
        assert not r.success and why in r.error_message


def test_model_bits_are_the_fewest_that_hold_every_weight(honest):
    from luminair.prover.air.graph_trace import commit_constants
    from luminair.verifier.graph.spec import GraphSpec, NodeSpec

    _, settings, _, _ = honest
    values = [v for n in settings.spec.nodes if n.committed for v in settings.weights[settings.spec.nodes.index(n)]]
    b = settings.spec.model_bits
    assert -(1 << (b - 1)) <= min(values) and max(values) < 1 << (b - 1)
    assert not (-(1 << (b - 2)) <= min(values) and max(values) < 1 << (b - 2))
    for extreme, bits in ((-32768, 16), (32767, 16), (-2048, 12), (2048, 13)):
        spec = GraphSpec(10, [NodeSpec("Constant", (2,), values=[extreme, 0])], [], [])
        commit_constants(spec)
        assert spec.model_bits == bits


# --- committed inputs: the input tree, its root the proof's input digest ----------------------------


def test_committed_inputs_report_a_digest_of_their_values(honest):
    from luminair.prover.audit import input_digest

    cx = _mlp()
    settings = cx.gen_settings(preset="fast", inputs="committed")
    proof = cx.prove(cx.gen_trace(FEED), settings)
    r = check(settings, proof)
    assert r.success, r.error_message
    assert r.visibility["inputs"] == {"x": "committed"} and r.visibility["weights"] == "public"
    digest = r.inputs["x"]["digest"]
    assert r.inputs["x"] == {"shape": [2, 8], "committed": True, "digest": digest}
    from luminair.verifier.formats import read_proof_file

    assert len(read_proof_file(proof.data).public_values) == 1  # the output alone
    assert input_digest(settings.data, FEED) == digest
    assert input_digest(settings.data, {"x": FEED["x"] + 0.25}) != digest
    other = cx.prove(cx.gen_trace({"x": FEED["x"] + 0.25}), settings)
    assert check(settings, other).inputs["x"]["digest"] != digest


def test_an_input_tree_of_other_values_than_the_run_is_rejected(monkeypatch):
    """The prover commits the input tree of other values than the run it proves: the committed rows
    yield the tree's values, the readers consume the run's, and the LogUp sums do not cancel."""
    import luminair.prover.proving as proving

    cx = _mlp()
    settings = cx.gen_settings(preset="fast", inputs="committed")
    other = cx.gen_trace({"x": FEED["x"] + 0.25})
    real = proving.input_columns
    monkeypatch.setattr(proving, "input_columns", lambda plans, values: real(plans, other.values))
    r = check(settings, cx.prove(cx.gen_trace(FEED), settings))
    assert not r.success and r.check == "LogUp sum"


def test_cli_verify_checks_the_input_and_output_digests(tmp_path):
    import json
    import subprocess
    import sys as _sys

    root = Path(__file__).resolve().parents[2]
    good = tmp_path / "in.json"
    good.write_text(json.dumps({"input_data": [[0.1 * i for i in range(8)]]}))
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps({"input_data": [[0.1 * i + 0.5 for i in range(8)]]}))
    run = lambda *a: subprocess.run([_sys.executable, "-m", "luminair.prover.cli", *a], capture_output=True, text=True)  # noqa: E731
    p = run("prove", str(root / "examples" / "tiny_mlp.py"), "--input", str(good), "--out", str(tmp_path / "o"),
            "--inputs", "committed", "--outputs", "committed", "--preset", "fast", "--quiet", "--json")
    assert p.returncode == 0, p.stderr
    outputs = json.loads(p.stdout)["outputs"]  # (the prover knows them; the proof holds their digest)
    out_good, out_bad = tmp_path / "out.json", tmp_path / "out_other.json"
    out_good.write_text(json.dumps({"output_data": [sum(outputs["y"], [])]}))
    out_bad.write_text(json.dumps({"output_data": [[v + 0.25 for v in sum(outputs["y"], [])]]}))
    pair = [str(tmp_path / "o" / "proof.bin"), str(tmp_path / "o" / "settings.bin"), "--min-security-bits", "0"]
    ok = run("verify", *pair, "--input", str(good))
    assert ok.returncode == 0 and "input digest" in ok.stdout, ok.stdout + ok.stderr
    no = run("verify", *pair, "--input", str(bad))
    assert no.returncode == 1 and "input digest: the proof's committed inputs (x)" in no.stdout, no.stdout
    ok = run("verify", *pair, "--output", str(out_good))
    assert ok.returncode == 0 and "committed, digest" in ok.stdout, ok.stdout + ok.stderr
    no = run("verify", *pair, "--output", str(out_bad))
    assert no.returncode == 1 and "output digest: the proof's committed outputs (y)" in no.stdout, no.stdout


# --- committed outputs: the output tree, its root the proof's output digest -------------------------


def test_committed_outputs_report_a_digest_and_bind_the_run():
    from luminair.prover.audit import output_digest
    from luminair.verifier.formats import read_proof_file

    cx = _mlp()
    settings = cx.gen_settings(preset="fast", outputs="committed")
    trace = cx.gen_trace(FEED)
    proof = cx.prove(trace, settings)
    r = check(settings, proof)
    assert r.success, r.error_message
    assert r.visibility["outputs"] == "committed" and r.outputs["y"]["committed"]
    assert "values" not in r.outputs["y"] and len(read_proof_file(proof.data).public_values) == 1  # the input alone
    assert output_digest(settings.data, {"y": trace.outputs["y"]}) == r.outputs["y"]["digest"]
    assert output_digest(settings.data, {"y": trace.outputs["y"] + 2 ** -10}) != r.outputs["y"]["digest"]


def test_an_output_tree_of_other_values_than_the_run_is_rejected(monkeypatch):
    """The prover commits an output tree with one element changed: the committed-output rows consume
    a value no node yields, and the LogUp sums do not cancel."""
    import luminair.prover.proving as proving

    cx = _mlp()
    settings = cx.gen_settings(preset="fast", outputs="committed")
    real = proving.output_columns

    def changed(plans, spec, values):
        cols = real(plans, spec, values)
        (col,) = cols.values()
        col[1] += 1
        return cols

    monkeypatch.setattr(proving, "output_columns", changed)
    r = check(settings, cx.prove(cx.gen_trace(FEED), settings))
    assert not r.success and r.check == "LogUp sum"


def test_settings_with_committed_outputs_out_of_order_are_refused(honest):
    cx = _mlp()
    data = bytearray(cx.gen_settings(preset="fast", outputs="committed").data)
    # the body's end: ... u8 model bits | u32 1 | i32 0 (the committed output 0)
    assert data[-8:] == bytes([1, 0, 0, 0, 0, 0, 0, 0])
    data[-4] = 3
    with pytest.raises(FormatError, match="committed outputs"):
        read_settings(bytes(data))
