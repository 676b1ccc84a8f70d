"""The compiled LogUp batches (prover/stark/logup_batches.py, jit/logup.py) bit for bit against the
generic path: verifier.air.framework.batch_fraction / logup_constraints over the prover's BV / SV
columns, and the verifier's scalar fields on sampled rows."""

import random

import numpy as np
import pytest

from luminair.prover.stark import field_vec as fv
from luminair.prover.stark import kernels
from luminair.prover.stark import logup_batches as lb
from luminair.prover.stark.constraints import BV, SV, DomainEvaluator, combine_values
from luminair.verifier.air.framework import Component, RelationElements, batch_fraction
from luminair.verifier.fields import P, q_add, q_inv, q_mul, q_sub

N = fv._COMPILED_MIN * 2 + 3  # not a multiple of the kernels' blocks
RNG = np.random.default_rng(31)


@pytest.fixture
def compiled(monkeypatch):
    monkeypatch.setenv("LUMINAIR_KERNELS", "numba")
    kernels.expect_work(1e9)


def _rq(rng):
    return tuple(rng.randrange(P) for _ in range(4))


def _col(n=N):
    return RNG.integers(0, P, size=n, dtype=np.uint64)


def _batch(rng, n_entries, elements):
    """Entries with base-column and integer values and multiplicities (as the components write them)."""
    batch = []
    for _ in range(n_entries):
        rel = rng.choice(sorted(elements))
        values = [BV(_col()) if rng.random() < 0.8 else rng.randrange(-5, 1 << 20) for _ in range(rng.randint(1, 3))]
        mult = BV(_col()) if rng.random() < 0.7 else rng.choice([1, -1, 0, 7, P - 2])
        batch.append((rel, mult, values))
    return batch


def _generic(batch, elements, n=N):
    num, den = batch_fraction([m for _, m, _ in batch], [SV(combine_values(v, elements[r], n)) for r, _, v in batch])
    full = lambda x: tuple(np.broadcast_to(np.asarray(c, dtype=np.uint64), (n,)) for c in x)  # noqa: E731
    return full(num.c if isinstance(num, SV) else (num.a if isinstance(num, BV) else num % P, 0, 0, 0)), full(den.c)


def _scalar(batch, elements, row):
    """sum_e m_e / d_e at one row, by the verifier's fields."""
    total = (0, 0, 0, 0)
    for rel, mult, values in batch:
        el = elements[rel]
        d = q_sub((0, 0, 0, 0), el.z)
        for j, v in enumerate(values):
            x = int(v.a[row]) if isinstance(v, BV) else v % P
            d = q_add(d, q_mul(el.powers(j + 1)[j], (x, 0, 0, 0)))
        m = int(mult.a[row]) if isinstance(mult, BV) else mult % P
        total = q_add(total, q_mul((m, 0, 0, 0), q_inv(d)))
    return total


