"""Recip and Sqrt in one component when a graph has both (statement.MERGED_KINDS): the selector q is
derived from the graph, each row keeps its op's equation and ranges, and forgeries of either op or
of the selector are rejected."""

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler

from proving_helpers import check, forge, prove_exact, with_selector


@pytest.fixture(scope="module")
def case():
    """1 / sqrt(v) (a layer norm's scale) and 1 / x on other values: Sqrt and Recip rows."""
    rng = np.random.default_rng(8)
    cx = Graph()
    v = cx.input("v", (3, 5))
    x = cx.input("x", (2, 6))
    v.sqrt().recip().output("r")
    x.recip().output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = {"v": rng.uniform(0.2, 9, (3, 5)), "x": rng.uniform(-3, 3, (2, 6))}
    feed["x"][np.abs(feed["x"]) < 0.25] = 0.5
    settings, trace = prove_exact(cx, feed, ("r", "y"))
    names = [p.component.name for p in settings.plans]
    assert "recipsqrt" in names and "recip" not in names and "sqrt" not in names, names
    k = names.index("recipsqrt")
    plan = settings.plans[k]
    ops = [settings.spec.nodes[s.node].op for s in plan.segments]
    assert sorted(ops) == ["Recip", "Recip", "Sqrt"], ops
    sqrt_row = next(s.start for s in plan.segments if settings.spec.nodes[s.node].op == "Sqrt")
    recip_row = next(s.start for s in plan.segments if settings.spec.nodes[s.node].op == "Recip")
    return cx, settings, trace, k, sqrt_row, recip_row


def _limbs(cols, prefix, bits, v):
    for i in range((bits + 7) // 8):
        cols[f"{prefix}_l{i}"] = (v >> (8 * i)) & 255


def _forge(case, edit):
    """edit(cols) changes out (and neg) on some rows; rem and every limb follow the row's own
    equation, as a cheating prover would write them."""
    cx, settings, trace, k, *_ = case
    s = settings.spec.scale_bits

    def tamper(main):
        cols = main[k]
        edit(cols)
        q = np.zeros_like(cols["x"])
        plan = settings.plans[k]
        for seg in plan.segments:
            if settings.spec.nodes[seg.node].op == "Sqrt":
                q[seg.start : seg.start + seg.rows] = 1
        x, out, neg = cols["x"], cols["out"], cols["neg"]
        xabs = np.abs(x)
        cols["rem"] = np.where(q == 1, (x << s) - out * out, (1 << (2 * s)) - out * x)
        rem = cols["rem"]
        _limbs(cols, "a", 15, np.where(q == 1, x, xabs - 1))
        _limbs(cols, "b", 15, np.where(q == 1, out, rem))
        _limbs(cols, "c", 16, np.where(q == 1, rem, xabs - 1 - rem))
        _limbs(cols, "d", 16, np.where(q == 1, 2 * out - rem, out + (1 << 15)))
        assert np.array_equal(neg, (x < 0) & (q == 0))

    return check(settings, forge(cx, trace, settings, tamper))


def test_honest_forger_baseline(case):
    assert _forge(case, lambda cols: None).success


def test_a_wrong_square_root_is_rejected(case):
    *_, sqrt_row, _ = case

    def edit(cols):
        cols["out"][sqrt_row] += 1

    r = _forge(case, edit)
    assert not r.success and r.check in ("LogUp sum", "OODS mismatch"), r.error_message


def test_a_wrong_reciprocal_is_rejected(case):
    *_, recip_row = case

    def edit(cols):
        cols["out"][recip_row] -= 1

    r = _forge(case, edit)
    assert not r.success and r.check in ("LogUp sum", "OODS mismatch"), r.error_message


def test_a_selector_other_than_the_graphs_is_rejected(case):
    """q flipped on a Sqrt row (so that row would be checked as a Recip): the verifier derives q
    from the graph, and the topology's difference constraint fails."""
    cx, settings, trace, k, sqrt_row, _ = case
    r = with_selector(cx, trace, settings, k, sqrt_row, 0)
    assert not r.success and r.check == "OODS mismatch", r.error_message
