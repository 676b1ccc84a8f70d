"""M31 arithmetic and the circle / line FFT compiled with numba (twins: prover/stark/field_vec.py,
prover/stark/circle_fft.py; references: verifier/fields.py, tests/reference_fft.py).

Values are canonical (< P = 2^31 - 1). A product of two is below 2^62 and folds with 2^31 = 1 (mod P):
(x & P) + (x >> 31) < 2P, so one conditional subtraction makes it canonical.

A transform works in place on one column, its uint32 output row. Layer j pairs positions that
differ in bit j; twiddles of layer j are tw[offs[j] : offs[j + 1]], one per group of 2^(j+1)
positions. Layers run range by range so that each range stays in a cache while its layers run:
an L2 block of 2^_TILE_LOG values, inside it L1 blocks of 2^_BLOCK_LOG; the layers with strides
past a block one pass (or two layers a pass) over the range above it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

P = 0x7FFFFFFF
_BLOCK_LOG = 12  # 16 KB of uint32: an L1 block
_TILE_LOG = 17  # 512 KB: an L2 block


@njit(cache=True)
def mulmod(a, b):
    x = np.uint64(a) * np.uint64(b)
    r = (x & np.uint64(P)) + (x >> np.uint64(31))
    return np.uint32(r - np.uint64(P) if r >= np.uint64(P) else r)


@njit(cache=True)
def addmod(a, b):
    r = np.uint32(a) + np.uint32(b)  # < 2^32: no wrap
    return np.uint32(r - np.uint32(P) if r >= np.uint32(P) else r)


@njit(cache=True)
def submod(a, b):
    return np.uint32(np.uint32(a) + np.uint32(P) - np.uint32(b) if a < b else np.uint32(a) - np.uint32(b))


# The butterflies below are written with min() instead of branches (x - P wraps above x when x < P)
# so that LLVM vectorizes them: about 0.4-0.6 ns a butterfly against 1.8-2.9 with branches.


@njit(cache=True)
def _mul_min(b, t):
    x = np.uint64(b) * np.uint64(t)
    r = (x & np.uint64(P)) + (x >> np.uint64(31))
    return np.minimum(r, r - np.uint64(P))


@njit(cache=True)
def _canon(x):
    """x < 2P (uint64) -> x mod P, as uint32."""
    return np.uint32(np.minimum(x, x - np.uint64(P)))


@njit(cache=True)
def _fwd(a, b, t):
    """(a + b t, a - b t)."""
    bt = _mul_min(b, t)
    return _canon(np.uint64(a) + bt), _canon(np.uint64(a) - bt + np.uint64(P))


@njit(cache=True)
def _inv(a, b, t):
    """(a + b, (a - b) t)."""
    return _canon(np.uint64(a) + np.uint64(b)), np.uint32(_mul_min(_canon(np.uint64(a) - np.uint64(b) + np.uint64(P)), t))


@njit(cache=True)
def _layer(v, lo, hi, j, tw, off, inverse):
    """Layer j on v[lo:hi] (lo aligned to 2^(j+1)): runs of 2^j pairs. Layers 0-2, whose runs are
    too short to vectorize, go through _low3 but in transforms of fewer than 8 values."""
    half = 1 << j
    for base in range(lo, hi, 2 * half):
        t = tw[off + (base >> (j + 1))]
        a = v[base : base + half]
        b = v[base + half : base + 2 * half]
        for i in range(half):
            if inverse:
                a[i], b[i] = _inv(a[i], b[i], t)
            else:
                a[i], b[i] = _fwd(a[i], b[i], t)


_U = np.uint64


@njit(cache=True, inline="always")
def _quad(a, b, c, d, t, ta, tb, inverse):
    """Two layers on four values: (a, c) and (b, d) by t, (a, b) by ta and (c, d) by tb (forward: t's
    layer first; inverse: last)."""
    if inverse:
        a, b = _inv(a, b, ta)
        c, d = _inv(c, d, tb)
        a, c = _inv(a, c, t)
        b, d = _inv(b, d, t)
    else:
        a, c = _fwd(a, c, t)
        b, d = _fwd(b, d, t)
        a, b = _fwd(a, b, ta)
        c, d = _fwd(c, d, tb)
    return a, b, c, d


@njit(cache=True)
def _low3(v, lo, hi, tw, o0, o1, o2, inverse):
    """Layers 2, 1, 0 (inverse: 0, 1, 2) on v[lo:hi], one group of 8 values at a time: layers 1 and 0
    as a _quad on each half, layer 2 across the halves. Indices are unsigned: numba's wraparound of
    negative indices kept LLVM from vectorizing these short strides (about 2.3 ns a butterfly a
    layer, against 0.4 for the three together)."""
    for g in range(_U(lo >> 3), _U(hi >> 3)):
        b = _U(8) * g
        x0, x1, x2, x3 = v[b], v[b + _U(1)], v[b + _U(2)], v[b + _U(3)]
        x4, x5, x6, x7 = v[b + _U(4)], v[b + _U(5)], v[b + _U(6)], v[b + _U(7)]
        t2 = tw[_U(o2) + g]
        t1a, t1b = tw[_U(o1) + _U(2) * g], tw[_U(o1) + _U(2) * g + _U(1)]
        q = _U(o0) + _U(4) * g
        if not inverse:
            x0, x4 = _fwd(x0, x4, t2)
            x1, x5 = _fwd(x1, x5, t2)
            x2, x6 = _fwd(x2, x6, t2)
            x3, x7 = _fwd(x3, x7, t2)
        x0, x1, x2, x3 = _quad(x0, x1, x2, x3, t1a, tw[q], tw[q + _U(1)], inverse)
        x4, x5, x6, x7 = _quad(x4, x5, x6, x7, t1b, tw[q + _U(2)], tw[q + _U(3)], inverse)
        if inverse:
            x0, x4 = _inv(x0, x4, t2)
            x1, x5 = _inv(x1, x5, t2)
            x2, x6 = _inv(x2, x6, t2)
            x3, x7 = _inv(x3, x7, t2)
        v[b], v[b + _U(1)], v[b + _U(2)], v[b + _U(3)] = x0, x1, x2, x3
        v[b + _U(4)], v[b + _U(5)], v[b + _U(6)], v[b + _U(7)] = x4, x5, x6, x7


@njit(cache=True)
def _layer_pair(v, lo, hi, j, tw, off_hi, off_lo, inverse):
    """Layers j and j - 1 in one pass over v[lo:hi] (lo aligned to 2^(j+1)): each group of 2^(j+1)
    positions is four quarters q0..q3 of 2^(j-1), a _quad at each offset. Half the memory traffic
    of two passes."""
    h = 1 << (j - 1)
    for base in range(lo, hi, 4 * h):
        g = base >> (j + 1)
        t = tw[off_hi + g]
        ta = tw[off_lo + 2 * g]
        tb = tw[off_lo + 2 * g + 1]
        q0 = v[base : base + h]
        q1 = v[base + h : base + 2 * h]
        q2 = v[base + 2 * h : base + 3 * h]
        q3 = v[base + 3 * h : base + 4 * h]
        for i in range(h):
            q0[i], q1[i], q2[i], q3[i] = _quad(q0[i], q1[i], q2[i], q3[i], t, ta, tb, inverse)


@njit(cache=True)
def _passes(v, lo, hi, top, bottom, tw, offs, inverse):
    """Layers top..bottom (forward) or bottom..top (inverse) on v[lo:hi], two a pass where they can."""
    if inverse:
        j = bottom
        while j <= top:
            if j + 1 <= top:
                _layer_pair(v, lo, hi, j + 1, tw, offs[j + 1], offs[j], True)
                j += 2
            else:
                _layer(v, lo, hi, j, tw, offs[j], True)
                j += 1
    else:
        j = top
        while j >= bottom:
            if j - 1 >= bottom:
                _layer_pair(v, lo, hi, j, tw, offs[j], offs[j - 1], False)
                j -= 2
            else:
                _layer(v, lo, hi, j, tw, offs[j], False)
                j -= 1


@njit(cache=True)
def _block(v, lo, hi, top, tw, offs, inverse):
    """Layers top..0 on v[lo:hi] (2^(top+1) values, aligned): those with strides past an L1 block in
    passes over the range, the others L1 block by L1 block."""
    b = min(_BLOCK_LOG, top + 1)
    step = 1 << b
    if not inverse:
        _passes(v, lo, hi, top, b, tw, offs, False)
    low = 3 if b >= 3 else 0  # layers below `low` together (_low3)
    for blo in range(lo, hi, step):
        if inverse:
            if low:
                _low3(v, blo, blo + step, tw, offs[0], offs[1], offs[2], True)
            for j in range(low, b):
                _layer(v, blo, blo + step, j, tw, offs[j], True)
        else:
            for j in range(b - 1, low - 1, -1):
                _layer(v, blo, blo + step, j, tw, offs[j], False)
            if low:
                _low3(v, blo, blo + step, tw, offs[0], offs[1], offs[2], False)
    if inverse:
        _passes(v, lo, hi, top, b, tw, offs, True)


@njit(cache=True)
def _range(v, lo, hi, top, tw, offs, inverse):
    """Layers top..0 on v[lo:hi] (2^(top+1) values, aligned), L2 block by L2 block (2^_TILE_LOG
    values) below the layers whose strides pass one."""
    if top < _TILE_LOG:
        _block(v, lo, hi, top, tw, offs, inverse)
        return
    step = 1 << _TILE_LOG
    if not inverse:
        _passes(v, lo, hi, top, _TILE_LOG, tw, offs, False)
    for blo in range(lo, hi, step):
        _block(v, blo, blo + step, _TILE_LOG - 1, tw, offs, inverse)
    if inverse:
        _passes(v, lo, hi, top, _TILE_LOG, tw, offs, True)


@njit(cache=True, nogil=True)
def forward(src, out, tw, offs, log_size, skip_top):
    """out (uint32, 2^log_size) = the evaluations of the coefficients `src` (2^(log_size - skip_top)
    values, zero-padded): the top skip_top layers only copy the lower half up, so src is tiled, and
    every other layer pairs positions within one tile; each tile is transformed in place right
    after it is copied (while it is in the cache)."""
    n = 1 << log_size
    m = src.shape[0]
    for r in range(0, n, m):
        for i in range(m):
            out[r + i] = np.uint32(src[i])
        if m > 1:
            _range(out, r, r + m, log_size - 1 - skip_top, tw, offs, False)


@njit(cache=True, nogil=True)
def inverse(src, out, tw, offs, log_size, n_inv):
    """out (uint32) = the coefficients of the evaluations `src` (2^log_size values), scaled by
    n_inv: each L2 block's lower layers right after it is copied, then the layers above."""
    n = 1 << log_size
    t = min(n, 1 << _TILE_LOG)
    for q in range(0, n, t):
        for i in range(q, q + t):
            out[i] = np.uint32(src[i])
        _block(out, q, q + t, min(log_size, _TILE_LOG) - 1, tw, offs, True)
    if n > t:
        _passes(out, 0, n, log_size - 1, _TILE_LOG, tw, offs, True)
    for i in range(n):
        out[i] = mulmod(out[i], n_inv)


