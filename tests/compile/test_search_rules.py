"""Every exact rule of the search compiler (search_rules.py), checked bit for bit on the fixed-point
executor: its left side and its right side, built as graphs, give the same raw values on random
inputs (hypothesis); and the search, given the left side, keeps the outputs."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from luminair.prover import GenericCompiler, Graph, Op, SearchCompiler, ShapeTracker, StwoCompiler
from luminair.prover.compile.search_rules import MONOTONE, RULES, ZERO_TO_ZERO
from luminair.verifier.numeric import VALUE_MAX, VALUE_MIN

S = 10  # the default scale: raw = real * 2^10
SHAPE = (3, 4)
PADDED = ShapeTracker(SHAPE).pad(((1, 0), (0, 2))).permute((1, 0))  # (6, 4), reads zeros
UNPADDED = ShapeTracker(SHAPE).permute((1, 0)).slice(((0, 4, 1), (0, 3, 2)))  # (4, 2)
# raw inputs each op accepts, its result in range (exp2(4) = 16, e^3 < 21, |1/x| <= 32, ...)
DOMAIN = {"Relu": (VALUE_MIN, VALUE_MAX), "Sqrt": (0, VALUE_MAX), "Sin": (VALUE_MIN + 1, VALUE_MAX),
          "Exp2": (-8 << S, 4 << S), "Exp": (-8 << S, 3 << S), "Log2": (1, VALUE_MAX), "Recip": (33, VALUE_MAX)}
SETTINGS = settings(max_examples=40, deadline=None)


def raws(lo: int = VALUE_MIN, hi: int = VALUE_MAX, n: int = 12) -> st.SearchStrategy:
    return st.lists(st.integers(lo, hi), min_size=n, max_size=n).map(lambda v: np.array(v).reshape(SHAPE) / (1 << S))


def _exact(g: Graph, feed: dict) -> np.ndarray:
    return g.run(feed, exact=True)["out"]


def _unary(g: Graph, op: Op, node, view: ShapeTracker | None = None):
    view = view or ShapeTracker(node.shape)
    return g.add_node(op, [(node, view)], view.shape)


def _graph(build) -> Graph:
    g = Graph(scale_bits=S)
    x = g.input("x", SHAPE)
    g.tensor(build(g, x.node)).output("out")
    return g


def test_every_rule_says_why_it_holds():
    assert {r.name for r in RULES} >= {"commute", "dot", "dot+bias", "relu", "exp", "mask fold", "max reassociate",
                                       "copy after op",
                                       "max before op"}
    assert all(len(r.why) > 40 and r.text.strip() for r in RULES)


@SETTINGS
@given(raws(-(1 << 12), 1 << 12), raws(-(1 << 12), 1 << 12))
def test_commute_is_exact(a, b):
    for op in (Op.ADD, Op.MUL):
        def lhs(g, x, op=op):
            c = g.constant(b).node
            return g.add_node(op, [(x, ShapeTracker(SHAPE)), (c, ShapeTracker(SHAPE))], SHAPE)

        def rhs(g, x, op=op):
            c = g.constant(b).node
            return g.add_node(op, [(c, ShapeTracker(SHAPE)), (x, ShapeTracker(SHAPE))], SHAPE)
        assert np.array_equal(_exact(_graph(lhs), {"x": a}), _exact(_graph(rhs), {"x": a}))


@SETTINGS
@given(raws())
def test_relu_is_x_times_zero_less_than_x(x):
    def lhs(g, n):
        return (g.tensor(n) * (g.tensor(n)._lift(0.0) < g.tensor(n))).node

    def rhs(g, n):
        return _unary(g, Op.RELU, n)

    assert np.array_equal(_exact(_graph(lhs), {"x": x}), _exact(_graph(rhs), {"x": x}))


@SETTINGS
@given(raws(-(1 << 12), 1 << 12), st.integers(-(1 << 12), 1 << 12), st.lists(st.booleans(), min_size=4, max_size=4))
def test_mask_fold_is_exact(x, k_raw, keep):
    """(inputs where the left side is defined: x * k in range; where it is not, the folded side
    still gives 0 under a 0 of the mask, as any fusion that skips an intermediate)"""
    k = k_raw / (1 << S)
    mask = np.array(keep, dtype=np.float64)  # one mask row, broadcast over the rows

    def lhs(g, n):
        return ((g.tensor(n) * k) * g.constant(mask)).node

    def rhs(g, n):
        return (g.tensor(n) * g.constant(mask * k)).node

    assert np.array_equal(_exact(_graph(lhs), {"x": x}), _exact(_graph(rhs), {"x": x}))
    g = _graph(lhs)
    search = SearchCompiler()
    g.compile(search)
    assert search.report.rule_matches.get("mask fold") == 1
    assert [n.op for n in g.nodes()].count(Op.MUL) == 1
    assert np.array_equal(_exact(g, {"x": x}), _exact(_graph(lhs), {"x": x}))


def _domain_raws(op: str) -> st.SearchStrategy:
    return raws(*DOMAIN[op])


@SETTINGS
@given(st.data())
def test_copy_after_an_elementwise_op_is_exact(data):
    for name in DOMAIN:
        op = getattr(Op, {"Exp2": "EXP2", "Log2": "LOG2"}.get(name, name.upper()))
        x = data.draw(_domain_raws(name))
        for view in (PADDED, UNPADDED) if name in ZERO_TO_ZERO else (UNPADDED,):
            def lhs(g, n, op=op, view=view):
                return _unary(g, Op.CONTIGUOUS, _unary(g, op, n), view)

            def rhs(g, n, op=op, view=view):
                return _unary(g, op, _unary(g, Op.CONTIGUOUS, n, view))

            assert np.array_equal(_exact(_graph(lhs), {"x": x}), _exact(_graph(rhs), {"x": x})), (name, view)


@SETTINGS
@given(st.data())
def test_max_before_a_monotone_op_is_exact(data):
    for name in MONOTONE:
        op = getattr(Op, {"Exp2": "EXP2"}.get(name, name.upper()))
        x = data.draw(_domain_raws(name))
        for view in (PADDED, UNPADDED) if name in ZERO_TO_ZERO else (UNPADDED,):
            def lhs(g, n, op=op, view=view):
                y = _unary(g, op, n)
                return g.add_node(Op.MAX_REDUCE, [(y, view)], view.shape[:1], axis=1)

            def rhs(g, n, op=op, view=view):
                m = g.add_node(Op.MAX_REDUCE, [(n, view)], view.shape[:1], axis=1)
                return _unary(g, op, m)

            assert np.array_equal(_exact(_graph(lhs), {"x": x}), _exact(_graph(rhs), {"x": x})), (name, view)


@SETTINGS
@given(raws(-(1 << 11), 1 << 11), raws(-(1 << 11), 1 << 11), raws(-(1 << 13), 1 << 13))
def test_dot_plus_bias_is_the_dot_with_the_bias(a, b, c):
    full = ShapeTracker(SHAPE)

    def dot(g, n):
        return g.add_node(Op.DOT, [(n, full), (g.constant(b).node, full)], (3,), axis=1)

    def lhs(g, n):
        d = dot(g, n)
        return g.add_node(Op.ADD, [(d, ShapeTracker((3,)).reshape((3, 1))), (g.constant(c[:, :1]).node, ShapeTracker((3, 1)))],
                          (3, 1))

    def rhs(g, n):
        bias = g.constant(c[:, :1]).node
        d = g.add_node(Op.DOT, [(n, full), (g.constant(b).node, full), (bias, ShapeTracker((3, 1)).reshape((3,)))],
                       (3,), axis=1)
        return g.add_node(Op.CONTIGUOUS, [(d, ShapeTracker((3,)).reshape((3, 1)))], (3, 1))

    assert np.array_equal(_exact(_graph(lhs), {"x": a}), _exact(_graph(rhs), {"x": a}))


@SETTINGS
@given(raws(0, 4 << S), st.data())
def test_the_search_keeps_exact_outputs_when_it_moves_relu_past_copies_and_a_max(x, data):
    """relu(x) read through a permuting, padding view and max-reduced: the search moves relu
    after the max (fewer comparisons); raw outputs are unchanged."""
    x = x - data.draw(st.floats(0, 2))

    def build(g, n):
        r = (g.tensor(n) * (g.tensor(n)._lift(0.0) < g.tensor(n))).node
        return g.add_node(Op.MAX_REDUCE, [(r, PADDED)], (6,), axis=1)

    plain = _graph(build)
    plain.compile(GenericCompiler(), StwoCompiler(search=False))
    searched = _graph(build)
    stwo = StwoCompiler()
    searched.compile(GenericCompiler(), stwo)
    assert stwo.search_report.rewrites == {"MaxReduce -> Relu": 1}
    assert np.array_equal(_exact(plain, {"x": x}), _exact(searched, {"x": x}))


@SETTINGS
@given(raws())
def test_max_reassociation_is_exact(x):
    """max over axis 1 of the max over axis 0 (3, 4) -> () equals the other order; on the
    unpadded and padded views too (padding reads 0, the same on both sides)."""
    for view in (ShapeTracker(SHAPE), PADDED):
        def lhs(g, n, view=view):
            m = g.add_node(Op.MAX_REDUCE, [(n, view)], view.shape[1:], axis=0)
            return g.add_node(Op.MAX_REDUCE, [(m, ShapeTracker(view.shape[1:]))], (), axis=0)

        def rhs(g, n, view=view):
            m = g.add_node(Op.MAX_REDUCE, [(n, view)], view.shape[:1], axis=1)
            return g.add_node(Op.MAX_REDUCE, [(m, ShapeTracker(view.shape[:1]))], (), axis=0)

        assert np.array_equal(_exact(_graph(lhs), {"x": x}), _exact(_graph(rhs), {"x": x}))
