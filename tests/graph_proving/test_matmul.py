"""Matrix products with weights from settings.bin, proven with a Freivalds check (MatIn / MatOut,
verifier/graph/matmul.py): honest proofs of dense layers, batches and convolutions, and the
forgeries of a product's primitives (a wrong product, a skipped term, a wrong accumulation, a
wrong rounding, a limb split or accumulator outside its range, forged challenge columns), each
rejected with a named check while the rest of the forged trace stays consistent."""

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover import graph as G
from luminair.verifier.fields import P
from luminair.prover.air.graph_trace import _affine_rows, main_columns
from luminair.verifier.graph import matmul
from luminair.verifier.graph.matmul import mat_plan
from luminair.verifier.statement import build_statement

from proving_helpers import check, forge, prove_exact, prove_graph

RNG = np.random.default_rng(5)
W = RNG.uniform(-0.9, 0.9, (96, 6))
B = RNG.uniform(-0.5, 0.5, (6,))
X = {"x": RNG.uniform(-1, 1, (4, 96))}


@pytest.fixture(scope="module", autouse=True)
def _two_lanes():
    """These products are small enough for one lane (matmul.MAT_SMALL_ROWS); the forgeries here
    exercise rows of two lanes (test_matmul_lanes.py: one lane)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(matmul, "MAT_SMALL_ROWS", 0)
        yield


def _model(fuse: bool = True) -> Graph:
    cx = Graph()
    x = cx.input("x", (4, 96))
    (x @ cx.constant(W, "w") + cx.constant(B, "b")).output("y")
    cx.compile(GenericCompiler(), StwoCompiler(fuse=fuse))
    return cx


@pytest.fixture(scope="module")
def case():
    cx = _model()
    settings, trace, proof = prove_graph(cx, X)
    assert check(settings, proof).success
    kinds = [p.kind for p in settings.plans]
    assert "MatIn" in kinds and "MatOut" in kinds and not any(k.startswith("Dot") for k in kinds)
    mp = settings.spec.matmuls()[settings.plans[kinds.index("MatOut")].nodes[0]]
    assert (mp.lanes, mp.period_log, mp.m, mp.n) == (2, 6, 4, 6)  # K = 96: 48 rows of 2, padded to 2^6
    return cx, settings, trace, kinds.index("MatIn"), kinds.index("MatOut")


def _limbs(cols, prefix, bits, v):
    for i in range((bits + 7) // 8):
        cols[f"{prefix}_l{i}"] = (v >> (8 * i)) & 255


def _rounded_outputs(cols, s):
    """A MatOut's total, rounding and every range limb recomputed from its (edited) S_lo and S_hi
    and bias, as a cheating prover would; the outputs they yield."""
    tot = cols["slo"] + 256 * cols["shi"]
    rounded = (tot + (1 << (s - 1))) >> s
    out = rounded + cols["bias"]
    cols["out"], cols["rem"] = out, tot + (1 << (s - 1)) - (rounded << s)
    _limbs(cols, "slo", 29, cols["slo"] + (1 << 28))
    _limbs(cols, "shi", 23, cols["shi"] + (1 << 22))
    _limbs(cols, "tot", 29, tot + (1 << 28))
    _limbs(cols, "out", 16, out + (1 << 15))
    _limbs(cols, "rem", s, cols["rem"])
    return out


def _forge_out(case, edit, expect_check, **kw):
    """Edit MatOut's S_lo / S_hi (row order), then recompute the total, the rounding and every range
    limb, and claim the outputs this forged trace yields: only the check under test can object."""
    cx, settings, trace, ki, ko = case
    s = settings.spec.scale_bits
    public = [list(v) for v in trace.public]

    def tamper(main):
        cols = main[ko]
        edit(main[ki], cols)
        _recompute(cols)

    def _recompute(cols):
        out = _rounded_outputs(cols, s)
        public[-1] = [int(v) % P for v in out[: settings.plans[ko].rows]]

    # the claimed outputs are part of the statement, fixed before the trace: work them out first
    st = build_statement(settings.parsed, trace.public)
    main = main_columns(cx, settings.plans, trace.values, st.air, settings.topology, settings.spec)
    tamper([{k: np.array(v, copy=True) for k, v in cols.items()} for cols in main])
    data = forge(cx, trace, settings, tamper, public=public, **kw)
    res = check(settings, data)
    if expect_check is None:
        return res
    assert not res.success and res.check == expect_check, res.error_message
    return res


def test_the_forger_with_nothing_forged_gives_a_valid_proof(case):
    """So every rejection below is the edit's doing, not the forger's."""
    res = _forge_out(case, lambda _mi, _cols: None, None)
    assert res.success, res.error_message


def test_a_wrong_product_is_rejected_by_the_freivalds_sum(case):
    def edit(_min, cols):
        cols["slo"][5] += 1 << case[1].spec.scale_bits  # out[0, 5] one unit too large

    res = _forge_out(case, edit, "LogUp sum")
    assert "matrix product" in res.error_message


def test_a_wrong_high_limb_sum_is_rejected(case):
    def edit(_min, cols):
        cols["shi"][7] -= 1
        cols["slo"][7] += 256  # the same total: only the split into S_lo and S_hi is wrong

    _forge_out(case, edit, "LogUp sum")


def test_a_skipped_term_is_rejected(case):
    """out[1, 2] computed without k = 0: S_lo and S_hi both miss a[1, 0] w[0, 2]."""
    cx, settings, trace, ki, ko = case
    mp = settings.spec.matmuls()[settings.plans[ko].nodes[0]]
    w = np.round(W * (1 << settings.spec.scale_bits)).astype(np.int64)

    def edit(mi, cols):
        a = mi["lo0"][mp.in_rows // mp.m * 1] + 256 * mi["hi0"][mp.in_rows // mp.m * 1]  # a[1, 0]
        r = 1 * mp.n + 2
        cols["slo"][r] -= (a & 255) * w[0, 2]
        cols["shi"][r] -= (a >> 8) * w[0, 2]

    _forge_out(case, edit, "LogUp sum")


def test_a_wrong_rounding_is_rejected(case):
    cx, settings, trace, ki, ko = case
    s = settings.spec.scale_bits

    def tamper(main):
        cols = main[ko]
        cols["out"][3] += 1
        cols["rem"][3] -= 1 << s  # the relation holds, the remainder leaves [0, 2^s)
        _limbs(cols, "out", 16, cols["out"] + (1 << 15))
        _limbs(cols, "rem", s, cols["rem"] % (1 << 30))

    public = [list(v) for v in trace.public]
    public[-1][3] = (public[-1][3] + 1) % P
    res = check(settings, forge(cx, trace, settings, tamper, public=public))
    assert not res.success and res.check in ("OODS mismatch", "LogUp sum"), res.error_message


def test_a_limb_split_outside_its_range_is_rejected(case):
    """a = lo + 256 hi with lo = a_lo + 256 and hi = a_hi - 1: the same value, the sums computed
    from that split consistently, but lo is not an 8-bit value (range8)."""
    cx, settings, trace, ki, ko = case
    mp = settings.spec.matmuls()[settings.plans[ko].nodes[0]]
    w = np.round(W * (1 << settings.spec.scale_bits)).astype(np.int64)

    def edit(mi, cols):
        mi["lo0"][0] += 256
        mi["hi0"][0] -= 1
        for n in range(mp.n):  # a[0, 0]'s split feeds S[0, n]
            cols["slo"][n] += 256 * w[0, n]
            cols["shi"][n] -= w[0, n]

    _forge_out(case, edit, "LogUp sum")


def test_an_accumulator_past_its_range_is_rejected(case):
    """S_lo encoded with limbs for S_lo + P (the same field element) fails the range check."""
    cx, settings, trace, ki, ko = case

    def tamper(main):
        cols = main[ko]
        v = int(cols["slo"][0]) + (1 << 28) + P
        for i in range(4):
            cols[f"slo_l{i}"][0] = (v >> (8 * i)) & 255

    res = check(settings, forge(cx, trace, settings, tamper))
    assert not res.success and res.check in ("OODS mismatch", "LogUp sum"), res.error_message


def test_an_input_value_other_than_the_graphs_is_rejected(case):
    """MatIn reads x[0, 0] + 1 (and the sums follow it): the data flow does not balance."""
    cx, settings, trace, ki, ko = case
    mp = settings.spec.matmuls()[settings.plans[ko].nodes[0]]
    w = np.round(W * (1 << settings.spec.scale_bits)).astype(np.int64)

    def edit(mi, cols):
        a = int(mi["lo0"][0] + 256 * mi["hi0"][0]) + 1
        old_lo, old_hi = int(mi["lo0"][0]), int(mi["hi0"][0])
        mi["lo0"][0], mi["hi0"][0] = a & 255, a >> 8
        for n in range(mp.n):
            cols["slo"][n] += ((a & 255) - old_lo) * w[0, n]
            cols["shi"][n] += ((a >> 8) - old_hi) * w[0, n]

    _forge_out(case, edit, "LogUp sum")


def test_zeroed_challenge_columns_are_rejected(case, monkeypatch):
    """A prover that writes u = 0 (every Freivalds term vanishes, so any sums would pass) breaks
    the aux column's own constraints."""
    import luminair.prover.stark.prove as prove_mod

    real = prove_mod.aux_trace

    def zero(comp, challenges, *rest):
        return {k: tuple(np.zeros_like(c) for c in v) for k, v in real(comp, challenges, *rest).items()}

    monkeypatch.setattr(prove_mod, "aux_trace", zero)

    def edit(_mi, cols):
        cols["slo"][2] += 12345

    _forge_out(case, edit, "OODS mismatch")


