"""The fast FFT kernel (uint32 layers, transposed low layers, per-thread scratch, tiled extension)
against the verifier's reference FFT and a plain numpy version of the same layers."""

import random

import numpy as np
import pytest

from luminair.prover.stark import circle_fft as cf
import reference_fft as rf
from luminair.verifier.fields import P

_P = np.uint64(P)


def _plain(data: np.ndarray, twiddles, inverse: bool) -> np.ndarray:
    """The textbook numpy layers (one reshape and broadcast per layer, % P for products)."""
    v = data.copy()
    c, n = v.shape
    order = range(len(twiddles)) if inverse else range(len(twiddles) - 1, -1, -1)
    for j in order:
        view = v.reshape(c, n >> (j + 1), 2, 1 << j)
        w = twiddles[j][None, :, None]
        a = view[:, :, 0, :].copy()
        b = view[:, :, 1, :].copy()
        if inverse:
            view[:, :, 0, :] = (a + b) % _P
            view[:, :, 1, :] = (a + _P - b) % _P * w % _P
        else:
            t = b * w % _P
            view[:, :, 0, :] = (a + t) % _P
            view[:, :, 1, :] = (a + _P - t) % _P
    if inverse:
        v = v * np.uint64(pow(n, P - 2, P)) % _P
    return v


def _rand(rows: int, n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, P, size=(rows, 1 << n), dtype=np.uint64)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 11])
def test_kernel_matches_reference_fft(n):
    rng = random.Random(100 + n)
    c = [rng.randrange(P) for _ in range(1 << n)] + []
    c[0], c[-1] = 0, P - 1  # the extremes of the canonical range
    a = np.array(c, dtype=np.uint64)
    assert cf.circle_evaluate(a).tolist() == rf.circle_evaluate(c)
    assert cf.circle_interpolate(np.array(rf.circle_evaluate(c), dtype=np.uint64)).tolist() == c
    assert cf.line_evaluate(a).tolist() == rf.line_evaluate(c)
    assert cf.line_interpolate(np.array(rf.line_evaluate(c), dtype=np.uint64)).tolist() == c


@pytest.mark.parametrize("rows,n", [(1, 4), (3, 7), (40, 10), (5, 14), (2, 16), (3, 17)])
def test_kernel_matches_plain_layers_in_batches_and_threads(rows, n):
    """Batches that run grouped, one group per thread, and one column per thread."""
    data = _rand(rows, n, n)
    tw, itw = cf.circle_twiddles(n)
    assert np.array_equal(cf.circle_evaluate(data), _plain(data, tw, False))
    assert np.array_equal(cf.circle_interpolate(data), _plain(data, itw, True))
    ltw, litw = cf.line_twiddles(n)
    assert np.array_equal(cf.line_evaluate(data), _plain(data, ltw, False))
    assert np.array_equal(cf.line_interpolate(data), _plain(data, litw, True))


@pytest.mark.parametrize("rows,n,blowup", [(1, 0, 1), (1, 1, 1), (3, 4, 2), (7, 9, 1), (2, 13, 3), (3, 16, 1)])
def test_extend_equals_the_zero_padded_transform(rows, n, blowup):
    coeffs = _rand(rows, n, 7 * n + blowup)
    padded = np.zeros((rows, 1 << (n + blowup)), dtype=np.uint64)
    padded[:, : 1 << n] = coeffs
    tw, _ = cf.circle_twiddles(n + blowup)
    assert np.array_equal(cf.extend(coeffs, n + blowup), _plain(padded, tw, False))
    assert np.array_equal(cf.extend(coeffs[0], n + blowup), _plain(padded[:1], tw, False)[0])
    strided = [np.repeat(c, 2)[0::2] for c in coeffs]  # lists of (strided) vectors: no stacking
    assert np.array_equal(cf.extend(strided, n + blowup), _plain(padded, tw, False))


@pytest.mark.parametrize("rows,n", [(1, 0), (2, 1), (3, 6), (4, 15)])
def test_lists_of_columns_transform_like_arrays(rows, n):
    data = _rand(rows, n, 3 + n)
    as_list = [np.repeat(r, 2)[1::2] for r in data]
    for fn in (cf.circle_evaluate, cf.circle_interpolate, cf.line_evaluate, cf.line_interpolate):
        assert np.array_equal(fn(as_list), fn(data))


def test_inputs_are_left_untouched_and_outputs_are_fresh():
    data = _rand(3, 12, 1)
    keep = data.copy()
    out = cf.circle_evaluate(data)
    back = cf.circle_interpolate(out)
    assert np.array_equal(data, keep) and np.array_equal(back, data)
    again = cf.circle_evaluate(data)  # the scratch buffers are reused: earlier results must stay
    assert np.array_equal(out, again) and out.dtype == np.uint64
