"""Table contents are bound: the pinned roots are recomputed from the integer definitions, and a
table never holds a row that is not in the function's graph."""

import pytest

from luminair.verifier.merkle import DIGEST_BYTES
from luminair.verifier.graph import tables
from luminair.verifier.graph.table_roots import PINNED_ROOTS
from luminair.verifier.numeric import TABLE_FUNCTIONS, table_domain


def test_every_pinned_root_is_the_root_of_its_table():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    from pin_table_roots import BLOWUPS, SCALES, TABLES, compute_root

    assert set(PINNED_ROOTS) == {(t, s, b) for t in TABLES for s in SCALES for b in BLOWUPS}
    for (name, s, b), root in PINNED_ROOTS.items():
        assert compute_root(name, s, b) == root, (name, s, b)


@pytest.mark.parametrize("name", ["exp2", "log2", "sin", "pow2", "exp"])
@pytest.mark.parametrize("s", [8, 10, 12])
def test_tables_hold_only_true_rows(name, s):
    xs, ys = tables.function_table(name, s)
    P = (1 << 31) - 1
    signed = lambda v: v - P if v > P // 2 else v  # noqa: E731
    for i in list(range(0, len(xs), 97)) + [len(xs) - 1]:
        x, y = signed(xs[i]), signed(ys[i])
        if name == "pow2":
            assert 0 <= x <= 14 and y == 1 << (14 - x)
        elif name == "log2":
            # the mantissa table: log2 of any input is (e - s) 2^s + the entry of its mantissa
            assert 1 << 14 <= x < 1 << 15 and y == TABLE_FUNCTIONS["log2"](x, s) - ((14 - s) << s)
        else:
            assert x in table_domain(name, s) and y == TABLE_FUNCTIONS[name](x, s)
    assert len(xs) == 1 << tables.table_log_size(name, s)


@pytest.mark.parametrize("s", [4, 8, 10, 12, 14])
def test_table_designs_cover_each_functions_whole_domain(s):
    from luminair.verifier.numeric import exp2_nonzero_start

    from luminair.verifier.numeric import VALUE_MAX, nonzero_start

    lo = exp2_nonzero_start(s)
    assert all(TABLE_FUNCTIONS["exp2"](x, s) == 0 for x in range(max(-(1 << 15), lo - 50), lo))
    assert tables.table_rows("exp2", s)[0][-1] == table_domain("exp2", s).stop - 1
    lo = nonzero_start("exp", s)  # e^x: 0 below the table, the last row the last in range
    assert all(TABLE_FUNCTIONS["exp"](x, s) == 0 for x in range(max(-(1 << 15), lo - 50), lo))
    stop = table_domain("exp", s).stop
    assert TABLE_FUNCTIONS["exp"](stop - 1, s) <= VALUE_MAX < TABLE_FUNCTIONS["exp"](stop, s)
    assert TABLE_FUNCTIONS["exp"](0, s) == 1 << s
    for x in list(range(1, 200)) + list(range(30000, 32768)):
        if x in table_domain("log2", s):
            e = x.bit_length() - 1
            m = x << (14 - e)
            assert TABLE_FUNCTIONS["log2"](x, s) == ((e - s) << s) + tables.table_rows("log2", s)[1][m - (1 << 14)]
    for x in range(-300, 300):
        assert TABLE_FUNCTIONS["sin"](x, s) == -TABLE_FUNCTIONS["sin"](-x, s)


def test_an_unpinned_table_root_is_recomputed(monkeypatch):
    key = ("exp2", 4, 2)  # 2^8 rows, 2^10 extended: small enough to rebuild in the verifier
    pinned = PINNED_ROOTS[key]
    monkeypatch.setitem(PINNED_ROOTS, key, None)
    monkeypatch.delitem(PINNED_ROOTS, key)
    tables.table_root.cache_clear()
    try:
        assert tables.table_root("exp2", 4, 2).hex() == pinned
    finally:
        tables.table_root.cache_clear()


def test_an_unpinned_table_too_large_to_recompute_is_refused():
    from luminair.verifier.errors import StatementError

    tables.table_root.cache_clear()
    with pytest.raises(StatementError, match="no pinned root for the exp2 table"):
        tables.table_root("exp2", 9, 5)  # the 405-byte hostile pair of issue 10 used scale 9, blowup 3


def test_a_graph_too_large_for_the_air_is_a_clear_rejection():
    from luminair.verifier import verify
    from luminair.verifier.config import PRESETS
    from luminair.verifier.formats import Decommitment, FriLayerProof, FriProof, ProofFile, StarkProof
    from luminair.verifier.graph.spec import GraphSpec, InputSpec, NodeSpec, OutputSpec
    from luminair.verifier.statement import KIND_GRAPH, encode_settings, read_settings

    n = 1 << 24
    nodes = [NodeSpec("Input", (n,), private=True), NodeSpec("Contiguous", (n,), [(0, (n,), ())]),
             NodeSpec("Contiguous", (n,), [(1, (n,), ())]),
             NodeSpec("Contiguous", (1,), [(2, (n,), (("slice", ((0, 1, 1),)),))])]
    spec = GraphSpec(10, nodes, [InputSpec("x", 0)], [OutputSpec("y", 3, ())])
    settings = encode_settings(KIND_GRAPH, PRESETS["default"], spec)
    empty = FriLayerProof(bytes(DIGEST_BYTES), [], Decommitment())
    stark = StarkProof([], [], [], [], [], FriProof(empty, [], []), 0)
    proof = ProofFile(read_settings(settings).digest, [[0]], stark).to_bytes()
    r = verify(proof, settings)
    assert r.check == "malformed file" and "cannot be proven" in r.error_message, r.error_message
