"""LogUp batches compiled with numba (twin: the generic path, verifier.air.framework.batch_fraction
over prover/stark/constraints.py's BV / SV columns; tests/twins/test_logup_kernels.py).

A batch holds E <= LOGUP_BATCH entries, entry e the fraction m_e / d_e with
    d_e = sum_j alpha_e^j v_ej - z_e    (v_ej base columns; constants are folded into -z_e)
and a base numerator m_e (a column or a constant). `fractions` writes the batch's one fraction
(num, den) = (sum_e m_e prod_(i != e) d_i, prod_e d_e); `quotients` num / den; `constraint`
accumulates coef * (diff * den - num), the batch's LogUp constraint. Every value is canonical
(< P) on input and output; field values do not depend on the order of the products, so they equal
the generic path's bit for bit.

Columns arrive as their data addresses (uint64, contiguous, kept alive by the caller), as in
jit/deep.py: one specialization for any number of columns.
"""

from __future__ import annotations

import numpy as np
from numba import carray, njit

from .deep import _u64_pointer
from .m31 import P, _fold_mul, _m32 as _m, _qmul, _reduce64, powmod

_BLOCK = 1024  # rows a block: the block's denominators stay in cache


@njit(cache=True, nogil=True)
def fractions(lo, hi, n, vaddr, vcoef, vent, negz, maddr, mconst, num, den):
    """num[:, r], den[:, r] for rows lo..hi-1. Value column k (at vaddr[k], n values) belongs to
    entry vent[k] with coefficient vcoef[k] (QM31); entry e's numerator is the column at maddr[e],
    or mconst[e] where maddr[e] is 0. Every loop runs over the rows of a block (vectorized)."""
    n_ent = negz.shape[0]
    d = np.empty((n_ent, 4, _BLOCK), dtype=np.uint64)
    m = np.empty((n_ent, _BLOCK), dtype=np.uint64)
    for s in range(lo, hi, _BLOCK):
        w = min(hi, s + _BLOCK) - s
        for e in range(n_ent):
            for c in range(4):
                d[e, c, :w] = negz[e, c]
            if maddr[e] != 0:
                m[e, :w] = carray(_u64_pointer(maddr[e]), n)[s : s + w]
            else:
                m[e, :w] = mconst[e]
        for k in range(vaddr.shape[0]):  # folded products < 2^32: sums of a few stay far below 2^64
            col = carray(_u64_pointer(vaddr[k]), n)[s : s + w]
            de = d[vent[k]]
            g0, g1, g2, g3 = vcoef[k, 0], vcoef[k, 1], vcoef[k, 2], vcoef[k, 3]
            for i in range(w):
                f = col[i]
                de[0, i] += _fold_mul(g0, f)
                de[1, i] += _fold_mul(g1, f)
                de[2, i] += _fold_mul(g2, f)
                de[3, i] += _fold_mul(g3, f)
        for e in range(n_ent):
            for c in range(4):
                for i in range(w):
                    d[e, c, i] = _reduce64(d[e, c, i])
        # n/D + y/x = (n x + y D) / (D x), entry after entry, in the output's columns of the block
        n0, n1, n2, n3 = num[0, s : s + w], num[1, s : s + w], num[2, s : s + w], num[3, s : s + w]
        e0, e1, e2, e3 = den[0, s : s + w], den[1, s : s + w], den[2, s : s + w], den[3, s : s + w]
        if n_ent == 1:
            n0[:] = m[0, :w]
            n1[:] = 0
            n2[:] = 0
            n3[:] = 0
            e0[:], e1[:], e2[:], e3[:] = d[0, 0, :w], d[0, 1, :w], d[0, 2, :w], d[0, 3, :w]
            continue
        for i in range(w):  # the first pair: base numerators, 8 products
            y0, y1 = m[0, i], m[1, i]
            n0[i] = _reduce64(_fold_mul(y0, d[1, 0, i]) + _fold_mul(y1, d[0, 0, i]))
            n1[i] = _reduce64(_fold_mul(y0, d[1, 1, i]) + _fold_mul(y1, d[0, 1, i]))
            n2[i] = _reduce64(_fold_mul(y0, d[1, 2, i]) + _fold_mul(y1, d[0, 2, i]))
            n3[i] = _reduce64(_fold_mul(y0, d[1, 3, i]) + _fold_mul(y1, d[0, 3, i]))
            e0[i], e1[i], e2[i], e3[i] = _qmul(d[0, 0, i], d[0, 1, i], d[0, 2, i], d[0, 3, i],
                                               d[1, 0, i], d[1, 1, i], d[1, 2, i], d[1, 3, i])
        for e in range(2, n_ent):
            x = d[e]
            y = m[e]
            for i in range(w):
                x0, x1, x2, x3 = x[0, i], x[1, i], x[2, i], x[3, i]
                t0, t1, t2, t3 = _qmul(n0[i], n1[i], n2[i], n3[i], x0, x1, x2, x3)
                n0[i] = _reduce64(t0 + _fold_mul(y[i], e0[i]))
                n1[i] = _reduce64(t1 + _fold_mul(y[i], e1[i]))
                n2[i] = _reduce64(t2 + _fold_mul(y[i], e2[i]))
                n3[i] = _reduce64(t3 + _fold_mul(y[i], e3[i]))
                e0[i], e1[i], e2[i], e3[i] = _qmul(e0[i], e1[i], e2[i], e3[i], x0, x1, x2, x3)


