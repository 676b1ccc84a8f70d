"""The fused Dot component against a patched prover: the forgeries its primitives (Mul, SumReduce)
are tested with (a wrong product, a wrong accumulation, a skipped term, a wrong rounding, an
accumulator outside its range), each rejected with a named check; and the fused and unfused proofs
of one model attest what their executors compute."""

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover import graph as G
from luminair.prover.air.witness import accumulate_dot
from luminair.prover.graph.error_bound import error_bound
from luminair.verifier.fields import P
from luminair.verifier.numeric import DOT_ACC_BOUND
from luminair.verifier.graph.planner import plan_graph

from proving_helpers import check, forge, prove_graph



@pytest.fixture(scope="module", autouse=True)
def dots_only():
    """These tests prove the Dot component itself, the form of every product the Freivalds check
    cannot serve (both operands computed, reduced lengths with no split, large weights): the check
    (tested in test_matmul.py) is switched off for this module, for prover and verifier alike."""
    from luminair.prover.compile import fuse
    from luminair.verifier.graph import matmul

    patch = pytest.MonkeyPatch()
    patch.setattr(matmul, "mat_plan", lambda spec, index, lanes: None)
    patch.setattr(fuse, "_freivalds_serves", lambda graph, dot, k: False)  # so Dots are padded again
    yield
    patch.undo()


RNG = np.random.default_rng(11)
W = RNG.uniform(-0.9, 0.9, (32, 3))
X = {"x": RNG.uniform(-1, 1, (2, 32))}


def _model(fuse: bool = True) -> Graph:
    cx = Graph()
    x = cx.input("x", (2, 32))
    (x @ cx.constant(W, "w")).output("y")
    cx.compile(GenericCompiler(), StwoCompiler(fuse=fuse))
    return cx


@pytest.fixture(scope="module")
def dot_case():
    cx = _model()
    settings, trace, proof = prove_graph(cx, X)
    assert check(settings, proof).success
    k = next(i for i, p in enumerate(settings.plans) if p.kind.startswith("Dot"))
    comp = settings.plans[k].component
    assert comp.lanes == 16  # |w| < 1: 16 products a row, two rows per output element
    return cx, settings, trace, k


def _dense(comp, key):
    col = np.zeros(1 << comp.log_size, dtype=np.int64)
    for r in comp.sparse_columns[key]:
        col[r] = 1
    return col


def _row_sums(main, comp):
    return sum(main[f"a{j}"] * main[f"b{j}"] for j in range(comp.lanes))


def _forge_lane(case, lane, delta):
    """A forger that changes one lane's operand on the first row (`lane` like "b3") and keeps every
    other Dot constraint and the data flow of the outputs consistent with it."""
    comp = case[1].plans[case[3]].component

    def edit(main, x):
        main[lane][0] += delta
        return _row_sums(main, comp)

    return _forge_consistently(case, edit_sums=edit)


def _forge_consistently(case, edit_sums=None, restart=None, edit_after=None):
    """A forger that keeps every Dot constraint but the one under test: from the (edited) row sums it
    recomputes the running sum, the rounding and every range limb, and claims the outputs this
    forged trace yields, so the data flow balances and only the broken constraint can catch it."""
    cx, settings, trace, k = case
    comp = settings.plans[k].component
    s = settings.spec.scale_bits
    first, last = _dense(comp, "first"), _dense(comp, "last")
    forged = {}

    def tamper(main):
        x = _row_sums(main[k], comp)
        if edit_sums:
            x = edit_sums(main[k], x)
        starts = first.copy()
        if restart is not None:
            starts[restart] = 1  # the forger drops the carry into this row
        accumulate_dot(main[k], x, starts, last, s)
        if edit_after:
            edit_after(main[k])
        forged["out"] = main[k]["out"][np.flatnonzero(last)][: len(trace.public[-1])]

    # the public outputs are fixed before proving: run the tamper once on a scratch copy to learn them
    from luminair.prover.air.graph_trace import main_columns

    scratch = main_columns(cx, settings.plans, trace.values, settings.air, settings.topology, settings.spec)
    tamper(scratch)
    public = [list(v) for v in trace.public[:-1]] + [[int(v) % P for v in forged["out"]]]
    assert public != trace.public, "the forgery must change an output"
    return check(settings, forge(cx, trace, settings, tamper, public=public))


