"""Segmented proofs (docs/segments.md): a graph cut into segments, each proven on its own, checked
as one statement. Honest bundles attest the whole graph's exact outputs; the forgeries are each
rejected by name: segments of two runs mixed, a segment of another model, a boundary tensor changed
between its writer and its reader (the prover's own witness patched, so every segment proof is valid
on its own), a fingerprint that is not the tensor's, and missing, duplicated or reordered segments."""

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.scheduler import InProcess
from luminair.prover.segments import choose_cuts, prove_jobs, prove_segmented, segment_jobs
from luminair.verifier import verify
from luminair.verifier.errors import FormatError
from luminair.verifier.graph.segments import cut_graph
from luminair.verifier.segments import encode_bundle, read_bundle


def _residual(seed: int = 3, private: bool = False, output: str = "y") -> Graph:
    """Three layers whose first activation is read again by the last one (a tensor that crosses two
    cuts), the input read again at the end too."""
    rng = np.random.default_rng(seed)
    cx = Graph()
    x = cx.input("x", (2, 8), private=private)
    h1 = (x @ cx.constant(rng.uniform(-0.4, 0.4, (8, 8)), "w1") + cx.constant(rng.uniform(-0.1, 0.1, (8,)), "b1")).relu()
    h2 = (h1 @ cx.constant(rng.uniform(-0.4, 0.4, (8, 8)), "w2")).relu()
    h3 = (h2 @ cx.constant(rng.uniform(-0.4, 0.4, (8, 8)), "w3")).relu()
    ((h3 + h1) @ cx.constant(rng.uniform(-0.4, 0.4, (8, 3)), "w4") + x[:, :3]).output(output)
    cx.compile(GenericCompiler(), StwoCompiler())
    return cx


def _cnn() -> tuple[Graph, dict]:
    rng = np.random.default_rng(5)
    cx = Graph()
    x = cx.input("image", (1, 1, 6, 6))
    h = x.conv2d(cx.constant(rng.uniform(-0.5, 0.5, (2, 1, 3, 3)), "conv.w"),
                 cx.constant(rng.uniform(-0.1, 0.1, (2,)), "conv.b"), padding=1).relu().max_pool2d(2)
    (h.flatten(1) @ cx.constant(rng.uniform(-0.5, 0.5, (18, 3)), "fc.w")).softmax(-1).output("p")
    cx.compile(GenericCompiler(), StwoCompiler())
    return cx, {"image": rng.uniform(0, 1, (1, 1, 6, 6))}


FEED = {"x": np.linspace(-1.0, 1.0, 16).reshape(2, 8)}
OTHER = {"x": np.linspace(1.0, -0.5, 16).reshape(2, 8)}


def _check(settings, data):
    return verify(data, settings.data, min_security_bits=0)


def _exact(cx, feed, name):
    return cx.run(feed, exact=True)[name].reshape(-1)


@pytest.fixture(scope="module")
def residual():
    cx = _residual()
    settings = cx.gen_settings(preset="fast")
    cuts = choose_cuts(settings.spec, 3)
    return cx, settings, cuts, prove_segmented(cx, FEED, settings, cuts=cuts)


def test_segmented_proof_attests_the_whole_graphs_outputs(residual):
    cx, settings, cuts, sp = residual
    assert len(cuts) == 2
    segs = cut_graph(settings.spec, cuts)
    assert any(set(s.reads) & set(segs[0].writes) for s in segs[2:]), "a tensor crosses two cuts"
    r = _check(settings, sp.data)
    assert r.success, r.error_message
    assert r.statement == "graph: proven in 3 segments"
    assert np.array_equal(np.array(r.outputs["y"]["values"]), _exact(cx, FEED, "y"))
    assert r.inputs["x"]["values"] == list(FEED["x"].reshape(-1)) or r.inputs["x"]  # the public input, once
    whole = verify(cx.prove(cx.gen_trace(FEED), settings).data, settings.data, min_security_bits=0)
    assert whole.outputs["y"]["values"] == r.outputs["y"]["values"]
    assert whole.outputs["y"]["source"] == r.outputs["y"]["source"]  # (the whole graph's node)
    assert r.model_digest == whole.model_digest and len(r.extra["segments"]) == 3
    terms = r.extra["soundness_bits"]  # every segment's terms; rho's own, without grinding
    assert all(f"segment {k}: segment fingerprints" in terms for k in range(3))
    assert terms["segment 1: segment fingerprints"] < 124 - 4


