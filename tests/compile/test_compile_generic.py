"""Compilers in Luminal's style: run, compile, run again, outputs unchanged (both executors), plus
a structural check per pass (nodes merged, removed, folded, simplified)."""

import numpy as np
import pytest

from luminair.prover import (
    BoundsError, CompileError, GenericCompiler, Graph, GraphError, Looped, NumericFormat, Op, StwoCompiler,
)
from luminair.prover import graph as G
from luminair.prover.compile import CSE, ArithmeticSimplify, ConstantFold, RemoveUnused, Sequence


def mlp(rng):
    cx = Graph()
    x = cx.input("x", (2, 8))
    h = G.relu(G.linear(x, rng.uniform(-0.4, 0.4, (8, 8)), rng.uniform(-0.2, 0.2, 8)))
    G.softmax(G.linear(h, rng.uniform(-0.4, 0.4, (3, 8))), -1).output("y")
    return cx, {"x": rng.uniform(-1, 1, (2, 8))}


def cnn(rng):
    cx = Graph()
    x = cx.input("img", (1, 2, 6, 6))
    h = G.relu(G.conv2d(x, rng.uniform(-0.5, 0.5, (3, 2, 3, 3)), rng.uniform(-0.1, 0.1, 3), padding=1))
    h = G.max_pool2d(h, 2)
    G.avg_pool2d(h, 3, 1, 1, count_include_pad=False).flatten(1).output("y")
    return cx, {"img": rng.uniform(-1, 1, (1, 2, 6, 6))}


def attention(rng):
    cx = Graph()
    x = cx.input("x", (4, 6))
    q, k, v = (x @ rng.uniform(-0.5, 0.5, (6, 6)) for _ in range(3))
    att = G.softmax(G.mul_const(q @ k.T, 1 / np.sqrt(6)), -1)
    out = G.layer_norm(att @ v + x, -1, eps=1e-2)
    out.output("y")
    G.argmax(out, 1).output("idx")
    return cx, {"x": rng.uniform(-1, 1, (4, 6))}


def constants_heavy(rng):
    cx = Graph()
    x = cx.input("x", (3,))
    a = cx.constant([0.3, 0.7, -1.1], "a")
    b = cx.constant([0.7, 0.3, 0.9], "b")
    folded = G.exp(a * b) + a.recip() - (b * 2.0).sqrt()  # a constant-only subgraph
    ((x * 1.0 + 0.0) * folded + -(-x)).output("y")
    (x * 0.0 + x.contiguous()).output("z")
    return cx, {"x": rng.uniform(-1, 1, 3)}


MODELS = {"mlp": mlp, "cnn": cnn, "attention": attention, "constants": constants_heavy}
SHRINKS = {"attention", "constants"}  # the others have no duplicate, dead or foldable nodes


@pytest.mark.parametrize("name", list(MODELS))
def test_run_compile_run_gives_identical_outputs_in_float_and_fixed_point(rng, name):
    cx, feed = MODELS[name](rng)
    before_f, before_x = cx.run(feed), cx.run(feed, exact=True)
    n_before = len(cx.nodes())
    cx.compile(GenericCompiler())
    after_f, after_x = cx.run(feed), cx.run(feed, exact=True)
    for k in before_f:
        np.testing.assert_array_equal(after_f[k], before_f[k])
        np.testing.assert_array_equal(after_x[k], before_x[k])
    assert len(cx.nodes()) < n_before if name in SHRINKS else len(cx.nodes()) == n_before
    n_generic = len(cx.nodes())
    cx.compile(StwoCompiler(fuse=False))  # only adds Contiguous nodes for views the AIR cannot address
    contiguous = sum(n.op is G.Op.CONTIGUOUS for n in cx.nodes())
    assert n_generic <= len(cx.nodes()) <= n_generic + contiguous
    for k in before_f:
        np.testing.assert_array_equal(cx.run(feed, exact=True)[k], before_x[k])
    assert [n.id for n in cx.nodes()] == list(range(len(cx.nodes())))
    cx.compile(GenericCompiler())  # already at a fixed point: nothing changes
    assert cx.run(feed, exact=True).keys() == before_x.keys()


