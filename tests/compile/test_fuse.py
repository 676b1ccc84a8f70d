"""FuseOpCompiler: which patterns fuse, which do not, and the lane counts the verifier derives."""

import numpy as np
import pytest

from luminair.prover import FuseOpCompiler, GenericCompiler, Graph, Op, StwoCompiler
from luminair.prover import graph as G
from luminair.prover.air.graph_trace import build_spec
from luminair.prover.graph.error_bound import error_bound
from luminair.verifier.graph.planner import plan_graph


def _ops(cx):
    return [n.op for n in cx.nodes()]


def _lanes(cx):
    spec = build_spec(cx)
    return [plan_graph(spec).lanes[i] for i, n in enumerate(spec.nodes) if n.op == "Dot"]


def test_every_matmul_of_an_mlp_becomes_one_dot(rng, dots_only):
    cx = Graph()
    x = cx.input("x", (1, 12))
    h = (x @ cx.constant(rng.uniform(-1, 1, (12, 8)), "w1") + cx.constant(np.zeros(8) + 0.1, "b1")).relu()
    (h @ cx.constant(rng.uniform(-1, 1, (8, 3)), "w2")).output("y")
    stwo = StwoCompiler()
    cx.compile(GenericCompiler(), stwo)
    assert stwo.fused == {"Dot": 2, "Dot+bias": 1, "Relu": 1, "Dot padded": 1}
    assert Op.SUM_REDUCE not in _ops(cx) and _ops(cx).count(Op.DOT) == 2
    assert Op.MUL not in _ops(cx) and Op.LESS_THAN not in _ops(cx) and Op.ADD not in _ops(cx)
    dots = [n for n in cx.nodes() if n.op is Op.DOT]
    assert all(n.srcs[1][0].op is Op.CONSTANT for n in dots)  # weights second
    assert [len(n.srcs) for n in dots] == [3, 2]  # the first layer's bias is in its Dot
    assert _lanes(cx) == [16, 8]  # K = 12 padded to 16 (one row instead of three), K = 8
    feed = {"x": rng.uniform(-1, 1, (1, 12))}
    bound = error_bound(cx, feed)["y"]
    assert (np.abs(cx.run(feed, exact=True)["y"] - cx.run(feed)["y"]) <= bound).all()


def test_weights_on_the_left_are_moved_to_the_second_operand(rng):
    cx = Graph()
    x = cx.input("x", (4, 2))
    (cx.constant(rng.uniform(-1, 1, (3, 4)), "w") @ x).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    (dot,) = [n for n in cx.nodes() if n.op is Op.DOT]
    assert dot.srcs[0][0].op is Op.INPUT and dot.srcs[1][0].op is Op.CONSTANT


def test_a_product_read_elsewhere_or_shown_as_an_output_is_not_fused(rng):
    cx = Graph()
    x = cx.input("x", (2, 4))
    w = cx.constant(rng.uniform(-1, 1, (2, 4)), "w")
    p = x * w
    p.sum_reduce(1).output("s")
    p.max_reduce(1).output("m")  # a second reader of the products
    cx.compile(GenericCompiler(), StwoCompiler())
    assert Op.DOT not in _ops(cx)

    cx2 = Graph()
    x2 = cx2.input("x", (2, 4))
    p2 = x2 * cx2.constant(rng.uniform(-1, 1, (2, 4)), "w")
    p2.output("p")
    p2.sum_reduce(1).output("s")
    cx2.compile(GenericCompiler(), StwoCompiler())
    assert Op.DOT not in _ops(cx2)


def test_fuse_false_keeps_every_primitive(rng):
    cx = Graph()
    x = cx.input("x", (1, 8))
    (x @ cx.constant(rng.uniform(-1, 1, (8, 2)), "w")).output("y")
    cx.compile(GenericCompiler(), StwoCompiler(fuse=False))
    assert Op.DOT not in _ops(cx) and Op.SUM_REDUCE in _ops(cx)


def test_fusing_twice_changes_nothing(rng):
    cx = Graph()
    x = cx.input("x", (1, 8))
    (x @ cx.constant(rng.uniform(-1, 1, (8, 2)), "w")).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    before = repr(cx.nodes())
    assert FuseOpCompiler().compile(cx) is False and repr(cx.nodes()) == before


