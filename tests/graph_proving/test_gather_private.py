"""Gathers at private ids (a hidden prompt): each output element's row proves the id it reads from
the private input, that 0 <= id < V (two range checks), and reads the table element at
in0_addr + width id, which only the table's known rows yield (verifier/graph/components.py
GatherComponent). A prover that reads another row, or past the table, is rejected by name."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from luminair.prover import Graph
from luminair.verifier.errors import FormatError
from luminair.verifier.fields import P
from luminair.verifier.graph.components import limb_names
from luminair.verifier.graph.topology import KNOWN_LANES, node_bases
from luminair.verifier.statement import KIND_GRAPH, encode_settings, read_settings

from proving_helpers import check, component_index, forge, prove_exact

RNG = np.random.default_rng(11)
T1 = RNG.uniform(-1, 1, (16, 8))
T2 = RNG.uniform(-1, 1, (16, 8))
IDS = np.array([[3, 1, 4, 1, 5, 9, 2, 6]])
T1[7] = T1[3]  # another row of T1 with those values
D = 8


def _model(private: bool = True) -> Graph:
    cx = Graph()
    ids = cx.input("ids", (1, 8), index=True, private=private)
    a = cx.embedding(ids, cx.constant(T1, "wte"))
    b = cx.embedding(ids, cx.constant(T2, "wpe"))
    (a @ cx.constant(RNG.uniform(-0.5, 0.5, (8, 4)), "w") + b[:, :, :4]).output("y")
    return cx


@pytest.fixture(scope="module")
def case():
    cx = _model()
    settings, trace = prove_exact(cx, {"ids": IDS}, ("y",))
    return cx, settings, trace


def _nodes(settings):
    spec = settings.spec
    gathers = [i for i, n in enumerate(spec.nodes) if n.op == "Gather"]
    table = {g: spec.nodes[g].srcs[0][0] for g in gathers}
    return spec, gathers, table


def test_a_proof_at_private_ids_verifies_and_reports_no_ids(case):
    cx, settings, trace = case
    kinds = [p.kind for p in settings.plans]
    assert {"GatherTable", "PrivateIndex", "Gather"} <= set(kinds)
    r = check(settings, forge(cx, trace, settings))
    assert r.success, r.error_message
    assert not r.inputs and len(trace.public) == 1  # proof.bin holds the output alone, not the ids


def _gather_rows(settings, gather: int):
    """(component index, first row) of a Gather node's rows in the gather component."""
    k = component_index(settings, "Gather")
    seg = next(s for s in settings.plans[k].segments if s.node == gather)
    return k, seg.start


def _table_lane(settings, table: int, element: int) -> tuple[int, int, int]:
    """(component, row, lane) of a table element in the known_table component."""
    k = component_index(settings, "GatherTable")
    seg = next(s for s in settings.plans[k].segments if s.node == table)
    return k, seg.start + element // KNOWN_LANES, element % KNOWN_LANES


def test_reading_past_the_table_is_rejected_by_the_range_check(case):
    """Token 0 claims id V = 16 (the private input yields it): in both Gathers its rows read
    src = in0_addr + 8 * 16, past the table, at the Gather's own output (node order), whose first
    row holds token 0's honest values, so every value downstream agrees; the cheater moves the
    multiplicities to match. Only `top - id = -1` is wrong: written as limbs (0xFE, 0xFF, 0x7FFF)
    its sum holds, but 0x7FFF is not in range8."""
    cx, settings, trace = case
    spec, gathers, table = _nodes(settings)
    bases = node_bases(spec)
    k = component_index(settings, "Gather")
    name = settings.plans[k].component.name
    assert settings.plans[k].component.limb_bits == 8
    for g in gathers:
        assert bases[table[g]] + 16 * D == bases[g]  # past the table's end: the Gather's output

    def tamper(main):
        main[component_index(settings, "PrivateIndex")]["v"][0] = 16
        for g in gathers:
            r0 = _gather_rows(settings, g)[1]
            cols = main[k]
            for j in range(D):
                r = r0 + j
                cols["id"][r] = 16
                cols["src"][r] = bases[g] + j
                for i, limb in enumerate(limb_names("id", 24)):
                    cols[limb][r] = (16 >> (8 * i)) & 255
                for limb, v in zip(limb_names("rest", 24), (0xFE, 0xFF, 0x7FFF)):
                    cols[limb][r] = v
                kt, row, lane = _table_lane(settings, table[g], 3 * D + j)
                main[kt][f"m{lane}"][row] -= 1

    def more_reads(topo):  # each Gather's first 8 outputs are read once more (by themselves)
        for g in gathers:
            r0 = _gather_rows(settings, g)[1]
            topo[f"{name}.mult"][r0 : r0 + D] += 1

    assert (0xFE + 0xFF * 256 + 0x7FFF * 65536) % P == (15 - 16) % P
    r = check(settings, forge(cx, trace, settings, tamper=tamper, tamper_topology=more_reads))
    assert not r.success and r.check == "LogUp sum", r.error_message


