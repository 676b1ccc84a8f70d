"""The DEEP quotient of one committed size, compiled with numba (twin: pcs_prover.quotient_column;
reference: verifier.pcs.quotient_values).

For each sample point z (a group), over every domain point (x, y) of the size:
    num = sum_j gamma_j f_j(x, y) - a y - b                      (QM31; f_j base columns)
    den = (z.x - x) conj-part(z.y) - (z.y - y) conj-part(z.x)   (CM31, nonzero off the domain)
and the quotient is sum over groups of num / den. Points run in blocks of _BLOCK: a block's four
accumulators stay in cache while every column streams through once, and its denominators are
inverted together (Montgomery's trick, one exponentiation a block).

Columns arrive as their data addresses (uint32, contiguous, kept alive by the caller): numba takes
no list of arrays cheaply, and one array per column would mean one specialization per count.
"""

from __future__ import annotations

import numpy as np
from numba import carray, njit, types
from numba.extending import intrinsic

from .m31 import P, _fold_mul, addmod, mulmod, powmod, submod

_BLOCK = 1024


@intrinsic
def _u32_pointer(typingctx, addr):
    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(sig.return_type))

    return types.CPointer(types.uint32)(types.int64), codegen


@njit(cache=True)
def _reduce(x):
    return np.uint32(x % np.uint64(P))


@njit(cache=True)
def _accumulate(c, d, ga, gb, l0, l1, l2, l3):
    """l_k += ga_k c + gb_k d, each product folded (< 2^32 a term: 2^31 columns fit a u64 sum): two
    columns a pass over the accumulators. A loop from 0 over slices: with offset indices numba's
    negative-index wraparound kept LLVM from vectorizing it."""
    a0, a1, a2, a3 = ga[0], ga[1], ga[2], ga[3]
    b0, b1, b2, b3 = gb[0], gb[1], gb[2], gb[3]
    for i in range(c.shape[0]):
        f, h = c[i], d[i]
        l0[i] += _fold_mul(a0, f) + _fold_mul(b0, h)
        l1[i] += _fold_mul(a1, f) + _fold_mul(b1, h)
        l2[i] += _fold_mul(a2, f) + _fold_mul(b2, h)
        l3[i] += _fold_mul(a3, f) + _fold_mul(b3, h)