@pytest.mark.parametrize(
    "k, w_max, lanes",
    [
        (32, 0.9, 16),  # 16 * 922 * 2^15 < P - 2^29
        (32, 2.9, 16),  # 16 * 2970 * 2^15 = 1.56e9 still fits
        (32, 5.0, 8),   # 16 * 5120 * 2^15 does not; 8 lanes do
        (32, 31.0, 1),  # 2 * 31744 * 2^15 = 2.08e9 does not fit: one product a row
        (12, 0.5, 16),  # padded with zeros to 16: one row instead of three
        (6, 0.5, 2),
        (7, 0.5, 1),
    ],
)
def test_lanes_follow_the_weights_bound_and_the_reduced_length(k, w_max, lanes, dots_only):
    cx = Graph()
    x = cx.input("x", (1, k))
    w = np.full((k, 2), 0.25)
    w[0, 0] = w_max
    (x @ cx.constant(w, "w")).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    assert _lanes(cx) == [lanes]


def test_a_product_of_two_activations_gets_one_lane(rng):
    cx = Graph()
    x = cx.input("x", (2, 16))
    (x * x).sum_reduce(1).output("sq")  # a sum of squares: any 16-bit value may meet any other
    q = cx.input("q", (4, 8))
    (q @ q.T).output("att")
    cx.compile(GenericCompiler(), StwoCompiler())
    assert _lanes(cx) == [1, 1]


def test_a_convolution_fuses_and_matches_its_float_reference(rng):
    cx = Graph()
    x = cx.input("x", (1, 3, 6, 6))
    G.conv2d(x, rng.uniform(-0.5, 0.5, (4, 3, 3, 3)), rng.uniform(-0.1, 0.1, 4), padding=1).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    assert Op.DOT in _ops(cx)
    feed = {"x": rng.uniform(0, 1, (1, 3, 6, 6))}
    bound = error_bound(cx, feed)["y"]
    assert (np.abs(cx.run(feed, exact=True)["y"] - cx.run(feed)["y"]) <= bound).all()


def _kinds(cx):

    spec = build_spec(cx)
    return [plan_graph(spec).kinds[i] for i, n in enumerate(spec.nodes) if n.op in ("Dot", "Constant")]


K_DOT = 1072


@pytest.fixture
def dots_only(monkeypatch):
    """The Dot's own weight paths (direct weights, known rows), as products the Freivalds check
    (graph/matmul.py) cannot serve are proven: the check switched off, for prover and verifier."""
    from luminair.prover.compile import fuse
    from luminair.verifier.graph import matmul

    monkeypatch.setattr(matmul, "mat_plan", lambda spec, index, lanes: None)
    monkeypatch.setattr(fuse, "_freivalds_serves", lambda graph, dot, k: False)  # so Dots are padded again


def test_freivalds_checked_weights_get_no_rows(rng):
    """x @ w with w read only as a checked product's weights: the verifier uses the values itself."""
    for batch in (1, 3):
        cx = Graph()
        (cx.input("x", (batch, 256)) @ cx.constant(rng.uniform(-1, 1, (256, 32)), "w")).output("y")
        cx.compile(GenericCompiler(), StwoCompiler())
        assert _kinds(cx) == ["Direct", "MatMul"]


def test_weights_read_once_by_one_dot_are_taken_directly(rng, dots_only):
    """x (1, K) @ w: every weight is read once, by that Dot alone: the Dot takes them from the
    verifier's own terms (DotW), and the constant gets no known rows (Direct)."""
    cx = Graph()
    x = cx.input("x", (1, K_DOT))
    (x @ cx.constant(rng.uniform(-1, 1, (K_DOT, 4)), "w")).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    assert _kinds(cx) == ["Direct", "DotW16"]