def test_fused_and_unfused_proofs_attest_the_same_outputs(case):
    cx, settings, trace, _, _ = case
    plain = _model(fuse=False)
    s2, t2, p2 = prove_graph(plain, X)
    assert check(s2, p2).success
    assert not any(p.kind.startswith("Mat") for p in s2.plans)
    fused = check(settings, cx.prove(trace, settings)).outputs["y"]["values"]
    unfused = check(s2, p2).outputs["y"]["values"]
    exact = (X["x"] @ W + B).reshape(-1)
    # one rounding per output against one per product: the fused outputs are closer to float64
    assert np.abs(np.array(fused) - exact).max() <= np.abs(np.array(unfused) - exact).max()
    # and exactly the rounded product of the quantized operands (one rounding, half a unit)
    q = lambda v: np.floor(v * (1 << settings.spec.scale_bits) + 0.5) / (1 << settings.spec.scale_bits)  # noqa: E731
    quantized = (q(X["x"]) @ q(W) + q(B)).reshape(-1)
    assert np.abs(np.array(fused) - quantized).max() <= 2 ** -(settings.spec.scale_bits + 1)


# --- several products in one MatOut ------------------------------------------------------------

W2 = RNG.uniform(-0.9, 0.9, (96, 6))
B2 = RNG.uniform(-0.5, 0.5, (6,))