@pytest.mark.parametrize("n_entries", [1, 2, 3, 4])
def test_batch_fractions_and_quotients_equal_the_generic_path(compiled, n_entries):
    rng = random.Random(n_entries)
    elements = {rel: RelationElements(_rq(rng), _rq(rng)) for rel in ("data", "range16")}
    for _ in range(3):
        batch = _batch(rng, n_entries, elements)
        args = lb.inputs(batch, elements, N)
        assert args is not None
        num, den = lb.fraction(args, N)
        gnum, gden = _generic(batch, elements)
        assert all(np.array_equal(u, v) for u, v in zip(num, gnum))
        assert all(np.array_equal(u, v) for u, v in zip(den, gden))
        quo = lb.quotient(batch, elements, N)
        twin = fv.q_mul(gnum, fv.q_inv(gden))
        assert all(np.array_equal(u, v) for u, v in zip(quo, twin))
        for row in (0, 1, N // 2, N - 1):
            assert tuple(int(c[row]) for c in quo) == _scalar(batch, elements, row)


def test_what_the_kernels_do_not_take_goes_the_generic_way(compiled, monkeypatch):
    rng = random.Random(5)
    elements = {"data": RelationElements(_rq(rng), _rq(rng))}
    secure = SV(tuple(_col() for _ in range(4)))
    assert lb.inputs([("data", 1, [secure])], elements, N) is None  # a QM31 value
    assert lb.inputs([("data", secure, [BV(_col())])], elements, N) is None  # a QM31 multiplicity
    assert lb.inputs([("data", 1, [BV(_col(N - 1))])], elements, N) is None  # another length
    assert lb.quotient([("data", 1, [BV(_col(64))])], elements, 64) is None  # short: numpy
    zero = RelationElements((5, 0, 0, 0), _rq(rng))
    col = _col()
    col[7] = 5
    assert lb.quotient([("z", 1, [BV(col)])], {"z": zero}, N) is None  # a zero denominator on row 7
    monkeypatch.setenv("LUMINAIR_KERNELS", "numpy")
    assert not lb.usable(N)


class _Fake(Component):
    name = "fake"


@pytest.mark.parametrize("n_entries,n_terms", [(4, 0), (7, 0), (9, 2), (1, 1)])
def test_finalize_logup_equals_the_reference_constraints(compiled, monkeypatch, n_entries, n_terms):
    """DomainEvaluator.finalize_logup by the kernels against the verifier's logup_constraints on the
    same columns: the same accumulated combination (order, coefficients, the last batch's shift)."""
    rng = random.Random(n_entries * 10 + n_terms)
    elements = {rel: RelationElements(_rq(rng), _rq(rng)) for rel in ("data", "range16")}
    entries = _batch(rng, n_entries, elements)
    terms = [SV(tuple(_col() for _ in range(4))) * BV(_col()) for _ in range(n_terms)]
    n_batches = -(-n_entries // 4) + n_terms
    inter = {(b, o): tuple(_col() for _ in range(4)) for b in range(n_batches) for o in (0, -1)}
    before = [BV(_col()) for _ in range(3)] + [SV(tuple(_col() for _ in range(4)))]  # the component's own
    alpha, shift = _rq(rng), _rq(rng)
    n_constraints = len(before) + n_batches

    def run():
        ev = DomainEvaluator(_Fake(), N, lambda *a: None, lambda b, o: inter[(b, o)], alpha, n_constraints)
        for c in before:
            ev.add_constraint(c)
        ev.entries, ev.terms = list(entries), list(terms)
        ev.finalize_logup(elements, n_batches, shift)
        return ev.acc

    fused = run()
    monkeypatch.setattr(lb, "usable", lambda n: False)
    reference = run()
    assert all(np.array_equal(u, v) for u, v in zip(fused, reference))


def test_the_largest_values_stay_exact(compiled, monkeypatch):
    """Every column, coefficient and constant P - 1 (the bounds of the folded products' sums)."""
    top = (P - 1,) * 4
    elements = {"data": RelationElements(top, top)}
    big = lambda: BV(np.full(N, P - 1, dtype=np.uint64))  # noqa: E731
    batch = [("data", big(), [big(), big(), P - 1]) for _ in range(4)]
    num, den = lb.fraction(lb.inputs(batch, elements, N), N)
    gnum, gden = _generic(batch, elements)
    assert all(np.array_equal(u, v) for u, v in zip((*num, *den), (*gnum, *gden)))
    full = tuple(np.full(N, P - 1, dtype=np.uint64) for _ in range(4))
    acc = lb.add_constraint(tuple(c.copy() for c in full), top, full, num, den, N)
    twin = fv.q_add(full, fv.q_mul_const(fv.q_sub(fv.q_mul(full, tuple(den)), tuple(num)), top))
    assert all(np.array_equal(u, v) for u, v in zip(acc, twin))
    acc = lb.add_scaled(tuple(c.copy() for c in full), top, full, N)
    assert all(np.array_equal(u, v) for u, v in zip(acc, fv.q_add(full, fv.q_mul_const(full, top))))
