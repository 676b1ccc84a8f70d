"""One component for all of a kind's constants (GraphComponent.vary): where a graph's Mul, Dot,
MatOut, Recip or Sqrt nodes take several constants (their scales differ), each row carries its own
2^constant in the topology column `pow`, derived by the verifier from the scales. The forgeries it
invites: a witness that rounds one node by another row's shift, a `pow` column that claims another
constant, a remainder at or above the row's 2^k (it passes the component's widest range check, so
only the complement check objects), and settings that show another scale with the same layout."""

import sys
from pathlib import Path

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.graph import layer_norm, softmax
from luminair.verifier import numeric as num
from luminair.verifier.graph.components import HALF, limb_names

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "graph"))
from graph_helpers import assert_exact_matches_scalar  # noqa: E402
from proving_helpers import check, component_index, forge, forge_as, prove_graph  # noqa: E402
from test_forgery import set_limbs  # noqa: E402

RNG = np.random.default_rng(2027)


def _three_muls(out_scales=(9, 10, 10)):
    """m1 = x * y (x 2^12, y 2^11), m2 = m1 * z (z 2^10), out = m2 * z: shifts 23 - s1, s1 + 10 - s2
    and s2 + 10 - s3 for out_scales (s1, s2, s3): (14, 9, 10) by default."""
    cx = Graph()
    x, y, z = cx.input("x", (4, 4)), cx.input("y", (4, 4)), cx.input("z", (4, 4))
    m1 = x * y
    m2 = m1 * z
    (m2 * z).output("out")
    cx.compile(GenericCompiler(), StwoCompiler(fuse=False))
    ids = {n.op.name: [] for n in cx.nodes()}
    for n in cx.nodes():
        ids[n.op.name].append(n.id)
    muls = ids["MUL"]
    cx.set_scales(dict(zip(ids["INPUT"], (12, 11, 10))) | dict(zip(muls, out_scales)))
    feed = {"x": RNG.uniform(-2, 2, (4, 4)), "y": RNG.uniform(-2, 2, (4, 4)), "z": RNG.uniform(-1, 1, (4, 4))}
    return cx, feed, muls


def _shifts(cx, muls):
    from luminair.prover.graph.execute import exact_constant

    return [exact_constant(cx.node(i), cx.numeric_format) for i in muls]


def test_muls_at_several_shifts_share_one_component_and_verify():
    cx, feed, muls = _three_muls()
    assert _shifts(cx, muls) == [14, 9, 10]
    assert_exact_matches_scalar(cx, feed)
    settings, trace, proof = prove_graph(cx, feed)
    assert [p.component.name for p in settings.plans if p.kind == "Mul"] == ["mul@9-14"]
    plan = settings.plans[component_index(settings, "Mul")]
    assert plan.instance.variable and "pow" in plan.component.topology_columns()
    r = check(settings, proof)
    assert r.success, r.error_message


def _mul_rows(settings, trace, node):
    plan = settings.plans[component_index(settings, "Mul")]
    seg = next(s for s in plan.segments if s.node == node)
    return plan, slice(seg.start, seg.start + seg.rows)


def _round_last_by_9(forged_pow: bool):
    """A proof whose last Mul rows (2^10 in the verifier's pow) are rounded by 9, the middle node's
    shift (a doubled output, claimed), with every limb re-derived; with `forged_pow` the forger
    also commits pow = 2^9 on those rows (so every Mul constraint and range check holds)."""
    cx, feed, muls = _three_muls()
    settings, trace, proof = prove_graph(cx, feed)
    k = component_index(settings, "Mul")
    plan, rows = _mul_rows(settings, trace, muls[-1])
    name = f"{plan.component.name}.pow"
    pow_ = settings.topology[name].copy()
    if forged_pow:
        pow_[rows] = 1 << 9

    def tamper(main):
        c = main[k]
        prod = c["a"][rows] * c["b"][rows] + (1 << 8)
        c["out"][rows] = prod >> 9
        c["rem"][rows] = prod - (c["out"][rows] << 9)
        set_limbs(c, "out", 16, c["out"] + HALF)
        set_limbs(c, "rem", 14, c["rem"])
        set_limbs(c, "gap", 14, pow_ - 1 - c["rem"])  # rem < 2^9: fits either power

    def tamper_topology(topology):
        topology[name][:] = pow_

    public = [list(v) for v in trace.public]
    public[-1] = [int(v) % num.P for v in main_out(cx, settings, trace, tamper, k, rows)]
    return settings, forge(cx, trace, settings, tamper, public=public,
                           tamper_topology=tamper_topology if forged_pow else None)


