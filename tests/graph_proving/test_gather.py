"""Index inputs and Gather (an embedding) at public ids: the verifier computes the gathered rows
itself from the table in settings.bin and the token ids in proof.bin, so no row read is trusted
(private ids: test_gather_private.py). A dishonest prover
or publisher is rejected with a named check; bad ids are refused before proving."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from luminair.prover import Graph
from luminair.prover.graph.errors import InputError
from luminair.verifier.errors import FormatError
from luminair.verifier.fields import P
from luminair.verifier.formats import read_proof_file
from luminair.verifier.graph.spec import InputSpec, NodeSpec
from luminair.verifier.statement import KIND_GRAPH, encode_settings, read_settings

from proving_helpers import check, forge, prove_exact

RNG = np.random.default_rng(5)
TABLE = RNG.uniform(-1, 1, (16, 8))
IDS = np.array([[3, 1, 4, 1, 5, 9, 2, 6]])


def _model() -> Graph:
    cx = Graph()
    ids = cx.input("ids", (1, 8), index=True)
    rows = cx.embedding(ids, cx.constant(TABLE, "wte"))
    (rows @ cx.constant(RNG.uniform(-0.5, 0.5, (8, 4)), "w") + rows[:, :, :4]).output("y")
    return cx


@pytest.fixture(scope="module")
def case():
    cx = _model()
    settings, trace = prove_exact(cx, {"ids": IDS}, ("y",))
    return cx, settings, trace


def test_an_embedding_proof_verifies_and_reports_the_token_ids(case):
    cx, settings, trace = case
    r = check(settings, forge(cx, trace, settings))
    assert r.success, r.error_message
    assert r.inputs["ids"] == {"shape": [1, 8], "values": IDS.reshape(-1).tolist()}
    exact = cx.run({"ids": IDS}, exact=True)["y"]
    np.testing.assert_array_equal(np.array(r.outputs["y"]["values"]), exact.reshape(-1))


def _ids_node(settings) -> int:
    return next(i for i, n in enumerate(settings.spec.nodes) if n.index)


def _gather_node(settings) -> int:
    return next(i for i, n in enumerate(settings.spec.nodes) if n.op == "Gather")


def test_a_proof_that_reads_another_row_than_the_token_is_rejected(case):
    """The prover's witness holds the rows of other tokens (everything downstream consistent with
    them) while the ids it claims, and their known rows, are the honest ones."""
    cx, settings, trace = case
    other = IDS.copy()
    other[0, 0] = 7
    forged_run = cx.gen_trace({"ids": other})
    values = dict(forged_run.values)
    values[_ids_node(settings)] = trace.values[_ids_node(settings)]
    public = [list(trace.public[0]), *[list(v) for v in forged_run.public[1:]]]
    forged = dataclasses.replace(forged_run, values=values, public=public)
    r = check(settings, forge(cx, forged, settings, public=public))
    assert not r.success and r.check == "LogUp sum", r.error_message


def test_a_proof_whose_token_was_changed_is_rejected(case):
    cx, settings, trace = case
    public = [list(v) for v in trace.public]
    public[0][0] = 7  # another token, inside the table: the verifier gathers its row
    r = check(settings, forge(cx, trace, settings, public=public))
    assert not r.success and r.check == "LogUp sum", r.error_message


@pytest.mark.parametrize("bad", [16, P - 1])  # past the table; -1 (a negative id)
def test_a_token_outside_the_table_in_the_proof_is_refused_by_name(case, bad):
    cx, settings, trace = case
    honest = read_proof_file(forge(cx, trace, settings))
    public = [list(v) for v in honest.public_values]
    public[0][2] = bad
    r = check(settings, dataclasses.replace(honest, public_values=public).to_bytes())
    assert not r.success and "input 'ids' element 2" in r.error_message and "outside the table (16 rows)" in r.error_message


# --- bad ids, refused before proving -----------------------------------------------------------


@pytest.mark.parametrize("ids, message", [
    (np.array([[3, 1, 4, 1, 5, 9, 2, 16]]), "index 16 at element 7 is outside the table 'wte' (16 rows)"),
    (np.array([[3, 1, -4, 1, 5, 9, 2, 6]]), "index -4 at element 2 is negative"),
    (np.array([[3, 1, 4, 1, 5, 9, 2, 2**31]]), "index 2147483648 at element 7 is past 2^31 - 1"),
    (IDS.astype(np.float64), "holds indices (token ids): give integers, got an array of float64"),
])
def test_bad_token_ids_are_clear_errors_before_proving(ids, message):
    cx = _model()
    with pytest.raises(InputError) as e:
        cx.gen_trace({"ids": ids})
    assert message in str(e.value)


def test_index_inputs_feed_only_embeddings():
    cx = Graph()
    ids = cx.input("ids", (4,), index=True)
    with pytest.raises(Exception, match="reads an index input; only a Gather"):
        (ids + 1.0).output("y")
    with pytest.raises(Exception, match="the table must be a \\(rows, width\\) constant"):
        cx.embedding(ids, cx.input("t", (4, 2)))


# --- a publisher's settings.bin ----------------------------------------------------------------


def _resettle(settings, edit) -> bytes:
    body = copy.deepcopy(settings.parsed.body)
    edit(body)
    return encode_settings(KIND_GRAPH, settings.config, body)


@pytest.mark.parametrize("edit, message", [
    # the gathered node claims to read a computed value as its table
    (lambda b, g, i: b.nodes[g].srcs.__setitem__(0, (i, b.nodes[i].shape, ())), "a Gather reads a (rows, width) constant table"),
    # the ids are read by an op, not a Gather
    (lambda b, g, i: b.nodes.__setitem__(g, NodeSpec("Contiguous", b.nodes[i].shape, [(i, b.nodes[i].shape, ())])),
     "reads an index input; only a Gather's second input may"),
    # the private flag on the Gather (only inputs are private)
    (lambda b, g, i: setattr(b.nodes[g], "private", True), "is not a valid flag set for Gather"),
    # the index flag on the table, a Constant
    (lambda b, g, i: setattr(b.nodes[b.nodes[g].srcs[0][0]], "index", True), "is not a valid flag set for Constant"),
    # the Gather reads its table where the ids should be
    (lambda b, g, i: b.nodes[g].srcs.__setitem__(1, b.nodes[g].srcs[0]), "a Gather reads an index input, unchanged"),
    # a Gather that claims another width than its table's
    (lambda b, g, i: setattr(b.nodes[g], "shape", (1, 8, 7)), "Gather of (16, 8) at indices (1, 8) cannot give (1, 8, 7)"),
])
def test_a_settings_file_that_misuses_gather_is_refused(case, edit, message):
    _, settings, _ = case
    g, i = _gather_node(settings), _ids_node(settings)
    data = _resettle(settings, lambda b: edit(b, g, i))
    with pytest.raises(FormatError) as e:
        read_settings(data)
    assert message in str(e.value)


def test_an_output_that_reads_the_ids_is_refused(case):
    _, settings, _ = case
    i = _ids_node(settings)

    def edit(b):
        b.outputs[0].node, b.outputs[0].steps = i, ()

    with pytest.raises(FormatError, match=f"node {i} is an index input"):
        read_settings(_resettle(settings, edit))



def test_an_index_input_that_no_gather_reads_is_refused(case):
    _, settings, _ = case

    def edit(b):
        b.nodes.append(NodeSpec("Input", (1, 8), name="stray", index=True))
        b.inputs.append(InputSpec("stray", len(b.nodes) - 1))

    with pytest.raises(FormatError, match="an index input that no Gather reads"):
        read_settings(_resettle(settings, edit))


def test_an_unknown_node_flag_is_refused(case):
    _, settings, _ = case
    data = settings.data
    assert data.count(b"ids\x02") == 1  # the index input's name, then its flags byte
    with pytest.raises(FormatError, match="0x6 is not a valid flag set for Input"):
        read_settings(data.replace(b"ids\x02", b"ids\x06"))
