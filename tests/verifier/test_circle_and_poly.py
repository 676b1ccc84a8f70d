import random

import pytest

import reference_fft as fft
from luminair.verifier.circle import (
    GEN,
    P,
    bit_reverse,
    coset_row_index,
    domain_point,
    domain_storage_index,
    double_x,
    index_to_point,
    line_domain_x,
    point_add,
    qpoint_from_point,
    qpoint_from_t,
    row_to_storage,
)
from luminair.verifier.fields import QONE, q_add, q_from_m31, q_mul, q_mul_m31
from luminair.verifier.poly import (
    coset_vanishing,
    sparse_columns_at,
    eval_circle_poly_m31,
    eval_line_poly,
    fold_circle_pair,
    fold_line_pair,
    row_selector,
)


def point_neg(a):
    """The conjugate (x, -y): the group inverse."""
    return (a[0], (-a[1]) % P)


def on_circle(p) -> bool:
    x, y = p
    return q_add(q_mul(x, x), q_mul(y, y)) == QONE


def test_generator_orders():
    assert index_to_point(1) == GEN
    assert index_to_point(1 << 30) == (P - 1, 0)
    assert index_to_point(1 << 29) == (0, P - 1)
    assert index_to_point(1 << 31) == (1, 0)
    assert (GEN[1] * GEN[1]) % P == P - 3


def test_random_point_lies_on_the_circle():
    assert on_circle(qpoint_from_t((5, 7, 11, 13)))


@pytest.mark.parametrize("n", range(1, 9))
def test_storage_order_matches_rows_and_pairs(n):
    size = 1 << n
    assert {domain_storage_index(q, n) for q in range(size)} == {coset_row_index(r, n) for r in range(size)}
    for r in range(size):
        assert domain_storage_index(row_to_storage(r, n), n) == coset_row_index(r, n)
    for i in range(size // 2):
        assert domain_point(2 * i + 1, n) == point_neg(domain_point(2 * i, n))
        assert line_domain_x(2 * i + 1, n) == (-line_domain_x(2 * i, n)) % P
        if n > 1:
            assert double_x(line_domain_x(2 * i, n)) == line_domain_x(i, n - 1)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 8])
def test_fft_round_trips_and_agrees_with_point_evaluation(n):
    rng = random.Random(n)
    coeffs = [rng.randrange(P) for _ in range(1 << n)]
    evals = fft.circle_evaluate(coeffs)
    assert fft.circle_interpolate(evals) == coeffs
    for q in range(1 << n):
        assert eval_circle_poly_m31(coeffs, qpoint_from_point(domain_point(q, n))) == q_from_m31(evals[q])
    line = fft.line_evaluate(coeffs)
    assert fft.line_interpolate(line) == coeffs
    qcoeffs = [q_from_m31(c) for c in coeffs]
    for q in range(1 << n):
        assert eval_line_poly(qcoeffs, q_from_m31(line_domain_x(q, n))) == q_from_m31(line[q])


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_vanishing_polynomial_vanishes_exactly_on_the_trace_domain(n):
    for r in range(1 << n):
        assert coset_vanishing(qpoint_from_point(index_to_point(coset_row_index(r, n))), n) == (0, 0, 0, 0)
    bigger = [domain_point(q, n + 2) for q in range(1 << (n + 2))]
    assert all(coset_vanishing(qpoint_from_point(p), n) != (0, 0, 0, 0) for p in bigger)


@pytest.mark.parametrize("n,row", [(2, 0), (4, 0), (4, 15), (5, 7), (7, 100)])
def test_closed_form_selector_is_the_interpolated_indicator(n, row):
    col = [0] * (1 << n)
    col[row_to_storage(row, n)] = 1
    z = qpoint_from_t((3, 1, 4, 1))
    assert eval_circle_poly_m31(fft.circle_interpolate(col), z) == row_selector(z, row, n)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 11])
def test_sparse_columns_are_sums_of_the_closed_form_selectors(n):
    """sparse_columns_at (M31 batch inversion, packed sums) against sum_r c_r row_selector(r): rows
    anywhere in the coset, runs of equal gaps, both halves, values up to p - 1, shared rows."""
    rng = random.Random(n)
    rows = sorted(rng.sample(range(1 << n), min(1 << n, 40))) + [(1 << n) - 1]
    cols = {"a": {r: rng.randrange(P) for r in rows[::2]}, "b": {r: P - 1 for r in rows}, "c": {0: 1}, "d": {}}
    for t in [(3, 1, 4, 1), (P - 1, 0, 7, P - 2)]:
        z = qpoint_from_t(t)
        want = {}
        for key, col in cols.items():
            acc = (0, 0, 0, 0)
            for r, c in col.items():
                acc = q_add(acc, q_mul_m31(row_selector(z, r, n), c))
            want[key] = acc
        assert sparse_columns_at(z, cols, n) == want
        assert sparse_columns_at(z, {"e": {}}, n) == {"e": (0, 0, 0, 0)}  # no rows at all


def test_sparse_columns_refuse_a_point_on_the_trace_domain():
    on_domain = qpoint_from_point(index_to_point(coset_row_index(5, 4)))
    with pytest.raises(ZeroDivisionError):
        sparse_columns_at(on_domain, {"a": {5: 1}}, 4)


def test_fold_formulas_halve_the_degree():
    # A line polynomial of degree < 2^m folds to one of degree < 2^(m-1).
    rng = random.Random(9)
    m = 5
    coeffs = [rng.randrange(P) for _ in range(1 << (m - 1))] + [0] * (1 << (m - 1))
    evals = fft.line_evaluate(coeffs)
    alpha = (7, 0, 0, 0)
    folded = [
        fold_line_pair(q_from_m31(evals[2 * i]), q_from_m31(evals[2 * i + 1]), line_domain_x(2 * i, m), alpha)
        for i in range(1 << (m - 1))
    ]
    back = fft.line_interpolate([f[0] for f in folded])
    assert back[1 << (m - 2) :] == [0] * (1 << (m - 2))
    circle = fft.circle_evaluate([rng.randrange(P) for _ in range(1 << (m - 1))] + [0] * (1 << (m - 1)))
    cf = [
        fold_circle_pair(q_from_m31(circle[2 * i]), q_from_m31(circle[2 * i + 1]), domain_point(2 * i, m)[1], alpha)
        for i in range(1 << (m - 1))
    ]
    back = fft.line_interpolate([f[0] for f in cf])
    assert back[1 << (m - 2) :] == [0] * (1 << (m - 2))


def test_bit_reverse():
    assert [bit_reverse(i, 3) for i in range(8)] == [0, 4, 2, 6, 1, 5, 3, 7]
    assert point_add(GEN, point_neg(GEN)) == (1, 0)