def _other_row(settings, keep_src: bool):
    """Token 0's rows (id 3, which the private input yields). keep_src: they read row 7, whose
    values equal row 3's, so the reads and everything downstream balance and only the address
    constraint breaks; else they claim row 9's values at row 3's address (no row yields them)."""
    spec, gathers, table = _nodes(settings)
    g = gathers[0]
    t = table[g]
    bases = node_bases(spec)
    k, r0 = _gather_rows(settings, g)
    tv = np.asarray(spec.nodes[t].values, dtype=np.int64)

    def tamper(main):
        cols = main[k]
        for j in range(D):
            r = r0 + j
            cols["out"][r] = tv[(7 if keep_src else 9) * D + j]
            cols["src"][r] = bases[t] + (7 if keep_src else 3) * D + j
            if keep_src:
                kt, row, lane = _table_lane(settings, t, 3 * D + j)
                main[kt][f"m{lane}"][row] -= 1
                kt, row, lane = _table_lane(settings, t, 7 * D + j)
                main[kt][f"m{lane}"][row] += 1
    return tamper


def test_a_row_read_at_another_address_than_its_id_gives_is_rejected(case):
    cx, settings, trace = case
    r = check(settings, forge(cx, trace, settings, tamper=_other_row(settings, keep_src=True)))
    assert not r.success and r.check == "OODS mismatch", r.error_message


def test_another_rows_values_at_the_ids_address_are_rejected(case):
    cx, settings, trace = case
    r = check(settings, forge(cx, trace, settings, tamper=_other_row(settings, keep_src=False)))
    assert not r.success and r.check == "LogUp sum", r.error_message


def test_a_public_id_proof_is_not_a_private_id_proof(case):
    """The same model with public ids: another model digest and AIR, so neither proof verifies
    against the other's settings.bin."""
    cx, settings, trace = case
    pub = _model(private=False)
    pub_settings, pub_trace = prove_exact(pub, {"ids": IDS}, ("y",))
    assert pub_settings.parsed.digest != settings.parsed.digest
    assert not check(settings, forge(pub, pub_trace, pub_settings)).success
    assert not check(pub_settings, forge(cx, trace, settings)).success


def test_only_an_input_may_be_private(case):
    _, settings, _ = case
    gather = next(i for i, n in enumerate(settings.parsed.body.nodes) if n.op == "Gather")
    body = copy.deepcopy(settings.parsed.body)
    body.nodes[gather].private = True  # only an input can be private
    with pytest.raises(FormatError, match="is not a valid flag set for Gather"):
        read_settings(encode_settings(KIND_GRAPH, settings.config, body))


def test_private_ids_outside_the_table_are_refused_before_proving():
    cx = _model()
    with pytest.raises(Exception, match="index 16 at element 7 is outside the table 'wte' \\(16 rows\\)"):
        cx.gen_trace({"ids": np.array([[3, 1, 4, 1, 5, 9, 2, 16]])})