def test_a_witness_that_rounds_one_node_by_another_rows_shift_is_rejected():
    """pow says 2^10 on the last Mul's rows, the witness rounds by 9: the Mul constraint objects."""
    r = check(*_round_last_by_9(forged_pow=False))
    assert not r.success
    assert r.check == "OODS mismatch", r.error_message


def main_out(cx, settings, trace, tamper, k, rows):
    """The Mul component's `out` column after `tamper`, on `rows`: the forged output it claims."""
    from luminair.prover.air.graph_trace import main_columns

    from luminair.verifier.statement import build_statement

    st = build_statement(settings.parsed, trace.public)
    main = main_columns(cx, settings.plans, trace.values, st.air, settings.topology, settings.spec)
    main = [{n: np.array(v, copy=True) for n, v in cols.items()} for cols in main]
    tamper(main)
    return main[k]["out"][rows]


def test_a_pow_column_that_claims_another_constant_is_rejected():
    """The forger commits pow = 2^9 on the last Mul's rows and rounds by 9 there: every Mul
    constraint and range check holds, but pow's difference constraint against the verifier's own
    column (2^10 on those rows, from the scales) does not."""
    r = check(*_round_last_by_9(forged_pow=True))
    assert not r.success
    assert r.check == "OODS mismatch", r.error_message


def test_a_remainder_at_or_above_the_rows_power_is_rejected_by_its_complement_check():
    """On the last Mul's rows (2^10) the forger claims out - 1 with rem + 2^10: the relation a b +
    2^9 = out 2^10 + rem still holds and rem + 2^10 < 2^14 passes rem's range check (the
    component's widest shift), so only 2^10 - 1 - rem in range objects: its limbs cannot be in
    the table."""
    cx, feed, muls = _three_muls()
    settings, trace, proof = prove_graph(cx, feed)
    k = component_index(settings, "Mul")
    plan, rows = _mul_rows(settings, trace, muls[-1])
    name = plan.component.name

    def tamper(main):
        c = main[k]
        c["out"][rows] -= 1
        c["rem"][rows] += 1 << 10
        set_limbs(c, "out", 16, c["out"] + HALF)
        set_limbs(c, "rem", 14, c["rem"])
        honest = np.ones(len(c["rem"]), dtype=bool)
        honest[rows] = False
        pow_ = np.where(honest, settings.topology[f"{name}.pow"], 1 << 10)
        set_limbs(c, "gap", 14, np.where(honest, pow_ - 1 - c["rem"], 0))
        # the forged rows' complement is negative: a field element near P, all of it in the low
        # limb (the decomposition constraint holds; the lookup cannot)
        low = limb_names("gap", 14)[0]
        c[low] = np.where(honest, c[low], ((1 << 10) - 1 - c["rem"]) % num.P)

    public = [list(v) for v in trace.public]
    public[-1] = [int(v) % num.P for v in main_out(cx, settings, trace, tamper, k, rows)]
    r = check(settings, forge(cx, trace, settings, tamper, public=public))
    assert not r.success
    assert r.check == "LogUp sum", r.error_message


def test_settings_that_show_another_scale_with_the_same_layout_are_rejected():
    """Shown: the output at 2^7 (shifts 14, 9, 13), honest: at 2^10 (14, 9, 10). Both settings
    have one mul@9-14 of the same size, but the shown settings' pow column says 2^13 on the output's
    rows: the honest witness (and its topology) under the shown settings fails."""
    cx, feed, muls = _three_muls((9, 10, 10))
    shown, _, shown_muls = _three_muls((9, 10, 7))
    assert _shifts(cx, muls) == [14, 9, 10] and _shifts(shown, shown_muls) == [14, 9, 13]
    honest_settings, _, _ = prove_graph(cx, feed)
    shown_settings, _, _ = prove_graph(shown, feed)
    assert honest_settings.model_digest != shown_settings.model_digest
    r = check(shown_settings, forge_as(shown_settings, cx, feed))
    assert not r.success
    assert r.check == "OODS mismatch", r.error_message