def test_a_wrong_product_operand_is_rejected(dot_case):
    """The row multiplies another weight than the one the known rows yield at that address."""

    r = _forge_lane(dot_case, "b3", 256)  # 0.25 more
    assert r.check == "LogUp sum", r.error_message


def test_a_wrong_accumulation_is_rejected(dot_case):
    """An output element's second row restarts the sum instead of adding the first row's carry."""
    r = _forge_consistently(dot_case, restart=1)
    assert r.check == "OODS mismatch", r.error_message


def test_a_skipped_term_is_rejected(dot_case):
    """The accumulator leaves one lane's product out (the lane still reads its operands)."""
    r = _forge_consistently(dot_case, edit_sums=lambda main, x: x - main["a5"] * main["b5"])
    assert r.check == "OODS mismatch", r.error_message


def test_a_wrong_rounding_is_rejected(dot_case):
    """out one raw unit up with the remainder adjusted so the equation holds: the remainder leaves
    [0, 2^s) and its range lookup finds no table row."""
    s = dot_case[1].spec.scale_bits

    def edit(main):
        row = int(np.flatnonzero(main["out"] != 0)[0]) if (main["out"] != 0).any() else 1
        main["out"][row] += 1
        main["rem"][row] -= 1 << s
        for i, name in enumerate(("rem_l0", "rem_l1")):
            main[name][row] = (main["rem"][row] >> (8 * i)) & 255
        for i, name in enumerate(("out_l0", "out_l1")):
            main[name][row] = ((main["out"][row] + (1 << 15)) >> (8 * i)) & 255

    r = _forge_consistently(dot_case, edit_after=edit)
    assert r.check == "LogUp sum", r.error_message


def test_an_accumulator_limb_encoding_past_its_range_is_rejected(dot_case):
    """The accumulator's limbs encode acc + 2^28 + P (the same field element, so the limb sum
    constraint holds) with a top limb far above its 5 bits: only the top limb's own lookup stops it."""
    cx, settings, trace, k = dot_case

    def tamper(main):
        v = int(main[k]["acc"][0]) + DOT_ACC_BOUND + P
        assert v < 1 << 32
        for i in range(4):
            main[k][f"acc_l{i}"][0] = (v >> (8 * i)) & 255
        assert main[k]["acc_l3"][0] >= 32

    r = check(settings, forge(cx, trace, settings, tamper))
    assert r.check == "LogUp sum", r.error_message


def test_a_direct_weight_other_than_the_displayed_one_is_rejected():
    """x (1, K) @ w reads every weight once: the Dot takes its lanes' weights straight from the
    verifier's terms. A row that multiplies another weight (everything else kept consistent,
    the changed output claimed) finds no term to match."""
    cx = Graph()
    x = cx.input("x", (1, 32))
    (x @ cx.constant(W, "w")).output("y")
    feed = {"x": X["x"][:1]}
    settings, trace, proof = prove_graph(cx, feed)
    assert check(settings, proof).success
    k = next(i for i, p in enumerate(settings.plans) if p.kind.startswith("DotW"))
    assert "Known" not in [p.kind for p in settings.plans] or all(
        n != 1 for p in settings.plans if p.kind == "Known" for n in p.nodes
    )  # the weights have no known rows

    r = _forge_lane((cx, settings, trace, k), "b2", 256)
    assert r.check == "LogUp sum", r.error_message


def test_fused_and_unfused_proofs_attest_their_executors_outputs():
    """Both proofs verify and attest exactly their graph's fixed-point run, within the error bound of
    float64. The fused run is the correctly rounded sum of the quantized operands' products (one
    rounding per output), so it is never further from that exact sum than the unfused run (a
    rounding per product)."""
    outs = {}
    for fuse in (True, False):
        cx = _model(fuse)
        settings, trace, proof = prove_graph(cx, X)
        r = check(settings, proof)
        assert r.success, r.error_message
        exact = cx.run(X, exact=True)["y"]
        np.testing.assert_array_equal(np.array(r.outputs["y"]["values"]).reshape(exact.shape), exact)
        assert (np.abs(exact - cx.run(X)["y"]) <= error_bound(cx, X)["y"]).all()
        outs[fuse] = exact
    q = lambda a: np.floor(a * 1024 + 0.5)  # noqa: E731 - raw values at scale 10
    exact_sum = (q(X["x"]) @ q(W)) / 1024**2
    np.testing.assert_array_equal(outs[True], np.floor(exact_sum * 1024 + 0.5) / 1024)
    assert np.abs(outs[True] - exact_sum).max() <= 0.5 / 1024
    assert np.abs(outs[True] - exact_sum).max() <= np.abs(outs[False] - exact_sum).max()
    assert (outs[True] != outs[False]).any()  # the roundings do differ on this model