def test_cse_merges_duplicate_subgraphs(rng):
    cx = Graph()
    x = cx.input("x", (2, 3))
    a = G.sigmoid(x * 2.0 + 1.0)
    b = G.sigmoid(x * 2.0 + 1.0)  # the same computation built twice
    c = (1.0 + 2.0 * x)  # commutative operands in the other order
    a.output("a")
    b.output("b")
    c.output("c")
    n_before = len(cx.nodes())
    cx.compile(CSE())
    assert a.node is b.node  # handles now share one node
    assert len(cx.nodes()) <= n_before // 2 + 2
    muls = [n for n in cx.nodes() if n.op is Op.MUL and any(s.op is Op.INPUT for s, _ in n.srcs)]
    assert len(muls) == 1  # x * 2, shared by a, b and c
    outs = cx.outputs()
    assert outs["a"][0] is outs["b"][0]
    feed = {"x": rng.uniform(-1, 1, (2, 3))}
    out = cx.run(feed)
    np.testing.assert_array_equal(out["a"], out["b"])


def test_dead_nodes_are_removed_but_inputs_stay():
    cx = Graph()
    x = cx.input("x", (2,))
    unused_input = cx.input("unused", (2,))
    dead = G.exp(x) * 3.0  # never an output
    (x + 1.0).output("y")
    dead_ops = {dead.node.op}
    assert len(cx.nodes()) > 4
    cx.compile(RemoveUnused())
    assert [n.op for n in cx.nodes()] == [Op.INPUT, Op.INPUT, Op.CONSTANT, Op.ADD]
    assert cx.inputs()["unused"] is cx.nodes()[1]
    assert dead_ops == {Op.MUL}
    with pytest.raises(GraphError, match="removed by compilation"):
        dead.node
    with pytest.raises(GraphError, match="removed by compilation"):
        dead + 1.0
    assert unused_input.node.op is Op.INPUT


def test_constant_folding_keeps_exact_fixed_point_results():
    cx = Graph()
    x = cx.input("x", (2,))
    a = cx.constant([0.3, 0.1], "a")
    b = cx.constant([0.7, 0.9], "b")
    prod = a * b  # in fixed point: round(307*717/1024) = 215, but quantize(0.21) = 215.04 -> 215
    r = (a * 3.3).recip()  # exact recip of the rounded product differs from quantize(1/0.99)
    y = (x * prod + r).output("y")
    feed = {"x": np.array([0.5, -0.25])}
    before = cx.run(feed, exact=True)["y"]
    before_f = cx.run(feed)["y"]
    cx.compile(ConstantFold())
    consts = [n for n in cx.nodes() if n.op is Op.CONSTANT]
    assert [n.op for n in cx.nodes() if n.op is not Op.CONSTANT] == [Op.INPUT, Op.MUL, Op.ADD]
    folded = [n for n in consts if n.raw is not None]
    assert folded, "a folded constant whose exact value differs from quantize(value) keeps raw"
    for n in folded:
        assert n.raw_scale == 10 and not np.array_equal(np.floor(n.value * 1024 + 0.5), n.raw)
    np.testing.assert_array_equal(cx.run(feed, exact=True)["y"], before)
    np.testing.assert_array_equal(cx.run(feed)["y"], before_f)
    assert y.node.op is Op.ADD
    cx.numeric_format = NumericFormat(8)
    with pytest.raises(BoundsError, match="folded in fixed point at scale 2\\^10"):
        cx.run(feed, exact=True)


def test_folding_is_skipped_where_the_exact_result_would_fail():
    cx = Graph()
    x = cx.input("x", (1,))
    zero = cx.constant([0.0])
    (x + zero.recip() * 0.0).output("y")  # recip(0) cannot be folded
    cx.compile(ConstantFold())
    assert any(n.op is Op.RECIP for n in cx.nodes())