# --- elementwise field arithmetic (twins: field_vec.mul, q_mul) ---------------------------------


# Helpers are inlined by numba (inline="always") and products of values below 2^32 written as
# 32 x 32 -> 64-bit products (the casts): only then does LLVM vectorize the row loops (about 2-4x).


@njit(cache=True, inline="always")
def _reduce64(x):
    """Any uint64 -> x mod P: two folds (< 2^34, then < 2^31 + 8) and one subtraction."""
    r = (x & np.uint64(P)) + (x >> np.uint64(31))
    r = (r & np.uint64(P)) + (r >> np.uint64(31))
    return np.minimum(r, r - np.uint64(P))


@njit(cache=True, inline="always")
def _fold_mul(x, y):
    """x * y folded below 2^32 (congruent mod P) for x, y < 2^32."""
    t = np.uint64(np.uint32(x)) * np.uint64(np.uint32(y))
    return (t & np.uint64(P)) + (t >> np.uint64(31))


@njit(cache=True, inline="always")
def _m32(x, y):
    """x * y mod P for x, y < 2^32."""
    return _reduce64(np.uint64(np.uint32(x)) * np.uint64(np.uint32(y)))


@njit(cache=True, inline="always")
def _qmul(a0, a1, b0, b1, c0, c1, d0, d1):
    """(A + B u)(C + D u) = (AC + (2 + i) BD) + (AD + BC) u (verifier.fields.q_mul) for inputs below
    2^32, canonical outputs. Products are only folded (< 2^32, field_vec.q_mul's way) and each
    coordinate reduced once; 4P (> 2^32) keeps differences non-negative, every sum < 2^37."""
    p4 = np.uint64(4 * P)
    two = np.uint64(2)
    ac0 = _fold_mul(a0, c0) + p4 - _fold_mul(a1, c1)
    ac1 = _fold_mul(a0, c1) + _fold_mul(a1, c0)
    bd0 = _fold_mul(b0, d0) + p4 - _fold_mul(b1, d1)
    bd1 = _fold_mul(b0, d1) + _fold_mul(b1, d0)
    return (_reduce64(ac0 + two * bd0 + two * p4 - bd1), _reduce64(ac1 + bd0 + two * bd1),
            _reduce64(_fold_mul(a0, d0) + p4 - _fold_mul(a1, d1) + _fold_mul(b0, c0) + p4 - _fold_mul(b1, c1)),
            _reduce64(_fold_mul(a0, d1) + _fold_mul(a1, d0) + _fold_mul(b0, c1) + _fold_mul(b1, c0)))


