"""SumReduce and MaxReduce in one component when a graph has both (statement.MERGED_KINDS,
softmax): the selector q is derived from the graph, each row keeps its recurrence and range, and
forged maxima, sums and selectors are rejected."""

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler

from proving_helpers import check, forge, prove_exact, with_selector


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(13)
    cx = Graph()
    x = cx.input("x", (4, 6))
    x.max_reduce(1).output("m")
    x.sum_reduce(1).output("s")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = {"x": rng.uniform(-2, 2, (4, 6))}
    settings, trace = prove_exact(cx, feed, ("m", "s"))
    names = [p.component.name for p in settings.plans]
    assert "sum_max_reduce" in names and "sum_reduce" not in names and "max_reduce" not in names, names
    k = names.index("sum_max_reduce")
    rows = {settings.spec.nodes[s.node].op: s for s in settings.plans[k].segments}
    assert sorted(rows) == ["MaxReduce", "SumReduce"]
    return cx, settings, trace, k, rows


def _forge(case, edit):
    """edit(cols) changes m / ge on some rows; t, g, w and the limbs follow, as a cheating prover
    would write them."""
    cx, settings, trace, k, rows = case
    comp = settings.plans[k].component
    n = 1 << comp.log_size
    first = np.zeros(n, dtype=np.int64)
    last = np.zeros(n, dtype=np.int64)
    first[list(comp.sparse_columns["first"])] = 1
    last[list(comp.sparse_columns["last"])] = 1
    q = np.zeros(n, dtype=np.int64)
    seg = rows["MaxReduce"]
    q[seg.start : seg.start + seg.rows] = 1

    def tamper(main):
        cols = main[k]
        edit(cols)
        x, m, ge = cols["x"], cols["m"], cols["ge"]
        prev = np.roll(m, 1)
        cols["t"] = (1 - ge) * (prev - x)
        cols["g"] = np.where(q == 1, 1 - first, last)
        cols["w"] = np.where(q == 1, (2 * ge - 1) * (x - prev) - (1 - ge), m + (1 << 15))
        w = np.where(cols["g"] == 1, cols["w"], 0)
        cols["w_l0"], cols["w_l1"] = w & 255, (w >> 8) & 255

    return check(settings, forge(cx, trace, settings, tamper))


def test_honest_forger_baseline(case):
    assert _forge(case, lambda cols: None).success


def test_a_max_that_drops_to_a_smaller_element_is_rejected(case):
    """On the first row past a group's start whose element is below the running max, m claims
    that element (ge = 1): the diff x - m[-1] is negative, outside its range."""
    cx, settings, trace, k, rows = case
    seg = rows["MaxReduce"]

    def edit(cols):
        for r in range(seg.start + 1, seg.start + seg.rows):
            if cols["x"][r] < cols["m"][r - 1] and (r - seg.start) % 6:
                cols["m"][r], cols["ge"][r] = cols["x"][r], 1
                return
        raise AssertionError("no row below its running max")

    r = _forge(case, edit)
    assert not r.success and r.check in ("LogUp sum", "OODS mismatch"), r.error_message


def test_a_wrong_sum_is_rejected(case):
    cx, settings, trace, k, rows = case
    seg = rows["SumReduce"]

    def edit(cols):
        cols["m"][seg.start + 5] += 1  # the first group's last row: its output one unit off

    r = _forge(case, edit)
    assert not r.success and r.check in ("LogUp sum", "OODS mismatch"), r.error_message


def test_a_selector_other_than_the_graphs_is_rejected(case):
    cx, settings, trace, k, rows = case
    r = with_selector(cx, trace, settings, k, rows["SumReduce"].start, 1)
    assert not r.success and r.check == "OODS mismatch", r.error_message