def test_weights_read_more_than_once_go_through_the_known_rows(rng, dots_only):
    w = rng.uniform(-1, 1, (K_DOT, 4))
    batched = Graph()  # a batch of two reads every weight twice (a stride-0 axis)
    (batched.input("x", (2, K_DOT)) @ batched.constant(w, "w")).output("y")
    shared = Graph()  # one weight matrix read by two matmuls
    c = shared.constant(w, "w")
    (shared.input("x", (1, K_DOT)) @ c).output("y")
    (shared.input("z", (1, K_DOT)) @ c).output("v")
    shown = Graph()  # a weight matrix that is also an output
    c2 = shown.constant(w, "w")
    (shown.input("x", (1, K_DOT)) @ c2).output("y")
    c2.output("w_out")
    for cx in (batched, shared, shown):
        cx.compile(GenericCompiler(), StwoCompiler())
        assert "Direct" not in _kinds(cx) and all(k in ("Known", "Dot16") for k in _kinds(cx)), _kinds(cx)


def test_exp_becomes_one_table_lookup_in_softmax_sigmoid_and_tanh(rng):
    """hl exp's exp2(x) * exp2(x (log2 e - 1)) becomes one Exp (the correctly rounded e^x table):
    within the error bound of float64, and no further from it than the two-lookup form."""
    def build(fuse):
        cx = Graph()
        x = cx.input("x", (2, 8))
        G.softmax(x, 1).output("p")
        G.sigmoid(x).output("s")
        G.tanh(x).output("t")
        stwo = StwoCompiler(fuse=fuse)
        cx.compile(GenericCompiler(), stwo)
        return cx, stwo

    fused, stwo = build(True)
    # softmax's exp and the one sigmoid and tanh share (CSE merged their e^-|x|)
    assert stwo.fused.get("Exp") == 2 and Op.EXP in _ops(fused) and Op.EXP2 not in _ops(fused)
    plain, _ = build(False)
    feed = {"x": rng.uniform(-3, 3, (2, 8))}
    bound = error_bound(fused, feed)
    exact, ref = fused.run(feed, exact=True), fused.run(feed)
    for k in ("p", "s", "t"):
        assert (np.abs(exact[k] - ref[k]) <= bound[k]).all(), k
    err = lambda cx: max(np.abs(cx.run(feed, exact=True)[k] - cx.run(feed)[k]).max() for k in ("p", "s", "t"))  # noqa: E731
    assert err(fused) <= err(plain)


def test_an_exp2_with_another_factor_is_not_fused(rng):
    cx = Graph()
    x = cx.input("x", (2, 8))
    (x.exp2() * (x * 0.25).exp2()).output("y")  # not e^x
    cx.compile(GenericCompiler(), StwoCompiler())
    assert Op.EXP not in _ops(cx)


def test_a_convolution_the_freivalds_check_serves_is_not_padded_and_pools_need_no_copies(rng):
    """K = 27 (3x3 over RGB) is padded to 32 only for a Dot: the check's rows hold two lanes at
    most, so the padded copy of the windows would only add rows. A 2x2 pool of stride 2 takes its
    windows as a view (a slice and a split of each axis): one copy (merging the window's two axes
    for the reduction) where overlapping windows need three."""

    cx = Graph()
    x = cx.input("x", (1, 3, 16, 16))
    y = G.conv2d(x, cx.constant(rng.uniform(-0.5, 0.5, (8, 3, 3, 3)), "k"), padding=1).relu()
    G.max_pool2d(y, 2).output("y")
    stwo = StwoCompiler()
    cx.compile(GenericCompiler(), stwo)
    assert "Dot padded" not in stwo.fused
    spec = build_spec(cx)
    kinds = [plan_graph(spec).kinds[i] for i in range(len(spec.nodes))]
    assert kinds.count("MatMul") == 1
    pool = next(i for i, n in enumerate(spec.nodes) if n.op == "MaxReduce")
    copy = spec.nodes[spec.nodes[pool].srcs[0][0]]
    assert copy.op == "Contiguous" and spec.nodes[copy.srcs[0][0]].op == "Relu"
    feed = {"x": rng.uniform(0, 1, (1, 3, 16, 16))}
    assert (np.abs(cx.run(feed, exact=True)["y"] - cx.run(feed)["y"]) <= error_bound(cx, feed)["y"]).all()