@pytest.fixture(scope="module")
def shared_case():
    """Two dense layers of one variant (bias, constant weights): one MatOut holds both."""
    cx = Graph()
    x = cx.input("x", (4, 96))
    (x @ cx.constant(W, "w") + cx.constant(B, "b")).output("y")
    (x @ cx.constant(W2, "w2") + cx.constant(B2, "b2")).output("z")
    cx.compile(GenericCompiler(), StwoCompiler())
    settings, trace, proof = prove_graph(cx, X)
    assert check(settings, proof).success
    names = [p.component.name for p in settings.plans]
    ko = names.index("matoutb")
    assert names.count("matoutb") == 1 and len(settings.plans[ko].nodes) == 2, names
    return cx, settings, trace, ko


def _forge_shared(shared_case, edit):
    """edit(main, ko, segments) edits the main columns (row order; main[ko]: the shared MatOut's),
    then every MatOut column after S_lo is recomputed and the outputs it yields claimed."""
    cx, settings, trace, ko = shared_case
    s = settings.spec.scale_bits
    plan = settings.plans[ko]
    public = [list(v) for v in trace.public]

    def tamper(main):
        cols = main[ko]
        edit(main, ko, plan.segments)
        out = _rounded_outputs(cols, s)
        for k, seg in enumerate(plan.segments):  # outputs y, z: the last two public tensors
            public[len(public) - 2 + k] = [int(v) % P for v in out[seg.start : seg.start + seg.rows]]

    st = build_statement(settings.parsed, trace.public)
    main = main_columns(cx, settings.plans, trace.values, st.air, settings.topology, settings.spec)
    tamper([{k: np.array(v, copy=True) for k, v in cols.items()} for cols in main])
    return check(settings, forge(cx, trace, settings, tamper, public=public))


def test_shared_matout_honest_forger_baseline(shared_case):
    res = _forge_shared(shared_case, lambda _main, _ko, _segs: None)
    assert res.success, res.error_message


def test_a_wrong_product_of_the_second_node_in_a_shared_matout_is_rejected(shared_case):
    s = shared_case[1].spec.scale_bits

    def edit(main, ko, segs):
        main[ko]["slo"][segs[1].start + 4] += 1 << s

    res = _forge_shared(shared_case, edit)
    assert not res.success and res.check == "LogUp sum", res.error_message


def test_errors_that_cancel_between_nodes_of_a_shared_matout_are_rejected(shared_case):
    """y[1, 3] one unit too large and z[1, 3] one unit too small: with both nodes' terms at the same
    powers of mu the two errors would cancel; each node's MatIn scales its terms by mu^(its first
    group) and the MatOut's counter runs over both nodes' groups, so they cannot."""
    s = shared_case[1].spec.scale_bits

    def edit(main, ko, segs):
        main[ko]["slo"][segs[0].start + 9] += 1 << s
        main[ko]["slo"][segs[1].start + 9] -= 1 << s

    res = _forge_shared(shared_case, edit)
    assert not res.success and res.check == "LogUp sum", res.error_message


def test_interleaved_matin_holds_both_nodes(shared_case):
    """One MatIn holds both products (stride 2): node i's row l is row 2 l + i."""
    cx, settings, trace, ko = shared_case
    (ki,) = [k for k, p in enumerate(settings.plans) if p.kind == "MatIn"]
    plan = settings.plans[ki]
    assert plan.nodes == settings.plans[ko].nodes and plan.component.stride == 2
    assert plan.component.name == f"matin2.n{plan.nodes[0]}+1"


def test_a_second_node_value_other_than_the_graphs_is_rejected(shared_case):
    """The second node's MatIn reads x[0, 0] + 1 on its first row (row 1 of the interleaved
    component), the sums of that node follow it: the data flow does not balance."""
    cx, settings, trace, ko = shared_case
    (ki,) = [k for k, p in enumerate(settings.plans) if p.kind == "MatIn"]
    w2 = np.round(W2 * (1 << settings.spec.scale_bits)).astype(np.int64)

    def edit(main, ko, segs):
        mi, cols, seg = main[ki], main[ko], segs[1]
        a = int(mi["lo0"][1] + 256 * mi["hi0"][1]) + 1
        d_lo, d_hi = (a & 255) - int(mi["lo0"][1]), (a >> 8) - int(mi["hi0"][1])
        mi["lo0"][1], mi["hi0"][1] = a & 255, a >> 8
        for n in range(6):
            cols["slo"][seg.start + n] += d_lo * w2[0, n]
            cols["shi"][seg.start + n] += d_hi * w2[0, n]

    res = _forge_shared(shared_case, edit)
    assert not res.success and res.check == "LogUp sum", res.error_message