def test_proving_is_deterministic(residual):
    cx, settings, cuts, sp = residual
    assert prove_segmented(cx, FEED, settings, cuts=cuts).data == sp.data


def test_private_input_read_in_two_segments_stays_private():
    cx = _residual(private=True)
    settings = cx.gen_settings(preset="fast")
    sp = prove_segmented(cx, FEED, settings, segments=3)
    r = _check(settings, sp.data)
    assert r.success, r.error_message
    assert not r.inputs and r.visibility["inputs"] == {"x": "private"}
    assert np.array_equal(np.array(r.outputs["y"]["values"]), _exact(cx, FEED, "y"))


def test_cnn_with_softmax_in_segments():
    cx, feed = _cnn()
    settings = cx.gen_settings(preset="fast")
    for n in (2, 4):
        r = _check(settings, prove_segmented(cx, feed, settings, segments=n).data)
        assert r.success, (n, r.error_message)
        assert np.array_equal(np.array(r.outputs["p"]["values"]), _exact(cx, feed, "p"))


def test_an_output_named_like_a_boundary_tensor(residual):
    cx, settings, cuts, _ = residual
    w = cut_graph(settings.spec, cuts)[0].writes[0]
    cy = _residual(output=f"node{w}")
    sy = cy.gen_settings(preset="fast")
    r = _check(sy, prove_segmented(cy, FEED, sy, cuts=cuts).data)
    assert r.success and list(r.outputs) == [f"node{w}"], r.error_message
    assert np.array_equal(np.array(r.outputs[f"node{w}"]["values"]), _exact(cx, FEED, "y"))


def test_settings_without_the_whole_topology_prove_segments_only():
    from luminair.prover.stark.prove import ProverError

    cx = _residual()
    light, full = cx.gen_settings(preset="fast", whole=False), cx.gen_settings(preset="fast")
    assert light.data == full.data and light.topology_tree is None
    r = _check(full, prove_segmented(cx, FEED, light, segments=2).data)
    assert r.success, r.error_message
    with pytest.raises(ProverError, match="segmented proofs only"):
        cx.prove(cx.gen_trace(FEED), light)


def test_one_segment_is_a_bundle_of_one(residual):
    cx, settings, _, _ = residual
    r = _check(settings, prove_segmented(cx, FEED, settings, cuts=[]).data)
    assert r.success and r.statement == "graph: proven in 1 segments"


# --- forgeries -------------------------------------------------------------------------------------


def _swap(data: bytes, k: int, proof: bytes) -> bytes:
    digest, seed, queries, cuts, proofs = read_bundle(data)
    proofs[k] = proof
    return encode_bundle(digest, seed, queries, cuts, proofs)


def test_segments_of_two_runs_mixed_are_rejected(residual):
    cx, settings, cuts, sp = residual
    other = prove_segmented(cx, OTHER, settings, cuts=cuts)
    r = _check(settings, _swap(sp.data, 2, read_bundle(other.data)[4][2]))
    assert not r.success and r.check == "segment link", r.error_message
    # with the other run's seed named instead, the segments' own checks fail
    digest, _, queries, _, proofs = read_bundle(sp.data)
    proofs[2] = read_bundle(other.data)[4][2]
    r = _check(settings, encode_bundle(digest, read_bundle(other.data)[1], queries, cuts, proofs))
    assert not r.success and r.check == "segment link", r.error_message