@njit(cache=True, nogil=True)
def mul_vv(a, b, out):
    """out = a * b mod P, exactly numpy's (a * b) % P for any uint64 inputs (the product wraps
    mod 2^64 in both)."""
    for i in range(out.shape[0]):
        out[i] = _reduce64(a[i] * b[i])


@njit(cache=True)
def _m(x, y):
    return _reduce64(x * y)


@njit(cache=True, nogil=True)
def q_mul_vec(a0, a1, b0, b1, c0, c1, d0, d1, r0, r1, s0, s1):
    """(A + B u)(C + D u) = (AC + (2 + i) BD) + (AD + BC) u on canonical QM31 columns, A = a0 + a1 i
    etc. (verifier.fields.q_mul); every output canonical."""
    for i in range(r0.shape[0]):
        r0[i], r1[i], s0[i], s1[i] = _qmul(a0[i], a1[i], b0[i], b1[i], c0[i], c1[i], d0[i], d1[i])


# Sums and differences exactly as field_vec writes them (r = a + b or a + (P - b), then
# min(r, r - P) in wrapping uint64), so the two agree on every input, canonical or not.


@njit(cache=True)
def _min_p(r):
    return np.minimum(r, r - np.uint64(P))


@njit(cache=True, nogil=True)
def add_vv(a, b, out):
    for i in range(out.shape[0]):
        out[i] = _min_p(a[i] + b[i])