def _prove_small(build, feed):
    cx = Graph()
    build(cx)
    cx.compile(GenericCompiler(), StwoCompiler())
    settings, trace, proof = prove_graph(cx, feed)
    assert check(settings, proof).success
    return cx, settings, trace


RELU_FEED = {"x": np.linspace(-2, 2, 16).reshape(1, 16)}


@pytest.mark.parametrize("flip", ["positive shown as zero", "negative passed through"])
def test_a_relu_with_a_wrong_comparison_is_rejected(flip):
    """The fused Relu's sign flag flipped on one element (its output and the public output claim
    follow the flip): the sign's range check cannot hold."""
    cx, settings, trace = _prove_small(lambda g: g.input("x", (1, 16)).relu().output("y"), RELU_FEED)
    (k,) = [i for i, p in enumerate(settings.plans) if p.kind == "Relu"]
    x_raw = np.floor(RELU_FEED["x"][0] * 1024 + 0.5).astype(np.int64)
    row = int(np.flatnonzero(x_raw > 0)[0] if flip.startswith("positive") else np.flatnonzero(x_raw < 0)[0])

    def tamper(main):
        cols = main[k]
        cols["g"][row] = 1 - cols["g"][row]
        cols["out"][row] = cols["g"][row] * cols["x"][row]
        d = cols["g"][row] * (cols["x"][row] - 1) - (1 - cols["g"][row]) * cols["x"][row]
        cols["d_l0"][row], cols["d_l1"][row] = d & 255, (d >> 8) & 255  # the best a forger can do

    public = [list(v) for v in trace.public]
    x = int(x_raw[row])
    public[-1][row] = (0 if flip.startswith("positive") else x) % P
    r = check(settings, forge(cx, trace, settings, tamper, public=public))
    assert r.check == "OODS mismatch", r.error_message


def _bias_model(g):
    x = g.input("x", (1, 32))
    (x @ g.constant(W, "w") + g.constant(np.linspace(-1, 1, 3), "b")).output("y")


def test_a_dot_bias_other_than_the_graphs_is_rejected():
    """The Dot adds another bias than the one the graph's bias element yields (output claimed)."""
    cx, settings, trace = _prove_small(_bias_model, {"x": X["x"][:1]})
    (k,) = [i for i, p in enumerate(settings.plans) if p.kind.startswith("Dot")]
    assert settings.plans[k].component.bias

    last = np.flatnonzero(_dense(settings.plans[k].component, "last"))

    def edit(main):
        main["bias"] += 7
        main["out"][last] += 7
        for i in range(2):
            main[f"out_l{i}"][last] = ((main["out"][last] + (1 << 15)) >> (8 * i)) & 255

    r = _forge_consistently((cx, settings, trace, k), edit_after=edit)
    assert r.check == "LogUp sum", r.error_message


def test_a_dot_output_that_skips_its_bias_is_rejected():
    """The bias is read (and yielded data balances) but the output leaves it out."""
    cx, settings, trace = _prove_small(_bias_model, {"x": X["x"][:1]})
    (k,) = [i for i, p in enumerate(settings.plans) if p.kind.startswith("Dot")]
    last = np.flatnonzero(_dense(settings.plans[k].component, "last"))

    def edit(main):
        main["out"][last] -= main["bias"][last]
        for i in range(2):
            main[f"out_l{i}"][last] = ((main["out"][last] + (1 << 15)) >> (8 * i)) & 255

    r = _forge_consistently((cx, settings, trace, k), edit_after=edit)
    assert r.check == "OODS mismatch", r.error_message


