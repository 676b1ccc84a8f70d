"""BLAKE2s compiled with numba: Merkle leaves and nodes by the row, and proof-of-work nonces.

The hash is RFC 7693's, with no key, cross-tested against hashlib (tests/twins). Messages are
hashed LANES at a time: every step of the compression runs over a lane vector, which LLVM turns
into SIMD instructions (about 3x a one-message loop on this project's machine).

A Merkle message is a 64-byte prefix block (verifier/merkle.py) and then, per node, `cw` words of
children (13 words: two 26-byte digests) and the row's column values (u32 words); the prefix block
is compressed once, by the caller, into `h0`. Every entry point releases the GIL (nogil), so
threads run them in parallel.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

LANES = 16
_IV = np.array([0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19],
               dtype=np.uint32)
_SIGMA = np.array([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
], dtype=np.int64)


def initial_state(digest_bytes: int) -> np.ndarray:
    """h after the parameter block: no key, fanout 1, depth 1, `digest_bytes` of output."""
    h = _IV.copy()
    h[0] ^= np.uint32(0x01010000 | digest_bytes)
    return h


# numba widens u32 arithmetic to 64 bits, which hides the rotations from LLVM: these intrinsics
# emit the 32-bit instructions themselves.


@intrinsic
def _add(typingctx, a, b):
    def codegen(context, builder, sig, args):
        return builder.add(args[0], args[1])

    return types.uint32(types.uint32, types.uint32), codegen


@intrinsic
def _add3(typingctx, a, b, c):
    def codegen(context, builder, sig, args):
        return builder.add(builder.add(args[0], args[1]), args[2])

    return types.uint32(types.uint32, types.uint32, types.uint32), codegen


@intrinsic
def _xor_rotr(typingctx, a, b, r):
    """(a ^ b) rotated right by the constant r."""

    def codegen(context, builder, sig, args):
        x = builder.xor(args[0], args[1])
        i32 = ir.IntType(32)
        fshr = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i32, [i32, i32, i32]), "llvm.fshr.i32")
        return builder.call(fshr, [x, x, builder.trunc(args[2], i32)])

    return types.uint32(types.uint32, types.uint32, r), codegen


@njit(cache=True, inline="always")
def _g(v, a, b, c, d, mx, my):
    """The mixing function G on every lane of rows a, b, c, d of the state v."""
    for lane in range(LANES):
        va = _add3(v[a, lane], v[b, lane], mx[lane])
        vd = _xor_rotr(v[d, lane], va, 16)
        vc = _add(v[c, lane], vd)
        vb = _xor_rotr(v[b, lane], vc, 12)
        va = _add3(va, vb, my[lane])
        vd = _xor_rotr(vd, va, 8)
        vc = _add(vc, vd)
        vb = _xor_rotr(vb, vc, 7)
        v[a, lane] = va
        v[b, lane] = vb
        v[c, lane] = vc
        v[d, lane] = vd


@njit(cache=True, nogil=True)
def compress(h, m, t, last, v):
    """One compression per lane: h (8, LANES) state words, m (16, LANES) message words, after t
    bytes; v is a (16, LANES) scratch."""
    for i in range(8):
        for lane in range(LANES):
            v[i, lane] = h[i, lane]
            v[i + 8, lane] = _IV[i]
    t_lo, t_hi = np.uint32(t & 0xFFFFFFFF), np.uint32(t >> 32)
    for lane in range(LANES):
        v[12, lane] ^= t_lo
        v[13, lane] ^= t_hi
        if last:
            v[14, lane] = ~v[14, lane]
    for r in range(10):
        s = _SIGMA[r]
        _g(v, 0, 4, 8, 12, m[s[0]], m[s[1]])
        _g(v, 1, 5, 9, 13, m[s[2]], m[s[3]])
        _g(v, 2, 6, 10, 14, m[s[4]], m[s[5]])
        _g(v, 3, 7, 11, 15, m[s[6]], m[s[7]])
        _g(v, 0, 5, 10, 15, m[s[8]], m[s[9]])
        _g(v, 1, 6, 11, 12, m[s[10]], m[s[11]])
        _g(v, 2, 7, 8, 13, m[s[12]], m[s[13]])
        _g(v, 3, 4, 9, 14, m[s[14]], m[s[15]])
    for i in range(8):
        for lane in range(LANES):
            h[i, lane] ^= v[i, lane] ^ v[i + 8, lane]


def compress_block(h: np.ndarray, block: bytes, t: int, last: bool) -> np.ndarray:
    """The state (8 words) after compressing one 64-byte block into h (the prefix states)."""
    hs = np.repeat(h.astype(np.uint32)[:, None], LANES, axis=1)
    m = np.repeat(np.frombuffer(block, dtype="<u4")[:, None], LANES, axis=1)
    compress(hs, m, t, last, np.empty((16, LANES), dtype=np.uint32))
    return hs[:, 0].copy()


@njit(cache=True, nogil=True)
def hash_rows(h0, t0, children, cw, values, out, digest_bytes):
    """out[i] = the digest of node i: state h0 after t0 bytes, then children[cw i : cw (i + 1)]
    (u32 words) and values[:, i] (u32 words), padded and finalized. out is (rows, digest_bytes)."""
    rows = out.shape[0]
    k = values.shape[0]
    words = cw + k
    n_blocks = max(1, (words + 15) // 16)
    m = np.zeros((16, LANES), dtype=np.uint32)
    h = np.empty((8, LANES), dtype=np.uint32)
    v = np.empty((16, LANES), dtype=np.uint32)
    for first in range(0, rows, LANES):
        count = min(LANES, rows - first)
        for i in range(8):
            for lane in range(LANES):
                h[i, lane] = h0[i]
        for b in range(n_blocks):
            for j in range(16):
                w = 16 * b + j
                if w < cw:
                    for lane in range(count):
                        m[j, lane] = children[cw * (first + lane) + w]
                elif w < words:
                    for lane in range(count):
                        m[j, lane] = values[w - cw, first + lane]
                else:
                    for lane in range(LANES):
                        m[j, lane] = 0
            last = b == n_blocks - 1
            compress(h, m, t0 + 4 * (words if last else 16 * (b + 1)), last, v)
        for lane in range(count):
            for q in range(digest_bytes):
                out[first + lane, q] = np.uint8((h[q >> 2, lane] >> np.uint32(8 * (q & 3))) & np.uint32(0xFF))


@njit(cache=True, nogil=True)
def first_pow_nonce(prefix_words, pow_bits, lo, hi):
    """The smallest nonce in [lo, hi) whose BLAKE2s-256 of prefix (8 words) || nonce (u64 LE)
    has `pow_bits` (<= 64) trailing zero bits, or -1."""
    m = np.zeros((16, LANES), dtype=np.uint32)
    for i in range(8):
        for lane in range(LANES):
            m[i, lane] = prefix_words[i]
    h = np.empty((8, LANES), dtype=np.uint32)
    v = np.empty((16, LANES), dtype=np.uint32)
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) if pow_bits >= 64 else np.uint64((1 << pow_bits) - 1)
    for first in range(lo, hi, LANES):
        for lane in range(LANES):
            nonce = first + lane
            m[8, lane] = np.uint32(nonce & 0xFFFFFFFF)
            m[9, lane] = np.uint32(nonce >> 32)
        for i in range(8):
            for lane in range(LANES):
                h[i, lane] = _IV[i]
        for lane in range(LANES):
            h[0, lane] ^= np.uint32(0x01010020)
        compress(h, m, 40, True, v)
        for lane in range(min(LANES, hi - first)):
            low = np.uint64(h[0, lane]) | (np.uint64(h[1, lane]) << np.uint64(32))
            if low & mask == 0:
                return first + lane
    return -1