def test_a_counter_without_the_second_nodes_offset_is_rejected(shared_case, monkeypatch):
    """u on the second node's rows written as mu^m instead of mu^(M1 + m) (its head left at 1):
    its terms land on the first node's powers of mu and no longer cancel the MatOut's."""
    import luminair.prover.stark.aux_columns as aux_mod

    real = aux_mod.geometric_rows

    def no_heads(starts, n_rows, f, reset, stride=1, heads=None):
        return real(starts, n_rows, f, reset, stride, None if stride > 1 else heads)

    monkeypatch.setattr(aux_mod, "geometric_rows", no_heads)
    cx, settings, trace, ko = shared_case
    res = check(settings, forge(cx, trace, settings))
    assert not res.success and res.check == "LogUp sum", res.error_message


def _prove(build, feed):
    cx = Graph()
    build(cx)
    settings, trace, proof = prove_graph(cx, feed)
    res = check(settings, proof)
    assert res.success, res.error_message
    return settings


def test_a_batched_mlp_and_a_convolution_use_the_freivalds_check():
    rng = np.random.default_rng(1)

    def mlp(g):
        x = g.input("x", (7, 64))
        h = (x @ g.constant(rng.uniform(-0.3, 0.3, (64, 32)), "w1") + g.constant(rng.uniform(-0.1, 0.1, (32,)), "b1")).relu()
        (h @ g.constant(rng.uniform(-0.3, 0.3, (32, 10)), "w2")).output("y")

    kinds = [p.kind for p in _prove(mlp, {"x": rng.uniform(0, 1, (7, 64))}).plans]
    assert kinds.count("MatOut") == 1 and not any(k.startswith("Dot") for k in kinds)  # one MatOut, with a bias

    def conv(g):
        x = g.input("x", (1, 3, 8, 8))
        G.conv2d(x, g.constant(rng.uniform(-0.5, 0.5, (4, 3, 3, 3)), "k"), padding=1).relu().output("y")

    kinds = [p.kind for p in _prove(conv, {"x": rng.uniform(0, 1, (1, 3, 8, 8))}).plans]
    assert "MatOut" in kinds


def test_products_the_check_cannot_serve_stay_dots():
    """Weights so large that a sum could wrap modulo P, or a long reduction to one output, where
    the Dot's rows of 16 products commit far fewer cells (beyond MAT_CELL_ALLOWANCE): a Dot. Any
    reduced length is served (1072 = 2 x 536: 536 rows of 2 lanes a row of A, padded to 1024)."""
    rng = np.random.default_rng(2)
    cx = Graph()
    q = cx.input("q", (4, 8), private=True)
    (q @ q.permute((1, 0))).output("s")  # two computed operands: MatPair
    (cx.input("x", (2, 1072)) @ cx.constant(rng.uniform(-1, 1, (1072, 3)), "w")).output("y")
    (cx.input("z", (1, 16384)) @ cx.constant(rng.uniform(-0.1, 0.1, (16384, 1)), "u")).output("t")  # a Dot
    cx.compile(GenericCompiler(), StwoCompiler())
    from luminair.prover.air.graph_trace import build_spec

    spec = build_spec(cx)
    dots = [i for i, n in enumerate(spec.nodes) if n.op == "Dot"]
    assert len(dots) == 3 and len(spec.pairs()) == 1 and len(spec.matmuls()) == 1
    (mp,) = spec.matmuls().values()
    assert (mp.k, mp.lanes, mp.period_log) == (1072, 2, 10)

    def plan(m, k, n, w):
        g = Graph()
        (g.input("x", (m, k)) @ g.constant(np.full((k, n), w), "w")).output("y")
        g.compile(GenericCompiler(), StwoCompiler())
        spec = build_spec(g)
        return mat_plan(spec, next(i for i, node in enumerate(spec.nodes) if node.op == "Dot"))

    # the weights' bound: K 255 max|W| + 2^28 must stay below P
    assert plan(16, 256, 16, 7.9) is not None  # 256 * 255 * 7.9 * 2^10 + 2^28 < P: served
    assert plan(16, 1024, 16, 7.9) is None
    small = Graph()  # a short reduction: served, though a Dot's cells would be fewer
    (small.input("x", (1, 16)) @ small.constant(np.full((16, 4), 0.5), "w")).output("y")
    small.compile(GenericCompiler(), StwoCompiler())
    assert build_spec(small).matmuls()


