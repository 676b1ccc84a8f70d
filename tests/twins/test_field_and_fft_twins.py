"""Every numpy twin in prover/stark against the verifier's pure-Python reference."""

import random

import numpy as np
import pytest

from luminair.prover.stark import circle_fft as cf
from luminair.prover.stark import field_vec as fv
from luminair.verifier import circle as vc
import reference_fft as rf
from luminair.verifier import fields as f
from luminair.verifier.fields import P

EDGE = [0, 1, 2, P - 1, P - 2, (P - 1) // 2, 1 << 30]


@pytest.fixture
def vals():
    rng = random.Random(11)
    a = EDGE + [rng.randrange(P) for _ in range(500)]
    b = list(reversed(EDGE)) + [rng.randrange(P) for _ in range(500)]
    return a, b


def arr(x):
    return np.array(x, dtype=np.uint64)


def test_base_field_ops(vals):
    a, b = vals
    A, B = arr(a), arr(b)
    assert fv.add(A, B).tolist() == [(x + y) % P for x, y in zip(a, b)]
    assert fv.sub(A, B).tolist() == [(x - y) % P for x, y in zip(a, b)]
    assert fv.mul(A, B).tolist() == [x * y % P for x, y in zip(a, b)]
    assert fv.neg(A).tolist() == [(-x) % P for x in a]
    nz = [x for x in a if x]
    assert fv.inv(arr(nz)).tolist() == [f.m31_inv(x) for x in nz]
    assert fv.batch_inverse(arr(nz)).tolist() == f.batch_inverse(nz)
    assert fv.as_base(np.array([-1, -P, 5, P + 3], dtype=np.int64)).tolist() == [P - 1, 0, 5, 3]


def test_secure_field_ops(vals):
    a, b = vals
    qa = [tuple(a[i : i + 4]) for i in range(0, 400, 4)]
    qb = [tuple(b[i : i + 4]) for i in range(0, 400, 4)]
    va = tuple(arr([q[k] for q in qa]) for k in range(4))
    vb = tuple(arr([q[k] for q in qb]) for k in range(4))
    assert fv.q_to_list(fv.q_mul(va, vb)) == [f.q_mul(x, y) for x, y in zip(qa, qb)]
    assert fv.q_to_list(fv.q_add(va, vb)) == [f.q_add(x, y) for x, y in zip(qa, qb)]
    assert fv.q_to_list(fv.q_sub(va, vb)) == [f.q_sub(x, y) for x, y in zip(qa, qb)]
    nz = [i for i, q in enumerate(qa) if q != (0, 0, 0, 0)]
    inv = fv.q_to_list(fv.q_inv(tuple(c[nz] for c in va)))
    assert inv == [f.q_inv(qa[i]) for i in nz]
    c = (3, 1, 4, 1)
    assert fv.q_to_list(fv.q_mul_const(va, c)) == [f.q_mul(x, c) for x in qa]
    assert fv.q_to_list(fv.base_times_const(va[0], c)) == [f.q_mul_m31(c, x[0]) for x in qa]
    assert fv.q_sum(va) == tuple(sum(q[k] for q in qa) % P for k in range(4))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 9])
def test_fft_twins(n):
    rng = random.Random(n)
    c = [rng.randrange(P) for _ in range(1 << n)]
    assert cf.circle_evaluate(arr(c)).tolist() == rf.circle_evaluate(c)
    assert cf.circle_interpolate(arr(rf.circle_evaluate(c))).tolist() == c
    assert cf.line_evaluate(arr(c)).tolist() == rf.line_evaluate(c)
    assert cf.line_interpolate(arr(rf.line_evaluate(c))).tolist() == c
    batch = np.stack([arr(c), arr(list(reversed(c)))])
    assert cf.circle_evaluate(batch)[1].tolist() == rf.circle_evaluate(list(reversed(c)))


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_domain_twins(n):
    xs, ys = cf.domain_points(n)
    assert list(zip(xs.tolist(), ys.tolist())) == [vc.domain_point(q, n) for q in range(1 << n)]
    assert cf.line_domain_points(n).tolist() == [vc.line_domain_x(q, n) for q in range(1 << n)]
    assert cf.row_to_storage(n).tolist() == [vc.row_to_storage(r, n) for r in range(1 << n)]
    assert cf.bit_reverse_permutation(n).tolist() == [vc.bit_reverse(i, n) for i in range(1 << n)]


@pytest.mark.parametrize("m,n,offset", [(4, 4, 1), (4, 4, -1), (6, 4, 1), (6, 4, -3), (5, 3, 2)])
def test_mask_permutation_is_the_shift_by_offset_rows(m, n, offset):
    perm = cf.mask_permutation(m, n, offset)
    step = vc.subgroup_gen_index(n) * offset
    for s in range(1 << m):
        assert vc.domain_storage_index(int(perm[s]), m) == (vc.domain_storage_index(s, m) + step) % (1 << 31)


def test_lde_agrees_with_reference():
    from luminair.prover.stark.pcs_prover import commit_columns
    from reference_commit import commitment_root, storage_order

    rng = random.Random(4)
    cols = [[rng.randrange(P) for _ in range(16)], [rng.randrange(P) for _ in range(32)]]
    storage = [arr(storage_order(c, len(c).bit_length() - 1)) for c in cols]
    assert commit_columns(storage, 2).root == commitment_root(cols, 2)
