"""LogUp batches of LOGUP_BATCH entries (one QM31 column each, constraints of degree 5) and the
composition committed in COMPOSITION_SPLIT parts (verifier/air/framework.py, point.py)."""

import random
from fractions import Fraction
from types import SimpleNamespace

import pytest
from luminair.verifier.air.framework import COMPOSITION_SPLIT, LOG_EXPAND, LOGUP_BATCH, batch_fraction
from luminair.verifier.air.point import composition_from_samples
from luminair.verifier.circle import qpoint_from_t
from luminair.verifier.fields import P, from_partial_evals
from luminair.verifier.poly import eval_circle_poly_m31


@pytest.mark.parametrize("k", range(1, 7))
def test_a_batch_is_the_sum_of_its_fractions(k):
    rng = random.Random(k)
    nums = [rng.randrange(-50, 50) for _ in range(k)]
    dens = [rng.choice([-1, 1]) * rng.randrange(1, 1000) for _ in range(k)]
    num, den = batch_fraction(nums, dens)
    assert Fraction(num, den) == sum(Fraction(n, d) for n, d in zip(nums, dens))
    product = 1
    for d in dens:
        product *= d
    assert den == product  # the denominator the constraint clears: the product, nothing else


def test_the_batch_size_keeps_the_constraints_within_the_composition():
    # a batch constraint has degree LOGUP_BATCH + 1; divided by the vanishing polynomial (degree n)
    # its quotient has degree below LOGUP_BATCH * 2^n, which the 2^(n + LOG_EXPAND) coefficients hold
    assert LOGUP_BATCH <= 1 << LOG_EXPAND and COMPOSITION_SPLIT == 1 << LOG_EXPAND


@pytest.mark.parametrize("max_log", [4, 6])
def test_the_composition_parts_recombine_to_the_whole_polynomial(max_log):
    """Part j holds the coefficients whose index has j in its top bits; the verifier's
    recombination at a point equals the whole polynomial's value there."""
    rng = random.Random(max_log)
    bound = max_log + LOG_EXPAND
    coords = [[rng.randrange(P) for _ in range(1 << bound)] for _ in range(4)]
    point = qpoint_from_t((rng.randrange(P), rng.randrange(P), rng.randrange(P), rng.randrange(P)))
    whole = from_partial_evals([eval_circle_poly_m31(c, point) for c in coords])
    size = 1 << max_log
    sampled = [[[eval_circle_poly_m31(coords[k][j * size : (j + 1) * size], point)]
                for j in range(COMPOSITION_SPLIT) for k in range(4)]]
    air = SimpleNamespace(max_log_size=max_log, layout=SimpleNamespace(composition_tree=0))
    assert composition_from_samples(air, sampled, point) == whole
    sampled[0][4], sampled[0][8] = sampled[0][8], sampled[0][4]  # two parts in the wrong order
    assert composition_from_samples(air, sampled, point) != whole
