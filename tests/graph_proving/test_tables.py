"""Table contents are bound: the verifier evaluates each table from its integer definition (the
Lagrange form, cross-checked against interpolation), and a table never holds a row that is not in
the function's graph."""

import pytest

from luminair.verifier.merkle import DIGEST_BYTES
from luminair.verifier.graph import tables
from luminair.verifier.numeric import TABLE_FUNCTIONS, table_domain


@pytest.mark.parametrize("name,s", [("exp", 10), ("erf", 8), ("pow2", 10), ("log2", 6)])
def test_the_verifiers_table_evaluation_is_the_interpolated_polynomial(name, s):
    """dense_columns_at (the verifier's O(rows) Lagrange form) against the reference: interpolate
    the column by the circle FFT, evaluate the coefficients at the point."""
    from luminair.verifier.circle import qpoint_from_t
    from reference_commit import storage_order
    from reference_fft import circle_interpolate
    from luminair.verifier.poly import dense_columns_at, eval_circle_poly_m31

    n = tables.table_log_size(name, s)
    cols = list(tables.table_columns(name, s).values())
    for t in [(5, 7, 11, 13), (1, 0, 0, 2)]:
        point = qpoint_from_t(t)
        expected = [eval_circle_poly_m31(circle_interpolate(storage_order(c, n)), point) for c in cols]
        assert dense_columns_at(point, cols, n) == expected


def test_the_table_evaluation_refuses_a_point_on_the_trace_domain():
    from luminair.verifier.circle import coset_row_index, index_to_point, qpoint_from_point
    from luminair.verifier.poly import dense_columns_at

    on_domain = qpoint_from_point(index_to_point(coset_row_index(3, 4)))
    with pytest.raises(ZeroDivisionError):
        dense_columns_at(on_domain, [list(range(16))], 4)


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
    from luminair.verifier.numeric import VALUE_MAX, nonzero_start

    lo = nonzero_start("exp2", s)
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
