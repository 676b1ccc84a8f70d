"""The fused Erf (GELU's erf): the integer definition, its numpy twin, the fusion of the importer's
erf chain, honest proofs, and forged rows (off the table, a clamp where the table applies, a
saturated input without its clamp, a clamp to the wrong value) each rejected."""

import math

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.graph.fixed import fx_table
from luminair.prover.graph import erf
from luminair.verifier.fields import P
from luminair.verifier.numeric import VALUE_MAX, VALUE_MIN, erf_entry, erf_saturation, op_erf, table_domain

from proving_helpers import check, forge, prove_graph

S = 10


@pytest.mark.parametrize("s", [4, 8, 10, 14])
def test_erf_entries_are_correctly_rounded_and_odd(s):
    for x in range(-(5 << s), 5 << s, max(1, (1 << s) // 40)):
        e = op_erf(x, s)
        assert abs(e - math.erf(x / 2**s) * 2**s) <= 0.5 + 1e-6, (x, e)
        assert op_erf(-x, s) == -e
    h = erf_saturation(s)
    assert erf_entry(h, s) == 1 << s and erf_entry(h - 1, s) < 1 << s
    dom = table_domain("erf", s)
    assert dom.start >= VALUE_MIN and dom.stop - 1 <= VALUE_MAX


def test_the_numpy_twin_matches_the_definition_on_every_16_bit_input():
    xs = np.arange(VALUE_MIN, VALUE_MAX + 1, dtype=np.int64)
    got = fx_table("erf", xs, S)
    want = np.array([op_erf(int(x), S) for x in xs[::97]])
    np.testing.assert_array_equal(got[::97], want)
    assert got[0] == -(1 << S) and got[-1] == 1 << S


def _erf_graph(fuse: bool = True):
    cx = Graph()
    erf(cx.input("x", (1, 64))).output("y")
    cx.compile(GenericCompiler(), StwoCompiler(fuse=fuse))
    return cx


FEED = {"x": np.linspace(-3.5, 3.5, 64).reshape(1, 64)}  # both saturated ends and the table between


def test_the_importer_erf_chain_is_fused_and_more_accurate():
    fused, chain = _erf_graph(), _erf_graph(fuse=False)
    assert [n.op.value for n in fused.nodes()] == ["Input", "Erf"]
    assert len(chain.nodes()) > 20
    exact = np.vectorize(math.erf)(np.floor(FEED["x"] * (1 << S) + 0.5) / (1 << S))  # of the quantized input
    err_fused = np.abs(fused.run(FEED, exact=True)["y"] - exact).max()
    err_chain = np.abs(chain.run(FEED, exact=True)["y"] - exact).max()
    assert err_fused <= 0.5 / (1 << S) + 1e-12 and err_fused <= err_chain
    for cx in (fused, chain):  # both prove, each attesting its own executor's outputs
        settings, trace, proof = prove_graph(cx, FEED)
        r = check(settings, proof)
        assert r.success, r.error_message
        np.testing.assert_array_equal(np.array(r.outputs["y"]["values"]).reshape(1, 64), cx.run(FEED, exact=True)["y"])


@pytest.fixture(scope="module")
def erf_case():
    cx = _erf_graph()
    settings, trace, proof = prove_graph(cx, FEED)
    assert check(settings, proof).success
    (k,) = [i for i, p in enumerate(settings.plans) if p.kind == "Erf"]
    return cx, settings, trace, k


def _forged(case, edit):
    """Edit one Erf row (the output is public: the claimed output follows, so the data flow
    balances and only the Erf row's own checks can catch it)."""
    cx, settings, trace, k = case
    out = np.array(trace.public[-1], dtype=np.int64)
    out = np.where(out > P // 2, out - P, out)

    def tamper(main):
        edit(main[k], out)

    holder = {}

    def capture(main):
        tamper(main)
        holder["y"] = main[k]["y"][: out.size].copy()

    forge(cx, trace, settings, capture)  # learn the forged outputs (row order = element order here)
    public = [list(v) for v in trace.public]
    public[-1] = [int(v) % P for v in holder["y"]]
    return check(settings, forge(cx, trace, settings, tamper, public=public))


def _row(x_value):
    xs = FEED["x"].reshape(-1)
    return int(np.argmin(np.abs(xs - x_value)))


def test_an_erf_row_off_its_table_is_rejected(erf_case):
    def edit(cols, _out):
        cols["y"][_row(0.5)] += 1

    r = _forged(erf_case, edit)
    assert r.check == "LogUp sum", r.error_message


def test_a_clamp_where_the_table_applies_is_rejected(erf_case):
    def edit(cols, _out):  # claims erf(0.5) = -1 through the lower clamp
        i = _row(0.5)
        cols["lo"][i], cols["y"][i] = 1, -(1 << S)
        v = (-erf_saturation(S) - int(cols["x"][i])) % (1 << 16)  # -h - x is negative: no 16-bit limbs
        cols["under_l0"][i], cols["under_l1"][i] = v & 255, v >> 8

    r = _forged(erf_case, edit)
    assert r.check == "OODS mismatch", r.error_message


def test_a_saturated_input_without_its_clamp_is_rejected(erf_case):
    def edit(cols, _out):  # x >= h looked up as if in the table (with the last entry's value)
        i = _row(3.5)
        cols["hi"][i] = 0
        cols["over_l0"][i] = cols["over_l1"][i] = 0
        cols["y"][i] = (1 << S) - 1

    r = _forged(erf_case, edit)
    assert r.check == "LogUp sum", r.error_message


def test_a_clamp_to_the_wrong_value_is_rejected(erf_case):
    def edit(cols, _out):
        cols["y"][_row(3.5)] -= 1  # hi = 1 forces y = 1

    r = _forged(erf_case, edit)
    assert r.check == "OODS mismatch", r.error_message


def test_a_non_boolean_clamp_flag_is_rejected(erf_case):
    """lo = 2 would make the row's table multiplicity 1 - lo - hi = -1: it would yield a table entry
    (x, -1) instead of consuming one. The unmatched entry fails the LogUp sum (and the flags'
    booleanity constraint would fail the OODS check)."""
    def edit(cols, _out):
        i = _row(0.5)
        cols["lo"][i], cols["y"][i] = 2, -(1 << S)

    r = _forged(erf_case, edit)
    assert r.check == "LogUp sum", r.error_message