def test_a_row_that_reads_padding_contributes_nothing():
    """x padded with a zero row, then @ w: the Dot rows of the padded output row read padding
    (in0_real = 0 on a real row). Honest: it proves and the padded row's outputs are 0. Forged:
    that row's lanes hold values whose products enter the sum (outputs claimed accordingly)."""

    def build(g):
        x = g.input("x", (3, 16))
        (x.pad(((0, 1), (0, 0))) @ g.constant(W[:16], "w")).output("y")

    cx, settings, trace = _prove_small(build, {"x": X["x"][:, :16].repeat(2, axis=0)[:3]})
    (k,) = [i for i, p in enumerate(settings.plans) if p.kind.startswith("Dot")]
    comp = settings.plans[k].component
    name = comp.name
    masked = np.flatnonzero((settings.topology[f"{name}.is_real"] == 1) & (settings.topology[f"{name}.in0_real"] == 0))
    assert len(masked) > 0 and not np.any(np.array(trace.public[-1][-2:]))

    def edit(main, x):
        main["a0"][masked] = 1024
        return _row_sums(main, comp)

    r = _forge_consistently((cx, settings, trace, k), edit_sums=edit)
    assert r.check == "OODS mismatch", r.error_message


def test_a_chunked_read_of_another_input_value_is_rejected(monkeypatch):
    """A Dot with enough rows reads a public input in whole known rows (one tuple of 8 values
    instead of 8 entries; the threshold is lowered here to keep the model small). Honest: it proves.
    Forged: a lane holds another input value (sums recomputed, outputs claimed): no known row
    yields that tuple."""
    from luminair.verifier.graph import topology

    monkeypatch.setattr(topology, "CHUNK_MIN_ROWS", 1)
    cx, settings, trace = _prove_small(
        lambda g: (g.input("x", (1, 32)) @ g.constant(W, "w")).output("y"), {"x": X["x"][:1]}
    )
    (k,) = [i for i, p in enumerate(settings.plans) if p.kind.startswith("Dot")]
    assert settings.plans[k].kind == "DotW16C"

    r = _forge_lane((cx, settings, trace, k), "a9", 64)
    assert r.check == "LogUp sum", r.error_message


def test_chunked_reads_need_enough_rows_and_whole_aligned_known_rows():
    from luminair.prover.air.graph_trace import build_spec

    def chunked(build):
        cx = Graph()
        build(cx)
        cx.compile(GenericCompiler(), StwoCompiler())
        return plan_graph(build_spec(cx)).chunked

    w = np.random.default_rng(3).uniform(-0.5, 0.5, (512, 512))
    big = chunked(lambda g: (g.input("x", (1, 512)) @ g.constant(w, "w")).output("y"))
    assert len(big) == 1  # 32 rows of 16 lanes for each of 512 outputs: 16384 rows
    small = chunked(lambda g: (g.input("x", (1, 512)) @ g.constant(w[:, :8], "w")).output("y"))
    assert small == set()  # 256 rows: not worth a component of its own
    shifted = chunked(lambda g: (g.input("x", (1, 520))[:, 2:514] @ g.constant(w, "w")).output("y"))
    assert shifted == set()  # rows start 2 elements into a known row (of KNOWN_LANES = 4)


def _conv(fuse: bool = True) -> Graph:
    rng = np.random.default_rng(21)
    cx = Graph()
    x = cx.input("x", (1, 3, 8, 8))
    G.conv2d(x, rng.uniform(-0.5, 0.5, (4, 3, 3, 3)), rng.uniform(-0.1, 0.1, 4), padding=1).output("y")
    cx.compile(GenericCompiler(), StwoCompiler(fuse=fuse))
    return cx


CONV_FEED = {"x": np.random.default_rng(22).uniform(0, 1, (1, 3, 8, 8))}