def test_a_segment_of_another_model_is_rejected(residual):
    cx, settings, cuts, sp = residual
    cy = _residual(seed=4)
    sy = cy.gen_settings(preset="fast")
    other = prove_segmented(cy, FEED, sy, cuts=cuts)
    r = _check(settings, _swap(sp.data, 1, read_bundle(other.data)[4][1]))
    assert not r.success and r.check == "segment statement", r.error_message
    r = _check(settings, other.data)  # a whole bundle of the other model
    assert not r.success and r.check == "statement mismatch", r.error_message


@pytest.mark.parametrize("change", ["missing", "duplicated", "reordered"])
def test_missing_duplicated_or_reordered_segments_are_rejected(residual, change):
    cx, settings, cuts, sp = residual
    digest, seed, q, cuts, proofs = read_bundle(sp.data)
    if change == "missing":  # the last segment dropped, and its cut
        data = encode_bundle(digest, seed, q, cuts[:-1], proofs[:-1])
    elif change == "duplicated":
        data = encode_bundle(digest, seed, q, cuts, [proofs[0], proofs[0], proofs[2]])
    else:
        data = encode_bundle(digest, seed, q, cuts, [proofs[1], proofs[0], proofs[2]])
    r = _check(settings, data)
    assert not r.success and r.check in ("segment statement", "segment link"), r.error_message
    if change != "missing":
        assert r.check == "segment statement" and r.error_message.startswith("segment "), r.error_message


def _changed(job, local: int, element: int, delta: int) -> None:
    """Segment `job` rerun exactly with element `element` of its boundary input `local` moved by
    `delta` (raw units): values every row of its trace agrees with."""
    from luminair.prover.graph.execute import node_scale

    g = job.graph
    feed = {}
    for node in g.inputs().values():
        raw = np.array(job.values[node.id], dtype=np.int64)
        if node.id == local:
            raw[element] += delta
        feed[node.id] = (raw / (1 << node_scale(node, g.numeric_format))).reshape(node.shape)
    job.values = {k: np.asarray(v, dtype=np.int64).reshape(-1) for k, v in g.run_nodes(feed, exact=True).items()}
    assert job.values[local][element] == np.asarray(feed[local]).reshape(-1)[element] * (1 << node_scale(g.node(local), g.numeric_format))


def test_a_boundary_tensor_changed_between_writer_and_reader_is_rejected(residual):
    """The prover patches its witness: the last segment reads the first layer's activation with one
    element changed. Its boundary tree, the seed and every segment proof are honest for those
    values, so each proof checks on its own; only the link of fingerprints catches it."""
    cx, settings, cuts, _ = residual
    trace = cx.gen_trace(FEED)
    jobs = segment_jobs(cx, trace.values, settings, cuts)
    segs = cut_graph(settings.spec, cuts)
    node = sorted(set(segs[2].reads) & set(segs[0].writes))[0]
    local = segs[2].nodes.index(node)
    _changed(jobs[2], local, 0, 1)
    data = prove_jobs(jobs, settings, cuts, trace.outputs, InProcess()).data
    r = _check(settings, data)
    assert not r.success and r.check == "segment link", r.error_message
    assert f"segment 2 reads node {node}" in r.error_message


def test_a_fingerprint_that_is_not_the_tensors_is_rejected(residual, monkeypatch):
    """The reader commits a changed tensor but claims the fingerprint of the writer's (at the same
    rho), so the link holds: its own LogUp sum (the fingerprint check against its committed values)
    fails."""
    cx, settings, cuts, sp = residual
    trace = cx.gen_trace(FEED)
    jobs = segment_jobs(cx, trace.values, settings, cuts)
    segs = cut_graph(settings.spec, cuts)
    local = segs[2].nodes.index(sorted(segs[2].reads)[0])
    original = jobs[2].values[local]
    _changed(jobs[2], local, 1, -3)
    _fingerprint_of(monkeypatch, "boundary_input", jobs[2], local, original)
    r = _check(settings, prove_jobs(jobs, settings, cuts, trace.outputs, InProcess()).data)
    assert not r.success and r.check == "LogUp sum" and r.error_message.startswith("LogUp sum: segment 2:"), r.error_message


