"""Exp and Erf in one component when a graph has both (statement.MERGED_KINDS, softmax and GELU):
the selector q is derived from the graph, each row keeps its op's table, clamps and results, and
forgeries of either op, of the table a row uses, or of the selector are rejected."""

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.air.graph_trace import main_columns
from luminair.prover.graph import erf

from proving_helpers import check, forge, prove_exact, with_selector


@pytest.fixture(scope="module")
def case():
    cx = Graph()
    x = cx.input("x", (1, 40))
    v = cx.input("v", (1, 24))
    erf(x).output("e")
    v.exp().output("p")
    cx.compile(GenericCompiler(), StwoCompiler())
    # both erf clamps and its table, exp below its start (0) and on its table
    feed = {"x": np.linspace(-3.5, 3.5, 40).reshape(1, 40), "v": np.linspace(-14, 3, 24).reshape(1, 24)}
    settings, trace = prove_exact(cx, feed, ("e", "p"))
    names = [p.component.name for p in settings.plans]
    assert "experf" in names and "exp" not in names and "erf" not in names, names
    k = names.index("experf")
    plan = settings.plans[k]
    rows = {settings.spec.nodes[s.node].op: s for s in plan.segments}
    assert sorted(rows) == ["Erf", "Exp"]
    return cx, settings, trace, k, rows


def _forge(case, edit):
    cx, settings, trace, k, _ = case
    return check(settings, forge(cx, trace, settings, lambda main: edit(main[k])))


def _row(case, op, where):
    """The first row of `op`'s segment whose (lo, hi) is `where`."""
    cx, settings, trace, k, rows = case
    seg = rows[op]
    main = main_columns(cx, settings.plans, trace.values, settings.air, settings.topology, settings.spec)[k]
    for r in range(seg.start, seg.start + seg.rows):
        if (int(main["lo"][r]), int(main["hi"][r])) == where:
            return r
    raise AssertionError((op, where))


def test_honest_forger_baseline(case):
    assert _forge(case, lambda cols: None).success


def test_an_erf_value_off_its_table_is_rejected(case):
    r0 = _row(case, "Erf", (0, 0))

    def edit(cols):
        cols["y"][r0] += 1

    r = _forge(case, edit)
    assert not r.success and r.check == "LogUp sum", r.error_message


def test_an_exp_row_that_looks_up_the_erf_table_is_rejected(case):
    """An Exp row whose (x, y) is moved to the erf table's multiplicity: te and tf are tied to q
    (and the pair is not in the erf table, so the lookups do not balance either)."""
    r0 = _row(case, "Exp", (0, 0))

    def edit(cols):
        cols["te"][r0], cols["tf"][r0] = 0, 1

    r = _forge(case, edit)
    assert not r.success and r.check in ("OODS mismatch", "LogUp sum"), r.error_message


def test_an_erf_clamp_that_gives_the_exp_clamp_value_is_rejected(case):
    """An Erf row at or below -h claiming 0 (Exp's clamp value) instead of -1."""
    r0 = _row(case, "Erf", (1, 0))

    def edit(cols):
        cols["y"][r0] = 0

    r = _forge(case, edit)
    assert not r.success and r.check in ("OODS mismatch", "LogUp sum"), r.error_message


def test_a_selector_other_than_the_graphs_is_rejected(case):
    cx, settings, trace, k, rows = case
    r = with_selector(cx, trace, settings, k, rows["Exp"].start, 1)
    assert not r.success and r.check == "OODS mismatch", r.error_message
