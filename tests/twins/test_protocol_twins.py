"""Twins of the protocol steps: OODS evaluation, DEEP quotients, FRI folds, constraint evaluators."""

import random

import numpy as np
import pytest

from luminair.prover.stark import circle_fft as cf
from luminair.prover.stark.constraints import DomainEvaluator
from luminair.prover.stark.fri_prover import fold_circle, fold_line
from luminair.prover.stark.pcs_prover import eval_at_point, quotient_column
from luminair.verifier.air.examples import FibonacciComponent, SquareUserComponent
from luminair.verifier.air.framework import Air
from luminair.verifier.air.point import PointEvaluator, shifted_point
from luminair.verifier.circle import domain_point, line_domain_x, qpoint_from_point, qpoint_from_t
from luminair.verifier.fields import P
from luminair.verifier.pcs import Sample, quotient_values
from luminair.verifier.poly import eval_circle_poly_m31, fold_circle_pair, fold_line_pair


def arr(x):
    return np.array(x, dtype=np.uint64)


def test_eval_at_point_matches_the_folding_evaluation():
    rng = random.Random(1)
    coeffs = [arr([rng.randrange(P) for _ in range(64)]) for _ in range(3)]
    z = qpoint_from_t((9, 8, 7, 6))
    got = eval_at_point(coeffs, z)
    assert got == [eval_circle_poly_m31(c.tolist(), z) for c in coeffs]


def test_vectorized_folds_match_scalar_folds():
    rng = random.Random(2)
    n = 5
    col = tuple(arr([rng.randrange(P) for _ in range(1 << n)]) for _ in range(4))
    alpha = (5, 6, 7, 8)
    out = fold_circle(col, n, alpha)
    for i in range(1 << (n - 1)):
        e = tuple(int(c[2 * i]) for c in col)
        o = tuple(int(c[2 * i + 1]) for c in col)
        assert tuple(int(c[i]) for c in out) == fold_circle_pair(e, o, domain_point(2 * i, n)[1], alpha)
    out = fold_line(col, n, alpha)
    for i in range(1 << (n - 1)):
        e = tuple(int(c[2 * i]) for c in col)
        o = tuple(int(c[2 * i + 1]) for c in col)
        assert tuple(int(c[i]) for c in out) == fold_line_pair(e, o, line_domain_x(2 * i, n), alpha)


def test_quotient_column_matches_the_verifier_at_every_position():
    rng = random.Random(3)
    ell = 5
    cols = {(0, c): arr([rng.randrange(P) for _ in range(1 << ell)]) for c in range(3)}
    z = qpoint_from_t((1, 2, 3, 4))
    z2 = shifted_point(z, 1, ell - 1)
    samples = [
        Sample(0, 0, z, (1, 2, 3, 4)),
        Sample(0, 1, z, (5, 6, 7, 8)),
        Sample(0, 1, z2, (9, 9, 9, 9)),
        Sample(0, 2, z2, (0, 1, 0, 1)),
    ]
    alpha = (11, 12, 13, 14)
    vec = quotient_column(ell, samples, cols, alpha)
    opened = {k: dict(enumerate(v.tolist())) for k, v in cols.items()}
    ref = quotient_values(ell, list(range(1 << ell)), samples, opened, alpha)
    assert [tuple(int(c[p]) for c in vec) for p in range(1 << ell)] == [ref[p] for p in range(1 << ell)]


@pytest.mark.parametrize("component", [FibonacciComponent(4, 5, 1, 1, 77), SquareUserComponent(4, 123)])
def test_domain_evaluator_equals_point_evaluator_on_the_same_values(component):
    """Random column polynomials: the prover's combined constraints at a domain point equal the
    verifier's combination computed from the same polynomials' values at that point."""
    rng = random.Random(4)
    n = component.log_size
    m = n + 1
    air = Air([component])
    info = air.infos[0]
    coeffs = {name: arr([rng.randrange(P) for _ in range(1 << n)]) for name in component.main_columns}
    alpha = (3, 5, 7, 11)
    ext = {name: cf.extend(c, m) for name, c in coeffs.items()}

    def source(kind, key, offset):
        if kind == "main":
            col = ext[key]
        else:
            ind = np.zeros(1 << n, dtype=np.uint64)
            ind[cf.row_to_storage(n)[int(key)]] = 1
            col = cf.extend(cf.circle_interpolate(ind), m)
        return col if offset == 0 else col[cf.mask_permutation(m, n, offset)]

    # LogUp constraints are compared through full proofs; here: the component's own constraints.
    ev = DomainEvaluator(component, 1 << m, source, None, alpha, info.n_constraints - info.n_batches)
    component.evaluate(ev)
    lay = air.layout
    for pos in (0, 3, 17, (1 << m) - 1):
        pt = qpoint_from_point(domain_point(pos, m))
        sampled = [[] for _ in lay.columns]
        main_vals = []
        for ci, name in enumerate(component.main_columns):
            slot = lay.columns[lay.main_tree][ci]
            main_vals.append(
                [eval_circle_poly_m31(coeffs[name].tolist(), shifted_point(pt, o, n)) for o in slot.masks]
            )
        sampled[lay.main_tree] = main_vals
        pe = PointEvaluator(0, component, lay, sampled, pt, alpha)
        # The closed-form selector has a pole on the trace domain only, never on this domain.
        component.evaluate(pe)
        assert tuple(int(c[pos]) for c in ev.acc) == pe.acc