def _fingerprint_of(monkeypatch, component: str, job, local: int, values) -> None:
    """A patched prover whose `component` (a name prefix) fingerprints `values` in place of `job`'s
    node `local` (its committed values unchanged)."""
    import luminair.prover.proving as proving

    real = proving.segment_fingerprints

    def lying(s, comp, vals, challenges):
        if comp.name.startswith(component) and vals.get(local) is job.values[local]:
            vals = {**vals, local: values}
        return real(s, comp, vals, challenges)

    monkeypatch.setattr(proving, "segment_fingerprints", lying)


def test_a_segment_proof_is_not_a_proof_of_the_whole_model(residual):
    cx, settings, cuts, sp = residual
    r = _check(settings, read_bundle(sp.data)[4][0])
    assert not r.success and r.check == "statement mismatch", r.error_message


def test_bad_bundles_get_specific_errors(residual):
    cx, settings, cuts, sp = residual
    digest, seed, q, _, proofs = read_bundle(sp.data)
    r = _check(settings, encode_bundle(digest, seed, q, [cuts[1], cuts[0]], proofs))
    assert not r.success and r.check == "malformed file" and "does not follow" in r.error_message, r.error_message
    r = _check(settings, sp.data[:-7])
    assert not r.success and r.check == "malformed file" and "segment 2 proof" in r.error_message, r.error_message
    r = _check(settings, _swap(sp.data, 0, proofs[0][:-3]))
    assert not r.success and r.error_message.startswith("malformed file: segment 0: proof.bin: pow_nonce"), r.error_message


def test_what_cannot_be_segmented_is_refused():
    cx = _residual()
    committed = cx.gen_settings(preset="fast", weights="committed")
    with pytest.raises(FormatError, match="committed weights"):
        cut_graph(committed.spec, [5])
    settings = cx.gen_settings(preset="fast")
    with pytest.raises(FormatError, match="computes nothing"):
        cut_graph(settings.spec, [1])
    from luminair.prover.stark.prove import ProverError
    with pytest.raises(ProverError, match="computing nodes"):
        choose_cuts(settings.spec, 500)


def test_max_memory_picks_the_fewest_segments_that_fit(residual):
    from luminair.prover.segments import cuts_for_memory, estimated_peak
    from luminair.prover.stark.prove import ProverError

    cx, settings, _, _ = residual
    blowup = settings.config.log_blowup
    whole = estimated_peak(settings.spec, blowup)
    assert cuts_for_memory(settings, whole) == []
    cuts = cuts_for_memory(settings, whole - 1)
    assert cuts and all(estimated_peak(s.spec, blowup) <= whole - 1 for s in cut_graph(settings.spec, cuts))
    with pytest.raises(ProverError, match="no cut fits 0.01 GiB a segment"):
        cuts_for_memory(settings, 10 << 20)
    r = _check(settings, prove_segmented(cx, FEED, settings, max_memory=whole - 1).data)
    assert r.success, r.error_message


def test_sizes_on_the_command_line():
    from luminair.prover.cli.common import UsageError
    from luminair.prover.cli.prove import parse_size

    assert parse_size("8G") == parse_size("8GiB") == parse_size("8gb") == 8 << 30
    assert parse_size("512M") == 512 << 20 and parse_size("1000") == 1000
    for bad in ("lots", "-1G", "0"):
        with pytest.raises(UsageError, match="--max-memory"):
            parse_size(bad)


def test_segments_reach_the_whole_proofs_bits_with_more_queries(residual):
    cx, settings, cuts, sp = residual
    digest, seed, queries, _, proofs = read_bundle(sp.data)
    assert queries > settings.config.n_queries  # three segments: about log2(3) bits more each
    r = _check(settings, sp.data)
    assert r.security_bits >= settings.security_bits, (r.security_bits, settings.security_bits)
    low = encode_bundle(digest, seed, settings.config.n_queries - 1, cuts, proofs)
    r = _check(settings, low)
    assert not r.success and r.check == "malformed file" and "queries" in r.error_message, r.error_message
    other = encode_bundle(digest, seed, queries + 1, cuts, proofs)  # (each proof is bound to its count)
    r = _check(settings, other)
    assert not r.success and r.check == "segment statement", r.error_message


