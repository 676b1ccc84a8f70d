"""Hostile files on format 11 (issue 32): index inputs and Gather. The verifier computes a Gather's
rows itself (graph/statement.py known_values), so their cost must be charged to the work budget
before it is paid, held in compact arrays, and every bad id refused by name. (The pairs at the
budget and at the caps run in a fresh, memory-limited python in test_hostile_files.py, from
bench/hostile_bench.py's fast cases.)"""

from __future__ import annotations

import sys
import tracemalloc
from array import array
from pathlib import Path

import pytest
from luminair.verifier import verify
from luminair.verifier.api import declared_work
from luminair.verifier.budget import KNOWN_ROW_UNITS
from luminair.verifier.graph import statement as graph_statement_module
from luminair.verifier.statement import read_settings

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import hostile_bench as hb


def _logup_units(made: tuple[bytes, list[list[int]]]) -> float:
    settings, public = made
    return declared_work(hb.proof_file(settings, public), settings).parts["LogUp public terms"]


@pytest.mark.parametrize("n_ids, width", [(8, 64), (1024, 64), (64, 1000)])
def test_every_gathered_row_is_charged_before_it_is_computed(n_ids: int, width: int) -> None:
    """A known row (4 values) each for the ids and for the gathered rows, an output term for y:
    nothing the verifier computes from the ids is free, however few ids stand for it."""
    units = _logup_units(hb.gather_graph(n_ids, width))
    rows = -(-n_ids // 4) + -(-n_ids * width // 4)
    assert units == KNOWN_ROW_UNITS * rows + 9  # (9: the output element)


def test_a_table_read_only_by_gathers_costs_nothing_and_one_read_by_an_add_its_rows() -> None:
    alone = _logup_units(hb.gather_graph(16, 64, 1024))
    assert alone == _logup_units(hb.gather_graph(16, 64, 16))  # rowless: the verifier reads its values
    read = _logup_units(hb.gather_graph(16, 64, 1024, reader=True))
    assert read - alone == KNOWN_ROW_UNITS * 1024 * 64 // 4 + 9  # the table's known rows, z's term


def test_many_gathers_of_one_table_are_each_charged() -> None:
    one, many = _logup_units(hb.many_gathers_graph(1)), _logup_units(hb.many_gathers_graph(100))
    assert many - one == 99 * KNOWN_ROW_UNITS * 16 // 4


class _CountingNodes(list):
    passes = 0

    def __iter__(self):  # noqa: ANN204
        type(self).passes += 1
        return super().__iter__()


def _passes(n: int) -> int:
    settings_bytes, public = hb.many_index_inputs_graph(n)
    settings = read_settings(settings_bytes)
    settings.body.nodes = _CountingNodes(settings.body.nodes)
    _CountingNodes.passes = 0
    st = graph_statement_module.graph_statement(settings, public)
    assert st.inputs[f"i{n - 1}"]["values"] == [0]
    return _CountingNodes.passes


def test_the_tables_of_index_inputs_are_found_in_one_pass_over_the_nodes() -> None:
    """Before this round each index input's table size was a pass over every node: 4095 index inputs
    and their Gathers (8192 nodes) cost 0.90 s of an uncharged n^2 loop (now 0.21 s). The passes
    over the nodes do not grow with the number of index inputs."""
    assert _passes(16) == _passes(256) < 16


def test_a_gather_s_rows_are_a_compact_array() -> None:
    """About 4 bytes a gathered value, whatever the files' size: a few ids of a wide row stand for
    many values."""
    settings_bytes, public = hb.gather_graph(4096, 64)  # 262,144 values from 17 KB of ids, a 4 KB table
    settings = read_settings(settings_bytes)
    spec = settings.body
    gather = next(i for i, n in enumerate(spec.nodes) if n.op == "Gather")
    public_of = {1: array("I", public[0])}
    tracemalloc.start()
    rows = graph_statement_module.known_values(spec, gather, public_of)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert isinstance(rows, array) and rows.itemsize == 4 and len(rows) == 4096 * 64
    assert list(rows[64 * 2 : 64 * 3]) == list(spec.nodes[0].values[64 * 14 : 64 * 15])  # ids[2] = 14
    assert peak < 4 * len(rows) + (1 << 20), peak  # a list of ints: about 10 MB


@pytest.mark.parametrize("bad, shown", [(16, "index 16"), (hb.P_1, "index -1"), (1 << 30, "index -1073741823")])
def test_a_token_id_outside_the_table_is_refused_by_name(bad: int, shown: str) -> None:
    proof, settings = hb._pair(hb.bad_ids_graph(bad))
    r = verify(proof, settings, min_security_bits=0)
    assert r.kind == "rejected" and r.check == "statement mismatch", r.error_message
    assert f"input 'ids' element 2: {shown} is outside the table (16 rows)" in r.error_message


def test_an_index_input_read_at_two_tables_is_checked_against_the_smaller() -> None:
    """One index input read by Gathers of a 16-row and a 4-row table: an id of 5 is refused."""
    nodes = [hb._table(16, 2), hb._table(4, 2), hb.NodeSpec("Input", (2,), name="ids", index=True),
             hb.NodeSpec("Gather", (2, 2), [(0, (16, 2), ()), (2, (2,), ())]),
             hb.NodeSpec("Gather", (2, 2), [(1, (4, 2), ()), (2, (2,), ())]),
             hb.add_of(4, (2, 2), (), (2, 2))]
    settings = hb.graph_settings(nodes, [("ids", 2)], [("y", 5, ())])
    r = verify(hb.proof_file(settings, [[1, 5], [0] * 4]), settings, min_security_bits=0)
    assert r.check == "statement mismatch" and "element 1: index 5 is outside the table (4 rows)" in r.error_message


@pytest.mark.parametrize("made, part", [
    (lambda: hb._pair((hb.gather_graph(1 << 24, 1, 1)[0], [[0], [0]])), "LogUp public terms"),  # ids at the 2^24 cap
    (lambda: hb._pair(hb.gather_graph(1 << 14, 1024, 1)), "LogUp public terms"),  # 2^24 gathered values
])
def test_gathers_past_the_budget_are_not_checked_before_anything_is_computed(made, part, monkeypatch) -> None:  # noqa: ANN001
    proof, settings = made()

    def never(*_a: object, **_k: object) -> None:
        raise AssertionError("a gathered row was computed")

    monkeypatch.setattr(graph_statement_module, "gather_rows", never)
    r = verify(proof, settings, min_security_bits=0)
    assert r.kind == "not checked" and r.check == "work budget" and f"({part}: " in r.error_message, r.error_message


@pytest.mark.parametrize("seq", [8, 1 << 12])
def test_a_symbolic_number_of_ids_is_charged_at_the_proof_s_value(seq: int) -> None:
    """A template's ids count is a symbol: its Gather is charged once instantiated at the proof's seq,
    before its statement is built (1.3 KB of settings.bin declare up to 2^20 ids of 16 values)."""
    units = _logup_units(hb.symbolic_gather_graph(seq))
    assert units == KNOWN_ROW_UNITS * (-(-seq // 4) + seq * 16 // 4) + 9
