"""BLAKE2s compiled with numba: Merkle leaves and nodes by the row, and proof-of-work nonces.

The hash is RFC 7693's, with no key, cross-tested against hashlib (tests/twins). Messages are
hashed LANES at a time, each state word a SIMD register across the lanes (_compress_lanes).

A Merkle message is a 64-byte prefix block (verifier/merkle.py) and then, per node, `cw` words of
children (13 words: two 26-byte digests) and the row's column values (u32 words); the prefix block
is compressed once, by the caller, into `h0`. Every entry point releases the GIL (nogil), so
threads run them in parallel.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils, errors
from numba.extending import intrinsic

from .deep import _u32_pointer

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


_G = ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
      (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14))


@intrinsic
def _compress_lanes(typingctx, h, m, t, last):
    """The compression of LANES messages at once, written as LLVM vector IR: each of the 16 state
    words is one <LANES x i32> register through the ten (unrolled) rounds, so no state word ever
    goes to memory (4x a loop over lanes that numba compiles itself). h: (8, LANES), m: (16, LANES),
    C-contiguous uint32 arrays; h is updated in place."""
    for a, rows in ((h, 8), (m, 16)):
        if not (isinstance(a, types.Array) and a.dtype == types.uint32 and a.ndim == 2 and a.layout == "C"):
            raise errors.TypingError(f"expected a C-contiguous ({rows}, {LANES}) uint32 array, got {a}")

    def codegen(context, builder, sig, args):
        i32 = ir.IntType(32)
        vt = ir.VectorType(i32, LANES)
        rows = [builder.bitcast(context.make_array(ty)(context, builder, a).data, vt.as_pointer())
                for ty, a in zip(sig.args[:2], args[:2])]
        hp, mp = rows
        hs = [builder.load(builder.gep(hp, [ir.Constant(i32, i)]), align=4) for i in range(8)]
        ms = [builder.load(builder.gep(mp, [ir.Constant(i32, i)]), align=4) for i in range(16)]
        fshr = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vt, [vt, vt, vt]), f"llvm.fshr.v{LANES}i32")

        def splat(x: ir.Value) -> ir.Value:
            one = builder.insert_element(ir.Constant(vt, ir.Undefined), x, ir.Constant(i32, 0))
            return builder.shuffle_vector(one, ir.Constant(vt, ir.Undefined), ir.Constant(vt, [0] * LANES))

        def xor_rotr(a: ir.Value, b: ir.Value, r: int) -> ir.Value:
            x = builder.xor(a, b)
            return builder.call(fshr, [x, x, ir.Constant(vt, [r] * LANES)])

        t64 = args[2]
        last_flag = builder.icmp_unsigned("!=", args[3], ir.Constant(args[3].type, 0))
        v = hs + [ir.Constant(vt, [int(w)] * LANES) for w in _IV]
        v[12] = builder.xor(v[12], splat(builder.trunc(t64, i32)))
        v[13] = builder.xor(v[13], splat(builder.trunc(builder.lshr(t64, ir.Constant(t64.type, 32)), i32)))
        v[14] = builder.xor(v[14], splat(builder.select(last_flag, ir.Constant(i32, 0xFFFFFFFF), ir.Constant(i32, 0))))
        for r in range(10):
            s = _SIGMA[r]
            for i, (a, b, c, d) in enumerate(_G):
                for x, r1, r2 in ((ms[s[2 * i]], 16, 12), (ms[s[2 * i + 1]], 8, 7)):
                    v[a] = builder.add(builder.add(v[a], v[b]), x)
                    v[d] = xor_rotr(v[d], v[a], r1)
                    v[c] = builder.add(v[c], v[d])
                    v[b] = xor_rotr(v[b], v[c], r2)
        for i in range(8):
            builder.store(builder.xor(hs[i], builder.xor(v[i], v[i + 8])), builder.gep(hp, [ir.Constant(i32, i)]), align=4)
        return context.get_dummy_value()

    return types.none(h, m, types.int64, last), codegen


@njit(cache=True, nogil=True)
def compress(h, m, t, last):
    """One compression per lane: h (8, LANES) state words, m (16, LANES) message words, after t
    bytes (the last block if `last`)."""
    _compress_lanes(h, m, np.int64(t), last)


def compress_block(h: np.ndarray, block: bytes, t: int, last: bool) -> np.ndarray:
    """The state (8 words) after compressing one 64-byte block into h (the prefix states)."""
    hs = np.ascontiguousarray(np.repeat(h.astype(np.uint32)[:, None], LANES, axis=1))
    m = np.ascontiguousarray(np.repeat(np.frombuffer(block, dtype="<u4")[:, None], LANES, axis=1))
    compress(hs, m, t, last)
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
    ht = np.empty((LANES, 8), dtype=np.uint32)
    hb = ht.view(np.uint8)  # (LANES, 32): little-endian, as the digests are
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
            compress(h, m, t0 + 4 * (words if last else 16 * (b + 1)), last)
        for i in range(8):  # lanes back to rows, then each digest's bytes (little-endian words)
            for lane in range(LANES):
                ht[lane, i] = h[i, lane]
        for lane in range(count):
            for q in range(digest_bytes):
                out[first + lane, q] = hb[lane, q]


@njit(cache=True, nogil=True)
def gather_rows(addrs, n, lo, vals):
    """vals[i, :] = rows lo.. of column i (uint32, n values, at addrs[i]): a block's leaf words,
    copied without a Python loop over the columns."""
    w = vals.shape[1]
    for i in range(addrs.shape[0]):
        col = carray(_u32_pointer(addrs[i]), n)[lo : lo + w]
        row = vals[i]
        for j in range(w):
            row[j] = col[j]


@njit(cache=True, nogil=True)
def first_pow_nonce(prefix_words, pow_bits, lo, hi):
    """The smallest nonce in [lo, hi) whose BLAKE2s-256 of prefix (8 words) || nonce (u64 LE)
    has `pow_bits` (<= 64) trailing zero bits, or -1."""
    m = np.zeros((16, LANES), dtype=np.uint32)
    for i in range(8):
        for lane in range(LANES):
            m[i, lane] = prefix_words[i]
    h = np.empty((8, LANES), dtype=np.uint32)
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
        compress(h, m, 40, True)
        for lane in range(min(LANES, hi - first)):
            low = np.uint64(h[0, lane]) | (np.uint64(h[1, lane]) << np.uint64(32))
            if low & mask == 0:
                return first + lane
    return -1