def test_a_damaged_bundle_is_refused_by_a_named_check_never_an_internal_error(residual):
    import random

    cx, settings, cuts, sp = residual
    rng = random.Random(30)
    data = sp.data
    for at in sorted(rng.sample(range(len(data)), 60)) + list(range(8, 110)):  # (the header's every byte)
        bad = bytearray(data)
        bad[at] ^= 1 << rng.randrange(8)
        r = _check(settings, bytes(bad))
        assert not r.success, at
        assert r.check not in ("internal error", None), (at, r.error_message)
    for cut in (9, 40, 90, len(data) // 2):
        r = _check(settings, data[:cut])
        assert not r.success and r.check == "malformed file", (cut, r.error_message)


def test_one_work_budget_for_the_whole_bundle(residual):
    cx, settings, cuts, sp = residual
    r = verify(sp.data, settings.data, min_security_bits=0, max_work=20_000)
    assert not r.success and r.kind == "not checked" and r.check == "work budget", r.error_message
    assert r.work_needed > 20_000
    r = verify(sp.data, settings.data, min_security_bits=0, max_work=r.work_needed)
    assert r.success, r.error_message


def test_the_onnx_wheels_squeezenet_in_segments():
    """A real architecture (SqueezeNet 1.1 from the onnx wheel's model zoo, at 32x32, up to its
    logits): three segments attest the exact run's logits."""
    import onnx

    from luminair.prover.onnx import load_onnx
    from luminair.prover.onnx.zoo import gain_one_fills, zoo_path

    shape = (1, 3, 32, 32)
    g = load_onnx(gain_one_fills(onnx.load(str(zoo_path("squeezenet")))), {"data_0": shape}, resize_inputs=True,
                  outputs=["r65"])
    g.compile(GenericCompiler(), StwoCompiler())
    settings = g.gen_settings(preset="fast", whole=False)
    x = np.random.default_rng(0).uniform(0, 1, shape)
    sp = prove_segmented(g, {"data_0": x}, settings, segments=3)
    r = verify(sp.data, settings.data, min_security_bits=0, max_work=20_000_000)  # (settings.bin: 4.96 MB)
    assert r.success and r.statement == "graph: proven in 3 segments", r.error_message
    (name,) = r.outputs
    assert np.array_equal(np.array(r.outputs[name]["values"]), g.run({"data_0": x}, exact=True)[name].reshape(-1))


def test_a_writers_fingerprint_that_is_not_its_output_is_rejected(residual, monkeypatch):
    """The writer claims the fingerprint of other values than its output tree holds (so a reader of
    those other values would link): its own LogUp sum fails."""
    cx, settings, cuts, _ = residual
    trace = cx.gen_trace(FEED)
    jobs = segment_jobs(cx, trace.values, settings, cuts)
    segs = cut_graph(settings.spec, cuts)
    local = segs[0].nodes.index(segs[0].writes[0])
    other = jobs[0].values[local].copy()
    other[0] += 5
    _fingerprint_of(monkeypatch, "boundary_output", jobs[0], local, other)
    r = _check(settings, prove_jobs(jobs, settings, cuts, trace.outputs, InProcess()).data)
    assert not r.success and r.check == "LogUp sum" and r.error_message.startswith("LogUp sum: segment 0:"), r.error_message


def test_a_segment_checked_without_its_bundles_seed_is_refused(residual):
    from luminair.verifier.formats import read_proof_file
    from luminair.verifier.segments import segment_settings
    from luminair.verifier.statement import build_statement
    from luminair.verifier.verify import verify_stark

    cx, settings, cuts, sp = residual
    _, _, queries, _, proofs = read_bundle(sp.data)
    seg = cut_graph(settings.spec, cuts)[1]
    pf = read_proof_file(proofs[1])
    st_settings = segment_settings(settings.parsed, cuts, seg, queries)
    st = build_statement(st_settings, pf.public_values, pf.stark.vectors)
    with pytest.raises(FormatError, match="checked without its bundle"):
        verify_stark(st.air, st_settings.config, st.statement_bytes, pf.stark, st.public_sum)


def test_a_model_past_one_traces_topology_bound_is_proven_in_segments_that_fit(monkeypatch):
    """A model whose whole trace passes the verifier's topology bound (MAX_SPARSE_ENTRIES boundary
    rows, lowered here to 2/3 of the CNN's) has no whole proof, but settings for segments
    (gen_settings(whole=False): the whole AIR never built) and a bundle whose segments each fit,
    more segments than asked where one would not: it verifies with the exact outputs."""
    from luminair.prover import cuts
    from luminair.prover.stark.prove import ProverError
    from luminair.verifier.graph import statement
    from luminair.verifier.graph.planner import plan_graph

    cx, feed = _cnn()
    full = cx.gen_settings(preset="fast")
    cap = plan_graph(full.spec).boundary_bound * 2 // 3
    monkeypatch.setattr(statement, "MAX_SPARSE_ENTRIES", cap)
    monkeypatch.setattr(cuts, "MAX_SPARSE_ENTRIES", cap)
    cy, _ = _cnn()
    with pytest.raises(FormatError, match=f"topology needs more than {cap} boundary rows"):
        cy.gen_settings(preset="fast")
    light = cy.gen_settings(preset="fast", whole=False)
    assert light.data == full.data and light.air is None
    sp = prove_segmented(cy, feed, light, segments=1)
    assert len(sp.cuts) >= 1
    assert all(plan_graph(seg.spec).boundary_bound <= cap for seg in cut_graph(light.spec, sp.cuts))
    r = _check(light, sp.data)
    assert r.success, r.error_message
    assert np.array_equal(np.array(r.outputs["p"]["values"]), _exact(cy, feed, "p"))
    monkeypatch.setattr(cuts, "MAX_SPARSE_ENTRIES", 10)
    with pytest.raises(ProverError, match="alone needs more than 10 boundary rows"):
        choose_cuts(light.spec, 2)
    from luminair.prover.segments import cuts_for_memory

    with pytest.raises(ProverError, match="alone needs more than 10 boundary rows"):  # (not "no cut fits")
        cuts_for_memory(light, 8 << 30)


def test_a_boundary_output_is_charged_as_a_range():
    """A boundary tensor's output map is a range: its topology has no interior boundary, so its
    bound is a constant, not two rows an element (SqueezeNet at 224x224 writes 1.7M-element ones)."""
    from luminair.verifier.graph.planner import plan_graph

    cx, _ = _cnn()
    settings = cx.gen_settings(preset="fast")
    seg = cut_graph(settings.spec, choose_cuts(settings.spec, 2))[0]
    (inst,) = [i for i in plan_graph(seg.spec).instances if i.kind == "BoundaryOutput"]
    assert inst.rows > 8 and inst.boundary_bound == 4 * len(seg.writes) + 8


def test_segments_whose_algebraic_terms_fall_short_together_are_named(monkeypatch):
    """The union bound over several segments' algebraic terms cannot be lifted by queries: settings
    for segments are refused naming the segments and the weakest segment's term."""
    from luminair.prover.proving import ProverError, reach_union_bound
    from luminair.verifier import security
    from luminair.verifier.config import PRESETS

    cx, _ = _cnn()
    settings = cx.gen_settings(preset="fast")
    segs = cut_graph(settings.spec, choose_cuts(settings.spec, 3))
    monkeypatch.setattr(security, "FIELD_BITS", 100)
    with pytest.raises(ProverError, match=r"this model's 3 segments cap .* \(weakest: segment \d's .*\), below the 96-bit"):
        reach_union_bound(PRESETS["default"], [s.spec for s in segs], 96)