@njit(cache=True, nogil=True)
def quotients(lo, hi, num, den, out):
    """out[:, r] = num[:, r] / den[:, r] for rows lo..hi-1 (QM31; fields.q_inv's formula, the
    norms inverted together by Montgomery's trick). Returns False, out unspecified, if some
    denominator is 0 (the caller's twin then decides)."""
    p = np.uint64(P)
    two = np.uint64(2)
    w = hi - lo
    a0, a1, b0, b1 = den[0, lo:hi], den[1, lo:hi], den[2, lo:hi], den[3, lo:hi]
    t0 = np.empty(w, dtype=np.uint64)  # D = A^2 - (2 + i) B^2 (CM31), its norm t0^2 + t1^2
    t1 = np.empty(w, dtype=np.uint64)
    nrm = np.empty(w, dtype=np.uint64)
    for i in range(w):
        sa0, sa1 = _reduce64(_m(a0[i], a0[i]) + p - _m(a1[i], a1[i])), _reduce64(two * _m(a0[i], a1[i]))
        sb0, sb1 = _reduce64(_m(b0[i], b0[i]) + p - _m(b1[i], b1[i])), _reduce64(two * _m(b0[i], b1[i]))
        x0 = _reduce64(sa0 + p - _reduce64(two * sb0 + p - sb1))
        x1 = _reduce64(sa1 + p - _reduce64(sb0 + two * sb1))
        t0[i], t1[i] = x0, x1
        nrm[i] = _reduce64(_m(x0, x0) + _m(x1, x1))
    for i in range(w):
        if nrm[i] == 0:
            return False
    ninv = np.empty(w, dtype=np.uint64)  # 1 / nrm, by prefix products
    run = np.uint64(1)
    for i in range(w):
        ninv[i] = run
        run = _m(run, nrm[i])
    inv = np.uint64(powmod(np.uint32(run), P - 2))
    for i in range(w - 1, -1, -1):
        before = ninv[i]
        ninv[i] = _m(inv, before)
        inv = _m(inv, nrm[i])
    n0, n1, n2, n3 = num[0, lo:hi], num[1, lo:hi], num[2, lo:hi], num[3, lo:hi]
    o0, o1, o2, o3 = out[0, lo:hi], out[1, lo:hi], out[2, lo:hi], out[3, lo:hi]
    for i in range(w):
        i0, i1 = _m(t0[i], ninv[i]), _m(p - t1[i], ninv[i])  # 1 / D
        # 1 / (A + B u) = (A - B u) / D
        q0 = _reduce64(_m(a0[i], i0) + p - _m(a1[i], i1))
        q1 = _reduce64(_m(a0[i], i1) + _m(a1[i], i0))
        q2 = _reduce64(_m(p - b0[i], i0) + p - _m(p - b1[i], i1))
        q3 = _reduce64(_m(p - b0[i], i1) + _m(p - b1[i], i0))
        o0[i], o1[i], o2[i], o3[i] = _qmul(n0[i], n1[i], n2[i], n3[i], q0, q1, q2, q3)
    return True


@njit(cache=True, nogil=True)
def constraint(lo, hi, f0, f1, f2, f3, num, den, coef, a0, a1, a2, a3):
    """a[r] += coef * (f[r] * den[:, r] - num[:, r]) for rows lo..hi-1, in place: f = (f0..f3) the
    batch's difference of running sums, a = (a0..a3) the evaluator's accumulator. (Loops run over
    slices from 0: an index known to be non-negative needs no wrap-around check, which would stop
    LLVM vectorizing the loop.)"""
    p = np.uint64(P)
    g0, g1, g2, g3 = coef[0], coef[1], coef[2], coef[3]
    n0, n1, n2, n3 = num[0, lo:hi], num[1, lo:hi], num[2, lo:hi], num[3, lo:hi]
    e0, e1, e2, e3 = den[0, lo:hi], den[1, lo:hi], den[2, lo:hi], den[3, lo:hi]
    f0, f1, f2, f3 = f0[lo:hi], f1[lo:hi], f2[lo:hi], f3[lo:hi]
    a0, a1, a2, a3 = a0[lo:hi], a1[lo:hi], a2[lo:hi], a3[lo:hi]
    for r in range(hi - lo):
        t0, t1, t2, t3 = _qmul(f0[r], f1[r], f2[r], f3[r], e0[r], e1[r], e2[r], e3[r])
        t0, t1, t2, t3 = _qmul(t0 + p - n0[r], t1 + p - n1[r], t2 + p - n2[r], t3 + p - n3[r], g0, g1, g2, g3)
        a0[r] = _reduce64(a0[r] + t0)
        a1[r] = _reduce64(a1[r] + t1)
        a2[r] = _reduce64(a2[r] + t2)
        a3[r] = _reduce64(a3[r] + t3)


@njit(cache=True, nogil=True)
def add_scaled(lo, hi, x0, x1, x2, x3, coef, a0, a1, a2, a3):
    """a[r] += coef * x[r] for rows lo..hi-1, in place (a constraint's term added to the accumulator)."""
    g0, g1, g2, g3 = coef[0], coef[1], coef[2], coef[3]
    x0, x1, x2, x3 = x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi]
    a0, a1, a2, a3 = a0[lo:hi], a1[lo:hi], a2[lo:hi], a3[lo:hi]
    for r in range(hi - lo):
        t0, t1, t2, t3 = _qmul(x0[r], x1[r], x2[r], x3[r], g0, g1, g2, g3)
        a0[r] = _reduce64(a0[r] + t0)
        a1[r] = _reduce64(a1[r] + t1)
        a2[r] = _reduce64(a2[r] + t2)
        a3[r] = _reduce64(a3[r] + t3)