def test_the_freivalds_term_is_reported(case):
    """Each checked node's challenges must avoid the roots of a polynomial of degree <= M + N + 1 (its
    MatOut's rows bound it): one more soundness term, with the interaction grinding."""
    import math

    from luminair.verifier.config import PRESETS
    from luminair.verifier.security import soundness_terms

    settings = case[1]
    terms = soundness_terms(PRESETS["default"], settings.air)
    rows = 1 << settings.plans[case[4]].component.log_size
    assert terms["Freivalds"] == math.floor((124 - math.log2(rows + 3) + 10) * 10) / 10
    assert terms["Freivalds"] > 120


# --- weights that are public inputs (a training step's), and a known first operand --------------


def _public_model():
    rng = np.random.default_rng(3)
    cx = Graph()
    x = cx.input("x", (8, 96))
    w = cx.input("w", (96, 24))
    (x @ w + cx.constant(rng.uniform(-0.5, 0.5, (24,)), "b")).output("y")
    d = cx.input("d", (8, 24), private=True)
    (x.permute((1, 0)) @ d).output("g")  # a weight gradient: the public operand comes first
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = {"x": rng.uniform(-1, 1, (8, 96)), "w": rng.uniform(-1, 1, (96, 24)), "d": rng.uniform(-1, 1, (8, 24))}
    return cx, feed


@pytest.fixture(scope="module")
def public_case():
    cx, feed = _public_model()
    settings, trace, proof = prove_graph(cx, feed)
    res = check(settings, proof)
    assert res.success, res.error_message
    names = [p.component.name for p in settings.plans]
    # both operands in limbs, no Dot; the gradient (no bias) shares the MatOut with a bias
    assert "matoutbw" in names and "matoutw" not in names, names
    assert "matin2.n3+1" in names  # both products' A sides in one MatIn (their row counts differ)
    plans = settings.spec.matmuls()
    assert (plans[3].a_input, plans[3].w_public, plans[5].a_input) == (0, True, 1)
    exact = cx.run(feed, exact=True)
    np.testing.assert_array_equal(np.array(res.outputs["g"]["values"]), exact["g"].reshape(-1))
    np.testing.assert_array_equal(np.array(res.outputs["y"]["values"]), exact["y"].reshape(-1))
    return cx, settings, trace, names.index("matin2.n3+1"), names.index("matoutbw")


def _forge_split(case, edit, expect_check, n_public_inputs=2):
    """As _forge_out, for a MatOut of four limb sums (public weights, or two computed operands):
    edit the sums, recompute t1, the total, the rounding and every limb, and claim the outputs
    (each node's rows in the MatOut are an output)."""
    cx, settings, trace, ki, ko = case
    s = settings.spec.scale_bits
    public = [list(v) for v in trace.public]
    outputs = [o.node for o in settings.spec.outputs]

    def tamper(main):
        cols = main[ko]
        edit(cols)
        cols["t1"] = 256 * cols["shh"] + cols["shl"] + cols["slh"]
        tot = 256 * cols["t1"] + cols["sll"]
        rounded = (tot + (1 << (s - 1))) >> s
        cols["out"] = rounded + cols.get("bias", 0)
        cols["rem"] = tot + (1 << (s - 1)) - (rounded << s)
        for name in ("sll", "shl", "slh"):
            _limbs(cols, name, 29, cols[name] + (1 << 28))
        _limbs(cols, "shh", 23, cols["shh"] + (1 << 22))
        _limbs(cols, "t1", 23, cols["t1"] + (1 << 22))
        _limbs(cols, "tot", 29, tot + (1 << 28))
        _limbs(cols, "out", 16, cols["out"] + (1 << 15))
        _limbs(cols, "rem", s, cols["rem"])
        for seg in settings.plans[ko].segments:  # MatOut rows in the product's order (out_view)
            mp = settings.spec.matmuls().get(seg.node) or settings.spec.pairs()[seg.node]
            offsets, _ = _affine_rows(mp.out_view, seg.rows)
            claimed = public[n_public_inputs + outputs.index(seg.node)]
            for offset, v in zip(offsets, cols["out"][seg.start : seg.start + seg.rows]):
                claimed[offset] = int(v) % P

    st = build_statement(settings.parsed, trace.public)
    main = main_columns(cx, settings.plans, trace.values, st.air, settings.topology, settings.spec)
    tamper([{k: np.array(v, copy=True) for k, v in cols.items()} for cols in main])
    res = check(settings, forge(cx, trace, settings, tamper, public=public))
    if expect_check is None:
        return res
    assert not res.success and res.check == expect_check, res.error_message
    return res


def test_public_weights_honest_forger_baseline(public_case):
    assert _forge_split(public_case, lambda cols: None, None).success


def test_a_product_with_other_public_weights_is_rejected(public_case):
    """The sums computed with w[0, 0] one unit larger than the public value (outputs claimed)."""
    cx, settings, trace, ki, ko = public_case
    main = main_columns(cx, settings.plans, trace.values, settings.air, settings.topology, settings.spec)
    a = int(main[ki]["lo0"][0] + 256 * main[ki]["hi0"][0])  # x[0, 0] (group 0, row 0, lane 0)
    w00 = int(trace.values[1][0])  # w[0, 0], raw
    assert (w00 & 255) != 255  # so w[0, 0] + 1 only changes its low limb

    def edit(cols):
        cols["sll"][0] += a & 255
        cols["shl"][0] += a >> 8

    _forge_split(public_case, edit, "LogUp sum")