def test_arithmetic_simplification_rules():
    cx = Graph()
    x = cx.input("x", (3,))
    (x * 1.0).output("mul_one")
    (x + 0.0).output("add_zero")
    (-(-x)).output("double_neg")
    (x - x).output("x_minus_x")
    (x * 0.0).output("mul_zero")
    x.T.contiguous().contiguous().output("copies")
    (x < x).output("lt_self")
    x.reshape(3, 1).sum_reduce(1).output("sum_one")
    cx.compile(GenericCompiler())
    ops = [n.op for n in cx.nodes()]
    assert ops.count(Op.MUL) == 0 and ops.count(Op.ADD) == 0 and ops.count(Op.LESS_THAN) == 0
    assert ops.count(Op.SUM_REDUCE) == 0 and ops.count(Op.CONTIGUOUS) <= 1
    outs = cx.outputs()
    for name in ("mul_one", "add_zero", "double_neg", "sum_one"):
        assert outs[name][0].op is Op.INPUT, name
    feed = {"x": np.array([1.5, -2.0, 0.25])}
    for exact in (False, True):
        out = cx.run(feed, exact=exact)
        np.testing.assert_array_equal(out["mul_one"], feed["x"])
        np.testing.assert_array_equal(out["double_neg"], feed["x"])
        np.testing.assert_array_equal(out["x_minus_x"], np.zeros(3))
        np.testing.assert_array_equal(out["mul_zero"], np.zeros(3))
        np.testing.assert_array_equal(out["lt_self"], np.zeros(3))


def test_handles_stay_valid_after_rewrites(rng):
    cx = Graph()
    x = cx.input("x", (2, 2))
    h1 = x * 2.0
    h2 = x * 2.0  # merged into h1's node by CSE
    y = (h1 + h2).output("y")
    cx.compile(GenericCompiler())
    assert h1.node is h2.node and h1.node in cx.nodes()
    assert y.node is cx.outputs()["y"][0]
    # keep building on old handles after compiling
    (h2 * 0.5).output("half")
    (y + 1.0).output("z")
    feed = {"x": rng.uniform(-1, 1, (2, 2))}
    out = cx.run(feed)
    np.testing.assert_allclose(out["half"], feed["x"])
    np.testing.assert_allclose(out["z"], 4 * feed["x"] + 1)


def test_user_compilers_in_tuples_run_in_order():
    order = []

    class Recorder:
        def __init__(self, tag):
            self.tag = tag

        def compile(self, graph):
            order.append((self.tag, len(graph.nodes())))

    cx = Graph()
    x = cx.input("x", (2,))
    (x * 1.0 * 1.0).output("y")
    cx.compile(Recorder("a"), (Recorder("b"), (GenericCompiler(), Recorder("c"))), Sequence(Recorder("d")))
    assert [t for t, _ in order] == ["a", "b", "c", "d"]
    assert order[0][1] > order[2][1]  # c ran after GenericCompiler shrank the graph
    with pytest.raises(CompileError, match="is not a compiler"):
        cx.compile(object())


def test_a_user_rewrite_replaces_nodes_through_transform(rng):
    """A user compiler that swaps every Exp2 for a pure-Mul approximation (a custom lowering)."""

    class Exp2ToTaylor:
        def compile(self, graph):
            def rule(node):
                if node.op is Op.EXP2:
                    t = graph.tensor(*node.srcs[0]) * 0.6931471805599453
                    return 1.0 + t + t * t * 0.5
                return None

            return graph.transform(rule)

    cx = Graph()
    x = cx.input("x", (4,))
    y = x.exp2().output("y")
    cx.compile(Exp2ToTaylor())
    assert all(n.op is not Op.EXP2 for n in cx.nodes())
    xv = rng.uniform(-0.1, 0.1, 4)
    t = xv * np.log(2)
    np.testing.assert_allclose(cx.run({"x": xv})["y"], 1 + t + t * t / 2)
    assert y.node is cx.outputs()["y"][0]


def test_transform_rejects_rewrites_that_change_shapes():
    cx = Graph()
    x = cx.input("x", (2, 3))
    x.exp2().output("y")

    class Bad:
        def compile(self, graph):
            return graph.transform(lambda n: graph.tensor(*n.srcs[0]).sum_reduce(0) if n.op is Op.EXP2 else None)

    with pytest.raises(CompileError, match=r"returned shape \(3,\), expected \(2, 3\)"):
        cx.compile(Bad())


def test_looped_runs_to_a_fixed_point_and_reports_non_convergence():
    cx = Graph()
    x = cx.input("x", (2,))
    (((x * 1.0) * 1.0) * 1.0).output("y")
    loop = Looped(ArithmeticSimplify(), RemoveUnused())
    cx.compile(loop)
    assert [n.op for n in cx.nodes()] == [Op.INPUT]
    assert loop.rounds >= 2

    class Grow:
        def compile(self, graph):
            graph.constant(1.0)

    with pytest.raises(CompileError, match="did not reach a fixed point"):
        cx.compile(Looped(Grow(), max_rounds=3))