@njit(cache=True, nogil=True)
def quotient_block(lo, hi, xs, ys, addrs, gammas, starts, ab, zs, out):
    """out[:, lo:hi] = the quotient at domain points lo..hi-1.
    addrs[j]: column j's data; gammas (K, 4); group g owns columns starts[g] .. starts[g+1]-1;
    ab (G, 8): a (4 coordinates) then b; zs (G, 8): z.x then z.y (4 coordinates each)."""
    n = xs.shape[0]
    groups = starts.shape[0] - 1
    acc = np.zeros((4, _BLOCK), dtype=np.uint64)
    lin = np.empty((4, _BLOCK), dtype=np.uint64)
    d0 = np.empty(_BLOCK, dtype=np.uint32)
    d1 = np.empty(_BLOCK, dtype=np.uint32)
    norm = np.empty(_BLOCK, dtype=np.uint32)
    prefix = np.empty(_BLOCK, dtype=np.uint32)
    zero = np.zeros(4, dtype=np.uint32)
    for s in range(lo, hi, _BLOCK):
        e = min(hi, s + _BLOCK)
        w = e - s
        acc[:, :w] = 0
        for g in range(groups):
            lin[:, :w] = 0
            for j in range(starts[g], starts[g + 1], 2):
                col = carray(_u32_pointer(addrs[j]), n)[s:e]
                if j + 1 < starts[g + 1]:
                    _accumulate(col, carray(_u32_pointer(addrs[j + 1]), n)[s:e], gammas[j], gammas[j + 1],
                                lin[0], lin[1], lin[2], lin[3])
                else:  # the last of an odd count, beside itself with zero coefficients
                    _accumulate(col, col, gammas[j], zero, lin[0], lin[1], lin[2], lin[3])
            zx0, zx1, zx2, zx3 = zs[g, 0], zs[g, 1], zs[g, 2], zs[g, 3]
            zy0, zy1, zy2, zy3 = zs[g, 4], zs[g, 5], zs[g, 6], zs[g, 7]
            run = np.uint32(1)
            for i in range(w):
                ax0 = submod(zx0, xs[s + i])
                ay0 = submod(zy0, ys[s + i])
                # (ax0 + zx1 i)(zy2 + zy3 i) - (ay0 + zy1 i)(zx2 + zx3 i)
                p0 = submod(mulmod(ax0, zy2), mulmod(zx1, zy3))
                p1 = addmod(mulmod(ax0, zy3), mulmod(zx1, zy2))
                r0 = submod(mulmod(ay0, zx2), mulmod(zy1, zx3))
                r1 = addmod(mulmod(ay0, zx3), mulmod(zy1, zx2))
                d0[i] = submod(p0, r0)
                d1[i] = submod(p1, r1)
                norm[i] = addmod(mulmod(d0[i], d0[i]), mulmod(d1[i], d1[i]))
                prefix[i] = run
                run = mulmod(run, norm[i]) if norm[i] else run  # a zero norm stays zero (its inverse: 0)
            inv = powmod(run, P - 2)
            for i in range(w - 1, -1, -1):
                if norm[i] == 0:
                    ni = np.uint32(0)
                else:
                    ni = mulmod(inv, prefix[i])
                    inv = mulmod(inv, norm[i])
                i0 = mulmod(d0[i], ni)
                i1 = submod(np.uint32(0), mulmod(d1[i], ni))
                y = ys[s + i]
                n0 = submod(_reduce(lin[0, i]), addmod(mulmod(ab[g, 0], y), ab[g, 4]))
                n1 = submod(_reduce(lin[1, i]), addmod(mulmod(ab[g, 1], y), ab[g, 5]))
                n2 = submod(_reduce(lin[2, i]), addmod(mulmod(ab[g, 2], y), ab[g, 6]))
                n3 = submod(_reduce(lin[3, i]), addmod(mulmod(ab[g, 3], y), ab[g, 7]))
                # (n0 + n1 i)(i0 + i1 i), (n2 + n3 i)(i0 + i1 i)
                acc[0, i] += submod(mulmod(n0, i0), mulmod(n1, i1))
                acc[1, i] += addmod(mulmod(n0, i1), mulmod(n1, i0))
                acc[2, i] += submod(mulmod(n2, i0), mulmod(n3, i1))
                acc[3, i] += addmod(mulmod(n2, i1), mulmod(n3, i0))
        for k in range(4):
            for i in range(w):
                out[k, s + i] = acc[k, i] % np.uint64(P)


@intrinsic
def _u64_pointer(typingctx, addr):
    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(sig.return_type))

    return types.CPointer(types.uint64)(types.int64), codegen


@njit(cache=True, nogil=True)
def lincomb_block(lo, hi, n, addrs, coefs, out):
    """out[:, lo:hi] = sum_j coefs[j] * col_j over points lo..hi-1 (QM31 coefficients, canonical
    uint64 base columns at addrs[j], each of n values): pcs_prover.secure_lincomb."""
    acc = np.zeros((4, _BLOCK), dtype=np.uint64)
    zero = np.zeros(4, dtype=np.uint64)
    for s in range(lo, hi, _BLOCK):
        w = min(hi, s + _BLOCK) - s
        acc[:, :w] = 0
        for j in range(0, addrs.shape[0], 2):
            col = carray(_u64_pointer(addrs[j]), n)[s : s + w]
            if j + 1 < addrs.shape[0]:
                _accumulate(col, carray(_u64_pointer(addrs[j + 1]), n)[s : s + w], coefs[j], coefs[j + 1],
                            acc[0], acc[1], acc[2], acc[3])
            else:
                _accumulate(col, col, coefs[j], zero, acc[0], acc[1], acc[2], acc[3])
        for k in range(4):
            for i in range(w):
                out[k, s + i] = acc[k, i] % np.uint64(P)