def test_a_wrong_split_of_the_public_weights_sums_is_rejected(public_case):
    def edit(cols):
        cols["shh"][3] -= 1
        cols["shl"][3] += 256  # t1 and the total unchanged

    _forge_split(public_case, edit, "LogUp sum")


# --- products of several variants in one MatOut ------------------------------------------------


@pytest.fixture(scope="module")
def merged_case():
    """x @ w + b with public weights (four limb sums, a bias) and x @ W3 with constant weights and
    no bias: one MatOut of limb sums with a bias holds both (mat_plans._merged_variants)."""
    rng = np.random.default_rng(9)
    cx = Graph()
    x = cx.input("x", (8, 96))
    w = cx.input("w", (96, 24))
    (x @ w + cx.constant(rng.uniform(-0.5, 0.5, (24,)), "b")).output("y")
    (x @ cx.constant(rng.uniform(-0.5, 0.5, (96, 6)), "w3")).output("z")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = {"x": rng.uniform(-1, 1, (8, 96)), "w": rng.uniform(-1, 1, (96, 24))}
    settings, trace = prove_exact(cx, feed, ("y", "z"))
    names = [p.component.name for p in settings.plans]
    assert names.count("matoutbw") == 1 and not any(n in names for n in ("matout", "matoutb", "matoutw")), names
    ko = names.index("matoutbw")
    (seg,) = [seg for seg in settings.plans[ko].segments if not settings.spec.matmuls()[seg.node].w_public]
    return (cx, settings, trace, None, ko), seg


def test_merged_matout_honest_forger_baseline(merged_case):
    assert _forge_split(merged_case[0], lambda cols: None, None).success


@pytest.mark.parametrize("limb", ["slh", "shh"])
def test_weight_high_sums_of_a_whole_weights_product_are_rejected(merged_case, limb):
    """On the rows of the product with whole (constant) weights, a W-high sum of 1 with S_hl
    lowered to match leaves t1, the total and the output as they were: only the terms, where that
    node's MatIn has no lambda2 part, object."""
    case, seg = merged_case

    def edit(cols):
        cols[limb][seg.start + 2] += 1
        cols["shl"][seg.start + 2] -= 256 if limb == "shh" else 1

    _forge_split(case, edit, "LogUp sum")


def test_a_wrong_product_of_a_whole_weights_node_in_a_merged_matout_is_rejected(merged_case):
    case, seg = merged_case
    s = case[1].spec.scale_bits

    def edit(cols):
        cols["sll"][seg.start + 5] += 1 << s

    _forge_split(case, edit, "LogUp sum")


def test_a_bias_on_a_product_without_one_is_rejected(merged_case):
    """The MatOut has a bias column; on the rows of the product without a bias it reads nothing, so
    it must be 0: a bias of 1 (the output raised with it) breaks the padding-zero constraint."""
    case, seg = merged_case

    def edit(cols):
        cols["bias"][seg.start + 1] += 1

    res = _forge_split(case, edit, None)
    assert not res.success and res.check == "OODS mismatch", (res.check, res.error_message)


# --- one MatIn for products of different row counts and periods --------------------------------


@pytest.fixture(scope="module")
def uneven_case():
    """x @ W (K = 96: 48 rows of 2, period 64, 4 groups: 256 rows) and z @ W2 (K = 40: period 32, 2
    groups: 64 rows) share one MatIn: z's slot is padded to 256 rows, its period repeats in v."""
    rng = np.random.default_rng(12)
    cx = Graph()
    x = cx.input("x", (4, 96))
    z = cx.input("z", (2, 40))
    (x @ cx.constant(W, "w")).output("y")
    (z @ cx.constant(rng.uniform(-0.9, 0.9, (40, 3)), "w2")).output("u")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = {"x": X["x"], "z": rng.uniform(-1, 1, (2, 40))}
    settings, trace = prove_exact(cx, feed, ("y", "u"))
    (k,) = [k for k, p in enumerate(settings.plans) if p.kind == "MatIn"]
    plan = settings.plans[k]
    shapes = [(settings.spec.matmuls()[i].in_rows, settings.spec.matmuls()[i].period_log) for i in plan.nodes]
    assert plan.component.stride == 2 and sorted(shapes) == [(64, 5), (256, 6)], shapes
    short = next(i for i, (rows, _) in enumerate(shapes) if rows == 64)
    return cx, settings, trace, k, short


def _forge_in(case, row, delta):
    cx, settings, trace, k, short = case

    def tamper(main):
        main[k]["lo0"][row * 2 + short] += delta

    return check(settings, forge(cx, trace, settings, tamper))


def test_uneven_matin_honest_forger_baseline(uneven_case):
    assert _forge_in(uneven_case, 3, 0).success


def test_a_value_on_the_padding_of_a_shorter_node_is_rejected(uneven_case):
    """Local row 100 of the 64-row node lies in its slot's padding: it must hold 0 (its term, with
    the repeated v there, unbalances the sum first)."""
    r = _forge_in(uneven_case, 100, 1)
    assert not r.success and r.check in ("LogUp sum", "OODS mismatch"), r.error_message


