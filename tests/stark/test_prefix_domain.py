"""The composition's domain at blowups above 2^LOG_EXPAND: the first 2^m storage positions of the
committed circle domain (circle_fft.prefix_twiddles), a circle domain of its own."""

import numpy as np
import pytest
from luminair.prover.stark import circle_fft as cf
from luminair.verifier.circle import index_to_point
from luminair.verifier.fields import P
from luminair.verifier.poly import eval_circle_poly_m31

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("n, m, within", [(3, 5, 6), (4, 6, 8), (5, 7, 7), (2, 4, 7)])
def test_evaluation_and_interpolation_on_a_prefix_domain(n, m, within):
    coeffs = RNG.integers(0, P, 1 << n, dtype=np.uint64)
    evals = cf.extend(coeffs, m, within)
    assert np.array_equal(evals, cf.extend(coeffs, within)[: 1 << m])  # the first positions of the whole
    xs, ys = cf.sub_domain_points(m, within)
    for s in (0, 1, (1 << m) - 1):  # and the polynomial's values at those points
        point = ((int(xs[s]), 0, 0, 0), (int(ys[s]), 0, 0, 0))
        assert eval_circle_poly_m31([int(c) for c in coeffs], point) == (int(evals[s]), 0, 0, 0)
    back = cf.circle_interpolate(evals, within)
    assert np.array_equal(back[: 1 << n], coeffs) and not back[1 << n :].any()


@pytest.mark.parametrize("n, m, within", [(3, 5, 6), (4, 6, 8)])
def test_a_prefix_domain_is_closed_under_row_shifts_and_apart_from_the_trace(n, m, within):
    xs, ys = cf.sub_domain_points(m, within)
    points = set(zip(xs.tolist(), ys.tolist()))
    assert len(points) == 1 << m
    trace = set(zip(*(a.tolist() for a in cf.domain_points(n))))
    assert not points & trace  # the vanishing polynomial is never zero on it
    for offset in (-2, -1, 1):
        perm = cf.mask_permutation(within, n, offset)[: 1 << m]
        assert perm.max() < 1 << m  # a shifted point stays among the first 2^m
        step = index_to_point((offset << (31 - n)) % (1 << 31))  # the trace generator ^ offset
        for s in (0, 3, (1 << m) - 1):
            x, y = int(xs[s]), int(ys[s])
            shifted = ((x * step[0] - y * step[1]) % P, (x * step[1] + y * step[0]) % P)
            assert shifted == (int(xs[perm[s]]), int(ys[perm[s]]))
