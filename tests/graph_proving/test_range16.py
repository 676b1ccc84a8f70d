"""16-bit range limbs (components.RANGE16_MIN_LOG): a graph whose largest component has 2^16 rows
range-checks with 16-bit limbs looked up in range16; range8 and range16 hold their values in a
topology column pinned by the verifier's own boundary rows. Here the threshold is lowered so that
small graphs take 16-bit limbs; each forgery names the check that catches it."""

import numpy as np
import pytest
from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.air.graph_trace import build_spec, main_columns, table_multiplicities
from luminair.prover.proving import table_trees
from luminair.prover.stark.prove import commit_preprocessed, prove_stark
from luminair.verifier.fields import P
from luminair.verifier.formats import ProofFile
from luminair.verifier.graph import planner, statement
from luminair.verifier.graph.components import HALF, RANGE16_MIN_LOG, limb_names
from luminair.verifier.statement import build_statement
from luminair.verifier.graph.planner import plan_graph
from proving_helpers import check, component_index, forge, prove_exact, prove_graph

RNG = np.random.default_rng(16)
TABLE = "table.range16"


@pytest.fixture
def wide(monkeypatch):
    monkeypatch.setattr(planner, "RANGE16_MIN_LOG", 0)


def _mul_add():
    cx = Graph()
    a, b = cx.input("a", (4, 4)), cx.input("b", (4, 4))
    ((a * b) + a).output("y")
    return cx, {"a": RNG.uniform(-2, 2, (4, 4)), "b": RNG.uniform(-2, 2, (4, 4))}


def set_limbs_of(cols, prefix, bits, value, width):
    """Limbs of `value` as a forger derives them (`width` bits each, the top limb not clipped)."""
    names = limb_names(prefix, bits, width)
    for i, name in enumerate(names):
        v = value >> (width * i)
        cols[name] = v if i == len(names) - 1 else v & ((1 << width) - 1)


def set_limbs16(cols, prefix, bits, value):
    set_limbs_of(cols, prefix, bits, value, 16)


def test_a_graph_as_tall_as_the_table_takes_16_bit_limbs():
    cx = Graph()
    x = cx.input("x", (1 << RANGE16_MIN_LOG,))
    (x + x).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    plans = statement.build_components(plan_graph(build_spec(cx)))
    add = plans[[p.kind for p in plans].index("Add")].component
    assert add.limb_bits == 16 and "out_l0" in add.main_columns and "out_l1" not in add.main_columns
    small = Graph()
    y = small.input("x", (1 << (RANGE16_MIN_LOG - 2),))
    (y + y).output("y")
    small.compile(GenericCompiler(), StwoCompiler())
    plans = statement.build_components(plan_graph(build_spec(small)))
    assert all(p.component.limb_bits == 8 for p in plans)  # the table would be its tallest component


def test_an_honest_wide_proof_attests_what_the_narrow_one_does(wide, monkeypatch):
    cx, feed = _mul_add()
    settings, _ = prove_exact(cx, feed, ("y",))
    names = [c.name for c in settings.air.components]
    assert TABLE in names and "table.range8" not in names  # no 8-bit limbs left
    mul = settings.plans[component_index(settings, "Mul")].component
    assert mul.limb_bits == 16
    assert [c for c in mul.main_columns if "_l" in c] == ["out_l0", "rem_l0"]
    assert list(settings.topology[f"{TABLE}.value"]) == list(range(1 << 16))
    wide_out = check(settings, prove_graph(cx, feed, settings=settings)[2]).outputs["y"]["values"]
    monkeypatch.setattr(planner, "RANGE16_MIN_LOG", RANGE16_MIN_LOG)
    narrow, _, proof = prove_graph(cx, feed)
    assert narrow.plans[component_index(narrow, "Mul")].component.limb_bits == 8
    assert check(narrow, proof).outputs["y"]["values"] == wide_out


def test_the_honest_witness_through_the_forgery_path_verifies(wide):
    cx, feed = _mul_add()
    settings, trace, _ = prove_graph(cx, feed)
    assert check(settings, forge(cx, trace, settings)).success