def test_a_wrong_value_in_a_repeated_period_is_rejected(uneven_case):
    """Local row 32 (the 64-row node's second group, where its v repeats from row 0): z[1, 0] read
    one unit off does not match what the graph yields."""
    r = _forge_in(uneven_case, 32, 1)
    assert not r.success and r.check == "LogUp sum", r.error_message


# --- products of two computed operands (attention) ---------------------------------------------


def _attention():
    rng = np.random.default_rng(4)
    cx = Graph()
    q = cx.input("q", (2, 16, 8), private=True)
    k = cx.input("k", (2, 16, 8), private=True)
    v = cx.input("v", (2, 16, 8), private=True)
    p = G.softmax(q @ k.permute((0, 2, 1)) * (1 / np.sqrt(8)), 2)
    (p @ v).output("o")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = {n: rng.uniform(-1, 1, (2, 16, 8)) for n in "qkv"}
    return cx, feed


def test_attention_proves_with_pair_products():
    cx, feed = _attention()
    settings, trace, proof = prove_graph(cx, feed)
    res = check(settings, proof)
    assert res.success, res.error_message
    kinds = [p.kind for p in settings.plans]
    assert kinds.count("MatPair") == 2 and not any(k.startswith("Dot") for k in kinds), kinds
    np.testing.assert_array_equal(np.array(res.outputs["o"]["values"]), cx.run(feed, exact=True)["o"].reshape(-1))


@pytest.fixture(scope="module")
def pair_case():
    rng = np.random.default_rng(6)
    cx = Graph()
    q = cx.input("q", (2, 16, 8), private=True)
    k = cx.input("k", (2, 16, 8), private=True)
    (q @ k.permute((0, 2, 1))).output("s")
    cx.compile(GenericCompiler(), StwoCompiler())
    settings, trace, proof = prove_graph(cx, {n: rng.uniform(-1, 1, (2, 16, 8)) for n in "qk"})
    assert check(settings, proof).success
    names = [p.component.name for p in settings.plans]
    assert names[-2:] == ["matpair1x1.n2", "matoutw"], names
    return cx, settings, trace, len(names) - 2, len(names) - 1


def test_a_pair_forger_with_nothing_forged_gives_a_valid_proof(pair_case):
    assert _forge_split(pair_case, lambda cols: None, None, 0).success


def test_a_pair_product_with_a_wrong_sum_is_rejected(pair_case):
    def edit(cols):
        cols["sll"][5] += 1 << 12  # s[0, 0, 5] one unit larger, claimed

    _forge_split(pair_case, edit, "LogUp sum", 0)


def test_a_pair_product_with_a_wrong_limb_split_of_the_sums_is_rejected(pair_case):
    def edit(cols):
        cols["shh"][9] += 1
        cols["slh"][9] -= 256  # t1 and the output unchanged

    _forge_split(pair_case, edit, "LogUp sum", 0)


def test_a_pair_operand_split_outside_its_range_is_rejected(pair_case):
    cx, settings, trace, kp, _ = pair_case

    def tamper(main):
        main[kp]["alo0"][0] += 256
        main[kp]["ahi0"][0] -= 1  # the same value, read and multiplied alike: lo leaves range8

    res = check(settings, forge(cx, trace, settings, tamper))
    assert not res.success and res.check == "LogUp sum", res.error_message


def test_zeroed_running_sums_are_rejected(pair_case, monkeypatch):
    """x = y = 0 makes every pair term vanish; the running sums' own constraints catch it."""
    import luminair.prover.stark.prove as prove_mod

    cx, settings, trace, kp, _ = pair_case
    real = prove_mod.aux_trace

    def zero(comp, challenges, *rest):
        out = real(comp, challenges, *rest)
        if comp.name.startswith("matpair"):
            out["x"] = tuple(np.zeros_like(c) for c in out["x"])
        return out

    monkeypatch.setattr(prove_mod, "aux_trace", zero)
    res = check(settings, forge(cx, trace, settings, None))
    assert not res.success and res.check in ("OODS mismatch", "LogUp sum"), res.error_message


@pytest.mark.parametrize("shape", [(4, 96, 6), (300, 8, 5), (1, 784, 128), (64, 10, 3)])
def test_the_work_estimate_bounds_the_boundary_rows(shape):
    """budget.graph_work counts a checked product's boundary rows from its shapes before any is
    listed: never fewer than plan_components lists."""
    from luminair.prover.air.graph_trace import build_spec
    from luminair.verifier.graph.mat_plans import mat_topology_cost
    from luminair.verifier.graph.statement import plan_components

    m, k, n = shape
    rng = np.random.default_rng(9)
    cx = Graph()
    q = cx.input("q", (2, 16, 8), private=True)
    (q @ q.permute((0, 2, 1))).output("s")
    (cx.input("x", (m, k)) @ cx.constant(rng.uniform(-1, 1, (k, n)), "w")).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    spec = build_spec(cx)
    plans = plan_components(spec)
    for i in [*spec.matmuls(), *spec.pairs()]:
        listed = sum(len(col) for p in plans if p.nodes == [i] and p.kind.startswith("Mat")
                     for col in p.component.sparse_columns.values())
        assert 0 < listed <= mat_topology_cost(spec, i)
    assert spec.pairs()