@njit(cache=True, nogil=True)
def sub_vv(a, b, out):
    for i in range(out.shape[0]):
        out[i] = _min_p(a[i] + (np.uint64(P) - b[i]))


@njit(cache=True, nogil=True)
def add_vs(a, c, out):
    for i in range(out.shape[0]):
        out[i] = _min_p(a[i] + c)


@njit(cache=True, nogil=True)
def sub_vs(a, c, out):
    d = np.uint64(P) - c
    for i in range(out.shape[0]):
        out[i] = _min_p(a[i] + d)


@njit(cache=True, nogil=True)
def neg_v(a, out):
    for i in range(out.shape[0]):
        out[i] = _min_p(np.uint64(P) - a[i])


@njit(cache=True, nogil=True)
def mul_vs(a, c, out):
    for i in range(out.shape[0]):
        out[i] = _reduce64(a[i] * c)


@njit(cache=True, nogil=True)
def q_mul_vs(a0, a1, b0, b1, c0, c1, d0, d1, r0, r1, s0, s1):
    """q_mul_vec by a QM31 constant (c0, c1, d0, d1 canonical scalars)."""
    for i in range(r0.shape[0]):
        r0[i], r1[i], s0[i], s1[i] = _qmul(a0[i], a1[i], b0[i], b1[i], c0, c1, d0, d1)