@pytest.mark.slow
def test_a_calibrated_block_varies_its_mul_dot_matout_and_recipsqrt_and_verifies():
    """Per-tensor calibration of a layer norm, a softmax and two linear layers: the kinds whose
    constants differ share one component each, and the proof verifies with the exact outputs."""
    cx = Graph()
    x = cx.input("x", (8, 16))
    w1 = cx.constant(RNG.uniform(-0.5, 0.5, (16, 16)))
    w2 = cx.constant(RNG.uniform(-4, 4, (16, 8)))
    h = layer_norm(x @ w1, -1, eps=1e-5)
    softmax((h @ w2) * 3.0, -1).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = {"x": RNG.uniform(-6, 6, (8, 16))}
    cx.calibrate_tensors([feed])
    assert_exact_matches_scalar(cx, feed)
    settings, trace, proof = prove_graph(cx, feed)
    varied = [p.component.name for p in settings.plans if p.instance is not None and p.instance.variable]
    assert varied, [p.component.name for p in settings.plans]
    for p in settings.plans:
        if p.instance is not None and p.instance.variable:
            assert "@" in p.component.name and "-" in p.component.name.split("@")[1]
    r = check(settings, proof)
    assert r.success, r.error_message


@pytest.mark.parametrize("forged", [False, True])
def test_a_dot_remainder_at_or_above_its_rows_power_is_rejected(forged):
    """Two sums of squares at shifts 12 and 14 share dot1@12-14; on the first one's group ends the
    forger claims out - 1 with rem + 2^12 (below 2^14, the component's widest shift): only the
    complement check, gated to those rows as rem's is, objects. The same limbs re-derived without
    the forgery verify (the harness itself is sound)."""
    from luminair.prover.air.graph_trace import main_columns
    from luminair.prover.graph import sum as gsum
    from luminair.verifier.statement import build_statement

    cx = Graph()
    x, y = cx.input("x", (4, 8)), cx.input("y", (4, 8))
    gsum(x * x, -1).output("a")
    gsum(y * y, -1).output("b")
    cx.compile(GenericCompiler(), StwoCompiler())
    dots = [n.id for n in cx.nodes() if n.op.name == "DOT"]
    cx.set_scales({0: 12, 1: 11, dots[0]: 12, dots[1]: 8})
    feed = {"x": RNG.uniform(-1, 1, (4, 8)), "y": RNG.uniform(-1, 1, (4, 8))}
    settings, trace, proof = prove_graph(cx, feed)
    k = next(i for i, p in enumerate(settings.plans) if p.instance is not None and p.instance.variable)
    plan = settings.plans[k]
    assert plan.component.name.endswith("@12-14")
    seg = next(s for s in plan.segments if s.node == dots[0])
    last = plan.component.sparse_columns["last"]
    rows = np.array([r for r in range(seg.start, seg.start + seg.rows) if last.get(r)])
    pow_ = settings.topology[f"{plan.component.name}.pow"]
    is_last = np.zeros(len(pow_), dtype=bool)
    is_last[list(last)] = True

    def tamper(main):
        c = main[k]
        if forged:
            c["out"][rows] -= 1
            c["rem"][rows] += 1 << 12
        set_limbs(c, "out", 16, np.where(is_last, c["out"] + HALF, 0))
        set_limbs(c, "rem", 14, c["rem"])
        set_limbs(c, "gap", 14, np.where(is_last, pow_ - 1 - c["rem"], 0))
        if forged:  # a negative complement: a field element in the low limb
            c[limb_names("gap", 14)[0]][rows] = ((1 << 12) - 1 - c["rem"][rows]) % num.P

    st = build_statement(settings.parsed, trace.public)
    main = [{n: np.array(v, copy=True) for n, v in cols.items()}
            for cols in main_columns(cx, settings.plans, trace.values, st.air, settings.topology, settings.spec)]
    tamper(main)
    public = [list(v) for v in trace.public]
    a = next(i for i, v in enumerate(public) if len(v) == 4)  # output a: its 4 elements come first
    public[a] = [int(v) % num.P for v in main[k]["out"][rows]]
    r = check(settings, forge(cx, trace, settings, tamper, public=public))
    if not forged:
        assert r.success, r.error_message
        return
    assert not r.success
    assert r.check == "LogUp sum", r.error_message