def test_a_remainder_past_its_bits_is_caught_by_the_16_bit_range_check(wide):
    """out - 1 and rem + 2^s satisfy the rounding equation; rem is then a valid 16-bit limb, but
    its top-limb check (rem + 2^16 - 2^s) leaves the table."""
    cx, feed = _mul_add()
    settings, trace, _ = prove_graph(cx, feed)
    k = component_index(settings, "Mul")
    s = settings.spec.scale_bits

    def tamper(main):
        c = main[k]
        c["out"][3] -= 1
        c["rem"][3] += 1 << s
        set_limbs16(c, "out", 16, c["out"] + HALF)
        set_limbs16(c, "rem", s, c["rem"])

    r = check(settings, forge(cx, trace, settings, tamper))
    assert r.check == "LogUp sum", r.error_message


def _forge_table(cx, settings, trace, tamper=None, value: int | None = None, public=None, table: str = TABLE) -> bytes:
    """A prover that writes `value` into a row of range16's value column that no lookup needs and
    counts one lookup of it there (what a table holding that value would need); `tamper` edits the
    main columns first."""
    public = public if public is not None else trace.public
    st = build_statement(settings.parsed, public)
    plans = settings.plans
    topology = {k: np.array(v, copy=True) for k, v in settings.topology.items()}
    main = main_columns(cx, plans, trace.values, st.air, settings.topology, settings.spec)
    if tamper is not None:
        tamper(main)
    main[len(plans):] = table_multiplicities(st.air, plans, main[: len(plans)], topology, settings.spec.scale_bits,
                                             strict=False)
    if value is not None:
        mult = main[[c.name for c in st.air.components].index(table)]["multiplicity"]
        row = int(np.flatnonzero(mult == 0)[-1])  # a value nobody looks up: its row is free to take another
        topology[f"{table}.value"][row] = value
        mult[row] = 1
    tree = commit_preprocessed(st.air.preprocessed[0], topology, settings.config.log_blowup)
    pre = [tree, *table_trees(st.air, settings.spec.scale_bits, settings.config.log_blowup)]
    stark = prove_stark(st.air, settings.config, st.statement_bytes, main, pre)
    return ProofFile(settings.parsed.digest, public, stark).to_bytes()


@pytest.mark.parametrize("width", [16, 8])
def test_the_table_values_are_pinned_by_the_verifier(width, monkeypatch):
    """The remainder forgery above, with the range table's value column rewritten to hold its
    out-of-range lookup: the LogUp sum balances, the column's difference constraint does not
    (range16 in a graph as tall as its table, range8 in a small one)."""
    if width == 16:
        monkeypatch.setattr(planner, "RANGE16_MIN_LOG", 0)
    table = f"table.range{width}"
    cx = Graph()
    a, b = cx.input("a", (4, 4)), cx.input("b", (4, 4))
    (a * b).output("y")
    settings, trace, _ = prove_graph(cx, {"a": RNG.uniform(-2, 2, (4, 4)), "b": RNG.uniform(-2, 2, (4, 4))})
    assert check(settings, _forge_table(cx, settings, trace, table=table)).success  # the path itself, honest
    k = component_index(settings, "Mul")
    s = settings.spec.scale_bits
    assert settings.plans[k].component.limb_bits == width

    def tamper(main):
        c = main[k]
        c["out"][3] -= 1
        c["rem"][3] += 1 << s
        set_limbs_of(c, "out", 16, c["out"] + HALF, width)
        set_limbs_of(c, "rem", s, c["rem"], width)

    honest = main_columns(cx, settings.plans, trace.values, settings.air, settings.topology, settings.spec)
    rem = int(honest[k]["rem"][3]) + (1 << s)
    top = s - width * ((s - 1) // width)  # bits of the remainder's top limb
    target = (rem >> (width * ((s - 1) // width))) + (1 << width) - (1 << top)  # the top-limb lookup it makes
    assert target >= 1 << width
    public = [list(v) for v in trace.public]
    public[-1][3] = (public[-1][3] - 1) % P  # the output the forgery claims
    assert check(settings, _forge_table(cx, settings, trace, tamper, public=public, table=table)).check == "LogUp sum"
    r = check(settings, _forge_table(cx, settings, trace, tamper, value=target, public=public, table=table))
    assert r.check == "OODS mismatch", r.error_message