@njit(cache=True, nogil=True)
def fold_pairs(c0, c1, c2, c3, inv_tw, a0, a1, a2, a3, o0, o1, o2, o3):
    """o[i] = (f[2i] + f[2i+1]) + alpha (f[2i] - f[2i+1]) inv_tw[i] for a QM31 column f = (c0..c3)
    and a QM31 constant alpha = (a0..a3) (fri_prover._fold_pairs)."""
    p = np.uint64(P)
    two = np.uint64(2)
    for i in range(o0.shape[0]):
        t = np.uint64(inv_tw[i])
        e0, e1, e2, e3 = c0[2 * i], c1[2 * i], c2[2 * i], c3[2 * i]
        d0, d1, d2, d3 = c0[2 * i + 1], c1[2 * i + 1], c2[2 * i + 1], c3[2 * i + 1]
        f0, f1, g0, g1 = (_m(e0 + p - d0, t), _m(e1 + p - d1, t), _m(e2 + p - d2, t), _m(e3 + p - d3, t))
        # alpha (f0 + f1 i + (g0 + g1 i) u), as q_mul_vs
        ac0 = _m(f0, a0) + p - _m(f1, a1)
        ac1 = _m(f0, a1) + _m(f1, a0)
        bd0 = _m(g0, a2) + p - _m(g1, a3)
        bd1 = _m(g0, a3) + _m(g1, a2)
        o0[i] = _reduce64(e0 + d0 + ac0 + two * bd0 + two * p - bd1)
        o1[i] = _reduce64(e1 + d1 + ac1 + bd0 + two * bd1)
        o2[i] = _reduce64(e2 + d2 + _m(f0, a2) + p - _m(f1, a3) + _m(g0, a0) + p - _m(g1, a1))
        o3[i] = _reduce64(e3 + d3 + _m(f0, a3) + _m(f1, a2) + _m(g0, a1) + _m(g1, a0))


@njit(cache=True)
def powmod(a, e):
    """a^e mod P (square and multiply; the compiled twin of verifier.fields' power)."""
    r = np.uint32(1)
    while e:
        if e & 1:
            r = mulmod(r, a)
        a = mulmod(a, a)
        e >>= 1
    return r


@njit(cache=True, nogil=True)
def batch_inverse(a, out):
    """out = 1 / a elementwise (Montgomery's trick: one exponentiation). Returns False, out
    unspecified, if some a[i] is 0 (the caller's twin then decides what zeros give)."""
    n = a.shape[0]
    run = np.uint32(1)
    for i in range(n):
        x = np.uint32(_reduce64(np.uint64(a[i])))
        if x == 0:
            return False
        out[i] = run  # the product of a[:i]
        run = mulmod(run, x)
    inv = powmod(run, P - 2)
    for i in range(n - 1, -1, -1):
        x = np.uint32(_reduce64(np.uint64(a[i])))
        out[i] = mulmod(inv, np.uint32(out[i]))
        inv = mulmod(inv, x)
    return True


@njit(cache=True, nogil=True)
def dot_rows(mat, b0, b1, b2, b3, out, lo, hi):
    """out[j, r] = sum_k mat[r, k] * bj[k] mod P for rows lo..hi-1 (twin: pcs_prover.dot_mod, one call
    per coordinate j). mat below 2^32, b canonical: a product is below 2^63 and folds below 2^33, so
    2^30 folded terms still fit a uint64 sum."""
    p = np.uint64(P)
    s31 = np.uint64(31)
    for r in range(lo, hi):
        s0 = np.uint64(0)
        s1 = np.uint64(0)
        s2 = np.uint64(0)
        s3 = np.uint64(0)
        for k in range(mat.shape[1]):
            x = np.uint64(mat[r, k])
            t0 = x * b0[k]
            t1 = x * b1[k]
            t2 = x * b2[k]
            t3 = x * b3[k]
            s0 += (t0 & p) + (t0 >> s31)
            s1 += (t1 & p) + (t1 >> s31)
            s2 += (t2 & p) + (t2 >> s31)
            s3 += (t3 & p) + (t3 >> s31)
        out[0, r] = _reduce64(s0)
        out[1, r] = _reduce64(s1)
        out[2, r] = _reduce64(s2)
        out[3, r] = _reduce64(s3)