def test_a_bias_other_than_the_graphs_is_rejected(case):
    """MatOut adds bias + 7 (output claimed accordingly): the bias it reads is not the one the
    bias node yields."""
    def edit(_mi, cols):
        cols["bias"][4] += 7

    _forge_out(case, edit, "LogUp sum")


def test_an_output_that_skips_its_bias_is_rejected(case):
    """The bias is read (the data flow balances) but the output leaves it out (claimed)."""
    cx, settings, trace, ki, ko = case
    public = [list(v) for v in trace.public]

    def tamper(main):
        cols = main[ko]
        cols["out"][2] -= cols["bias"][2]
        _limbs(cols, "out", 16, cols["out"] + (1 << 15))

    st = build_statement(settings.parsed, trace.public)
    main = main_columns(cx, settings.plans, trace.values, st.air, settings.topology, settings.spec)
    public[-1][2] = int(main[ko]["out"][2] - main[ko]["bias"][2]) % P
    res = check(settings, forge(cx, trace, settings, tamper, public=public))
    assert not res.success and res.check == "OODS mismatch", res.error_message


def test_a_row_that_reads_nothing_must_hold_zeros(case):
    """K = 96 is 48 rows of 2 lanes, padded to 64 a row of A: a value on a padding row (where v is
    0, so the sums stay right) breaks MatIn's (1 - in0_real) a = 0."""
    cx, settings, trace, ki, ko = case
    name = settings.plans[ki].component.name
    real = settings.topology[f"{name}.in0_real"]
    row = int(np.flatnonzero((settings.topology[f"{name}.is_real"] == 1) & (real == 0))[0])

    def tamper(main):
        main[ki]["lo0"][row] = 5

    res = check(settings, forge(cx, trace, settings, tamper))
    assert not res.success and res.check == "OODS mismatch", res.error_message


@pytest.fixture(scope="module")
def pair2_case():
    """Two products of computed operands of one shape: one MatPair holds both (stride 2)."""
    rng = np.random.default_rng(8)
    cx = Graph()
    q = cx.input("q", (2, 16, 8), private=True)
    k = cx.input("k", (2, 16, 8), private=True)
    r = cx.input("r", (2, 16, 8), private=True)
    (q @ k.permute((0, 2, 1))).output("s")
    (q @ r.permute((0, 2, 1))).output("t")
    cx.compile(GenericCompiler(), StwoCompiler())
    settings, trace, proof = prove_graph(cx, {n: rng.uniform(-1, 1, (2, 16, 8)) for n in "qkr"})
    assert check(settings, proof).success
    kinds = [p.kind for p in settings.plans]
    kp, ko = kinds.index("MatPair"), kinds.index("MatOut")
    assert kinds.count("MatPair") == 1 and settings.plans[kp].component.stride == 2
    assert settings.plans[kp].nodes == settings.plans[ko].nodes
    return cx, settings, trace, kp, ko


def test_an_interleaved_pair_forger_with_nothing_forged_gives_a_valid_proof(pair2_case):
    assert _forge_split(pair2_case, lambda cols: None, None, 0).success


def test_a_wrong_sum_of_the_second_pair_product_is_rejected(pair2_case):
    seg = pair2_case[1].plans[pair2_case[4]].segments[1]

    def edit(cols):
        cols["sll"][seg.start + 5] += 1 << 12  # t[0, 0, 5] one unit larger, claimed

    _forge_split(pair2_case, edit, "LogUp sum", 0)


def test_a_second_pair_operand_other_than_the_graphs_is_rejected(pair2_case):
    """The second product's MatPair rows (odd rows) hold another value for q: the data flow fails."""
    cx, settings, trace, kp, _ = pair2_case

    def tamper(main):
        main[kp]["alo0"][1] ^= 1

    res = check(settings, forge(cx, trace, settings, tamper))
    assert not res.success and res.check == "LogUp sum", res.error_message


@pytest.mark.parametrize("row, col", [(1, "in0_addr"), (3, "in0_addr"), (1, "in0_real"), (5, "in0_step")])
def test_an_interleaved_topology_that_departs_from_the_graph_is_rejected(shared_case, row, col):
    """The second node's rows of the interleaved MatIn (odd rows): its anchor (row 1) or a
    difference along its own rows changed; the verifier's sparse columns (a.<col>, d.<col>, rows
    2 apart) object, or the redirected read finds no element."""
    cx, settings, trace, _ = shared_case
    (ki,) = [k for k, p in enumerate(settings.plans) if p.kind == "MatIn"]
    name = settings.plans[ki].component.name

    def tamper(topo):
        topo[f"{name}.{col}"][row] += 1

    res = check(settings, forge(cx, trace, settings, tamper_topology=tamper))
    assert not res.success and res.check in ("OODS mismatch", "LogUp sum"), res.error_message
