"""The composition divides by the trace domain's vanishing polynomial Z at every point of its
domain; prove.vanishing_inverses computes Z at one point of each run of 2^n storage positions.
Here Z is evaluated at every point, for each blowup the composition domain is placed by."""

import numpy as np
import pytest

from luminair.prover.stark import circle_fft as cf
from luminair.prover.stark import field_vec as fv
from luminair.prover.stark.prove import _composition_domain, vanishing_inverses
from luminair.verifier.fields import P


@pytest.mark.parametrize("n", [1, 2, 3, 5, 9])
@pytest.mark.parametrize("log_blowup", [0, 1, 2, 3, 4])
def test_the_vanishing_inverses_are_one_over_z_at_every_point(n, log_blowup):
    m, within = _composition_domain(n, log_blowup)
    z = cf.sub_domain_points(m, within)[0]
    for _ in range(n - 1):
        z = fv.sub(fv.mul(fv.add(z, z), z), np.ones_like(z))
    got = vanishing_inverses(n, m, within)
    assert got.shape == z.shape
    assert all(int(a) * int(b) % P == 1 for a, b in zip(got, z))