def test_a_short_reduction_is_padded_to_whole_rows_exactly():
    """A 3x3 convolution of 3 channels reduces 27 products: padded with zeros to 32 it takes two
    rows of 16 lanes per output instead of 27 rows of one, with the conv's bias folded in; the
    outputs are bit for bit those of the unpadded Dot (zero products add nothing)."""
    from luminair.prover.air.graph_trace import build_spec

    padded = _conv()
    spec = build_spec(padded)
    (d,) = [i for i, n in enumerate(spec.nodes) if n.op == "Dot"]
    assert plan_graph(spec).lanes[d] == 16 and len(spec.nodes[d].srcs) == 3
    assert spec.nodes[d].srcs[0][1][-1] == 32  # the materialized windows, padded
    exact = padded.run(CONV_FEED, exact=True)["y"]
    import luminair.prover.compile.fuse as fuse

    original = fuse._padded_length
    try:
        fuse._padded_length = lambda _g, _d: None
        unpadded = _conv()
    finally:
        fuse._padded_length = original
    assert [n.op for n in unpadded.nodes() if n.op.value == "Dot"] and plan_graph(build_spec(unpadded)).lanes.__getitem__(
        [n.id for n in unpadded.nodes() if n.op.value == "Dot"][0]) == 1
    np.testing.assert_array_equal(exact, unpadded.run(CONV_FEED, exact=True)["y"])
    settings, trace, proof = prove_graph(padded, CONV_FEED)
    r = check(settings, proof)
    assert r.success, r.error_message
    np.testing.assert_array_equal(np.array(r.outputs["y"]["values"]).reshape(exact.shape), exact)


def test_a_padding_lane_that_is_not_zero_is_rejected():
    """The materialized, padded windows: a padding element yielded as 1.0 instead of 0 (the Dot's
    sums and outputs follow it): the Contiguous row reading padding must hold 0."""
    cx = _conv()
    settings, trace, proof = prove_graph(cx, CONV_FEED)
    (k,) = [i for i, p in enumerate(settings.plans) if p.kind == "Contiguous" and any(
        cx.node(n).shape[-1] == 32 for n in p.nodes)]
    name = settings.plans[k].component.name
    topo = settings.topology
    row = int(np.flatnonzero((topo[f"{name}.is_real"] == 1) & (topo[f"{name}.in0_real"] == 0))[0])

    def tamper(main):
        main[k]["v"][row] = 1024

    r = check(settings, forge(cx, trace, settings, tamper))
    assert not r.success and r.check in ("OODS mismatch", "LogUp sum"), r.error_message


def test_weights_read_many_times_are_re_laid_out_and_read_whole(monkeypatch):
    """A batch of two reads every weight twice (no direct reads): the compiler re-lays the weight
    matrix out so the reduced axis is contiguous, and the Dot reads 8 weights per lookup from the
    known rows (the threshold is lowered to keep the model small). Honest: it proves, with the
    same outputs as without the re-layout. Forged: a lane holds another weight: rejected."""
    from luminair.verifier.graph import topology

    monkeypatch.setattr(topology, "CHUNK_MIN_ROWS", 1)
    feed = {"x": X["x"][:, :16]}
    cx, settings, trace = _prove_small(
        lambda g: (g.input("x", (2, 16)) @ g.constant(W[:16], "w")).output("y"), feed
    )
    (k,) = [i for i, p in enumerate(settings.plans) if p.kind.startswith("Dot")]
    assert settings.plans[k].kind == "Dot16CD", settings.plans[k].kind
    monkeypatch.setattr(topology, "CHUNK_MIN_ROWS", 1 << 30)
    plain = Graph()
    (plain.input("x", (2, 16)) @ plain.constant(W[:16], "w")).output("y")
    plain.compile(GenericCompiler(), StwoCompiler())
    np.testing.assert_array_equal(cx.run(feed, exact=True)["y"], plain.run(feed, exact=True)["y"])
    monkeypatch.setattr(topology, "CHUNK_MIN_ROWS", 1)

    r = _forge_lane((cx, settings, trace, k), "b4", 64)
    assert r.check == "LogUp sum", r.error_message


def test_a_fused_exp_off_its_table_is_rejected():
    """The fused Exp row claims e^x one unit more than the exp table (output claimed): the
    lookup finds no table row."""
    def build(g):
        G.softmax(g.input("x", (1, 8)), 1).output("p")

    cx, settings, trace = _prove_small(build, {"x": np.linspace(-2, 2, 8).reshape(1, 8)})
    (k,) = [i for i, p in enumerate(settings.plans) if p.kind == "Exp"]

    def tamper(main):
        main[k]["y"][0] += 1

    r = check(settings, forge(cx, trace, settings, tamper))
    assert not r.success and r.check in ("LogUp sum", "OODS mismatch"), r.error_message
