import random

import pytest
from hypothesis import given, strategies as st

from luminair.verifier.fields import (
    P,
    QONE,
    batch_inverse,
    cm_inv,
    cm_mul,
    from_partial_evals,
    m31_inv,
    q_add,
    q_conj,
    q_inv,
    q_mul,
    q_sub,
)

m31 = st.integers(0, P - 1)
qm31 = st.tuples(m31, m31, m31, m31)


def test_stwo_qm31_vectors():
    assert q_add((1, 2, 3, 4), (4, 5, 6, 7)) == (5, 7, 9, 11)
    assert q_mul((1, 2, 3, 4), (4, 5, 6, 7)) == (P - 71, 93, P - 16, 50)
    assert q_mul((0, 0, 1, 0), (0, 0, 1, 0)) == (2, 1, 0, 0)  # u^2 = 2 + i
    assert q_mul((0, 1, 0, 0), (0, 1, 0, 0)) == (P - 1, 0, 0, 0)  # i^2 = -1
    assert q_conj((1, 2, 3, 4)) == (1, 2, P - 3, P - 4)
    assert q_mul((1, 2, 3, 4), q_inv((1, 2, 3, 4))) == QONE


@given(qm31, qm31, qm31)
def test_qm31_is_a_field(a, b, c):
    assert q_mul(a, b) == q_mul(b, a)
    assert q_mul(q_mul(a, b), c) == q_mul(a, q_mul(b, c))
    assert q_mul(a, q_add(b, c)) == q_add(q_mul(a, b), q_mul(a, c))
    assert q_sub(q_add(a, b), b) == a
    if a != (0, 0, 0, 0):
        assert q_mul(a, q_inv(a)) == QONE


@given(m31, m31)
def test_cm31_inverse(a, b):
    if (a, b) != (0, 0):
        assert cm_mul((a, b), cm_inv((a, b))) == (1, 0)


def test_m31_inverse_and_batch():
    rng = random.Random(5)
    vals = [rng.randrange(1, P) for _ in range(257)] + [1, P - 1]
    assert all(v * m31_inv(v) % P == 1 for v in vals)
    assert batch_inverse(vals) == [m31_inv(v) for v in vals]
    with pytest.raises(ZeroDivisionError):
        m31_inv(0)
    with pytest.raises(ZeroDivisionError):
        q_inv((0, 0, 0, 0))


def test_from_partial_evals_recombines_coordinates():
    e = [(3, 0, 0, 0), (5, 0, 0, 0), (7, 0, 0, 0), (11, 0, 0, 0)]
    assert from_partial_evals(e) == (3, 5, 7, 11)


def test_conjugation_is_the_frobenius_of_u():
    rng = random.Random(2)
    for _ in range(20):
        a = tuple(rng.randrange(P) for _ in range(4))
        b = tuple(rng.randrange(P) for _ in range(4))
        assert q_conj(q_mul(a, b)) == q_mul(q_conj(a), q_conj(b))


def test_the_packed_tuple_combiner_equals_the_plain_qm31_sum():
    """graph/statement._Combiner computes sum_j alpha^j v_j - z with the four coordinates packed
    in one integer; the plain QM31 arithmetic gives the same, at the largest values and arities."""
    import random

    from luminair.verifier.air.framework import RelationElements
    from luminair.verifier.fields import P, q_add, q_mul, q_sub
    from luminair.verifier.graph.statement import _Combiner

    rng = random.Random(5)
    for arity in (2, 9, 17, 64):
        alpha = tuple(rng.randrange(P) for _ in range(4))
        z = tuple(rng.randrange(P) for _ in range(4))
        el = RelationElements(z=z, alpha=alpha)
        combine = _Combiner(el, arity)
        for values in ([P - 1] * arity, [rng.randrange(P) for _ in range(arity)], [0] * arity):
            want, power = (0, 0, 0, 0), (1, 0, 0, 0)
            for v in values:
                want = q_add(want, q_mul(power, (v, 0, 0, 0)))
                power = q_mul(power, alpha)
            assert combine(values) == q_sub(want, z)
