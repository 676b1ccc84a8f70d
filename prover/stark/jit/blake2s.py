"""BLAKE2s compiled with numba: Merkle leaves and nodes by the row, and proof-of-work nonces.

The hash is RFC 7693's, with no key, cross-tested against hashlib (tests/twins). A Merkle message
is a 64-byte prefix block (verifier/merkle.py) and then, per node, `cw` words of children (13 words:
two 26-byte digests) and the row's column values (u32 words); the prefix block is compressed once,
by the caller, into `h0`. Every function releases the GIL (nogil), so threads run them in parallel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
_M32 = np.uint32(0xFFFFFFFF)


def initial_state(digest_bytes: int) -> np.ndarray:
    """h after the parameter block: no key, fanout 1, depth 1, `digest_bytes` of output."""
    h = _IV.copy()
    h[0] ^= np.uint32(0x01010000 | digest_bytes)
    return h


@njit(cache=True, inline="always")
def _rotr(x, r):
    # numba widens u32 arithmetic to 64 bits: the casts truncate back to 32
    x = np.uint64(x)
    return np.uint32((x >> np.uint64(r)) | (x << np.uint64(32 - r)))


@njit(cache=True, inline="always")
def _add(a, b):
    return np.uint32(np.uint64(a) + np.uint64(b))


@njit(cache=True, inline="always")
def _add3(a, b, c):
    return np.uint32(np.uint64(a) + np.uint64(b) + np.uint64(c))


@njit(cache=True, nogil=True)
def compress(h, m, t, last):
    """One compression of the 16 words `m` into the state `h` (in place), after `t` bytes."""
    iv = _IV
    s = _SIGMA
    v0, v1, v2, v3, v4, v5, v6, v7 = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    v8, v9, v10, v11 = iv[0], iv[1], iv[2], iv[3]
    v12 = iv[4] ^ np.uint32(t & 0xFFFFFFFF)
    v13 = iv[5] ^ np.uint32(t >> 32)
    v14 = iv[6] ^ _M32 if last else iv[6]
    v15 = iv[7]
    for r in range(10):
        x = s[r]
        v0 = _add3(v0, v4, m[x[0]]); v12 = _rotr(v12 ^ v0, 16); v8 = _add(v8, v12); v4 = _rotr(v4 ^ v8, 12)  # noqa: E702
        v0 = _add3(v0, v4, m[x[1]]); v12 = _rotr(v12 ^ v0, 8); v8 = _add(v8, v12); v4 = _rotr(v4 ^ v8, 7)  # noqa: E702
        v1 = _add3(v1, v5, m[x[2]]); v13 = _rotr(v13 ^ v1, 16); v9 = _add(v9, v13); v5 = _rotr(v5 ^ v9, 12)  # noqa: E702
        v1 = _add3(v1, v5, m[x[3]]); v13 = _rotr(v13 ^ v1, 8); v9 = _add(v9, v13); v5 = _rotr(v5 ^ v9, 7)  # noqa: E702
        v2 = _add3(v2, v6, m[x[4]]); v14 = _rotr(v14 ^ v2, 16); v10 = _add(v10, v14); v6 = _rotr(v6 ^ v10, 12)  # noqa: E702
        v2 = _add3(v2, v6, m[x[5]]); v14 = _rotr(v14 ^ v2, 8); v10 = _add(v10, v14); v6 = _rotr(v6 ^ v10, 7)  # noqa: E702
        v3 = _add3(v3, v7, m[x[6]]); v15 = _rotr(v15 ^ v3, 16); v11 = _add(v11, v15); v7 = _rotr(v7 ^ v11, 12)  # noqa: E702
        v3 = _add3(v3, v7, m[x[7]]); v15 = _rotr(v15 ^ v3, 8); v11 = _add(v11, v15); v7 = _rotr(v7 ^ v11, 7)  # noqa: E702
        v0 = _add3(v0, v5, m[x[8]]); v15 = _rotr(v15 ^ v0, 16); v10 = _add(v10, v15); v5 = _rotr(v5 ^ v10, 12)  # noqa: E702
        v0 = _add3(v0, v5, m[x[9]]); v15 = _rotr(v15 ^ v0, 8); v10 = _add(v10, v15); v5 = _rotr(v5 ^ v10, 7)  # noqa: E702
        v1 = _add3(v1, v6, m[x[10]]); v12 = _rotr(v12 ^ v1, 16); v11 = _add(v11, v12); v6 = _rotr(v6 ^ v11, 12)  # noqa: E702
        v1 = _add3(v1, v6, m[x[11]]); v12 = _rotr(v12 ^ v1, 8); v11 = _add(v11, v12); v6 = _rotr(v6 ^ v11, 7)  # noqa: E702
        v2 = _add3(v2, v7, m[x[12]]); v13 = _rotr(v13 ^ v2, 16); v8 = _add(v8, v13); v7 = _rotr(v7 ^ v8, 12)  # noqa: E702
        v2 = _add3(v2, v7, m[x[13]]); v13 = _rotr(v13 ^ v2, 8); v8 = _add(v8, v13); v7 = _rotr(v7 ^ v8, 7)  # noqa: E702
        v3 = _add3(v3, v4, m[x[14]]); v14 = _rotr(v14 ^ v3, 16); v9 = _add(v9, v14); v4 = _rotr(v4 ^ v9, 12)  # noqa: E702
        v3 = _add3(v3, v4, m[x[15]]); v14 = _rotr(v14 ^ v3, 8); v9 = _add(v9, v14); v4 = _rotr(v4 ^ v9, 7)  # noqa: E702
    h[0] ^= v0 ^ v8
    h[1] ^= v1 ^ v9
    h[2] ^= v2 ^ v10
    h[3] ^= v3 ^ v11
    h[4] ^= v4 ^ v12
    h[5] ^= v5 ^ v13
    h[6] ^= v6 ^ v14
    h[7] ^= v7 ^ v15


@njit(cache=True, nogil=True)
def hash_rows(h0, t0, children, cw, values, out, digest_bytes):
    """out[i] = the digest of node i: state h0 after t0 bytes, then children[cw i : cw (i + 1)]
    (u32 words) and values[:, i] (u32 words), padded and finalized. out is (rows, digest_bytes)."""
    rows = out.shape[0]
    k = values.shape[0]
    words = cw + k
    n_blocks = max(1, (words + 15) // 16)
    m = np.empty(16, dtype=np.uint32)
    h = np.empty(8, dtype=np.uint32)
    for i in range(rows):
        h[:] = h0
        w = 0
        for b in range(n_blocks):
            for j in range(16):
                if w < cw:
                    m[j] = children[cw * i + w]
                elif w < words:
                    m[j] = values[w - cw, i]
                else:
                    m[j] = 0
                w += 1
            last = b == n_blocks - 1
            t = t0 + 4 * (words if last else 16 * (b + 1))
            compress(h, m, t, last)
        for q in range(digest_bytes):
            out[i, q] = np.uint8((h[q >> 2] >> np.uint32(8 * (q & 3))) & np.uint32(0xFF))


@njit(cache=True, nogil=True)
def first_pow_nonce(prefix_words, pow_bits, lo, hi):
    """The smallest nonce in [lo, hi) whose BLAKE2s-256 of prefix (8 words) || nonce (u64 LE)
    has `pow_bits` <= 64 trailing zero bits, or -1."""
    h0 = initial_state_32()
    m = np.zeros(16, dtype=np.uint32)
    m[:8] = prefix_words
    h = np.empty(8, dtype=np.uint32)
    lo_mask = np.uint64((1 << min(pow_bits, 64)) - 1) if pow_bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    for nonce in range(lo, hi):
        m[8] = np.uint32(nonce & 0xFFFFFFFF)
        m[9] = np.uint32(nonce >> 32)
        h[:] = h0
        compress(h, m, 40, True)
        low = np.uint64(h[0]) | (np.uint64(h[1]) << np.uint64(32))
        if low & lo_mask == 0:
            return nonce
    return -1


@njit(cache=True, inline="always")
def initial_state_32():
    h = _IV.copy()
    h[0] ^= np.uint32(0x01010020)
    return h
