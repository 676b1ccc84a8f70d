"""Proof-of-work grinding: the smallest nonce whose hash H(prefix || nonce) has `pow_bits` trailing
zero bits (verifier.channel.check_pow), found on two cores.

The compiled kernel (jit/blake2s.first_pow_nonce) runs in threads over interleaved chunks; its twin,
below, uses hashlib. A proof that has not loaded the compiled kernels grinds with hashlib up to
twice the expected number of nonces (2^(bits + 1)) and, where the answer lies further (about 1
search in 7), loads them for the rest: the search's tail stays short. With hashlib, nonces are tried in chunks:
hashlib's copy/update/digest are mapped over a whole chunk (no Python bytecode per nonce) and the
digests are tested at once with numpy. hashlib keeps the GIL for such
small inputs, so the second core is a forked process that takes every other chunk. The answer is
always the smallest valid nonce, the one the serial search returns, so proofs do not depend on
timing: a worker stops only past a chunk holding a hit, and the parent searches any chunk below
the answer that the child did not report as searched.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import signal
import struct
from itertools import repeat

from ...verifier.channel import Channel, trailing_zeros
from . import kernels
from .backend import xp

_CHUNK = 1 << 13  # nonces per chunk
_FORK_MIN_BITS = 14  # below this the expected search (~2^bits hashes) is shorter than a fork
_PACK = struct.Struct("<Q").pack
_NONE = (1 << 64) - 1
_B2 = type(hashlib.blake2s())
_HASHLIB_NS = 300  # about one nonce with hashlib (kernels.use_compiled)
_COMPILED_CHUNK = 1 << 16  # nonces per compiled task: a round of one chunk per thread is ~1 ms


def first_valid_nonce(base: "hashlib._Hash", pow_bits: int, lo: int, hi: int) -> int | None:
    """The smallest nonce in [lo, hi) whose hash (base state + 8-byte nonce) has `pow_bits`
    trailing zero bits, or None."""
    n = hi - lo
    states = list(map(_B2.copy, repeat(base, n)))
    list(map(_B2.update, states, map(_PACK, range(lo, hi))))
    digests = list(map(_B2.digest, states))
    low = xp.frombuffer(b"".join(digests), dtype="<u8")[::4]  # first 8 bytes of each digest
    mask = xp.uint64((1 << min(pow_bits, 64)) - 1)
    for i in xp.flatnonzero((low & mask) == 0).tolist():
        if trailing_zeros(digests[i]) >= pow_bits:  # the exact test (bits past 64 included)
            return lo + i
    return None


def _search(base: "hashlib._Hash", pow_bits: int, first_chunk: int, step: int, shared: mmap.mmap, me: int,
            stop: int | None = None) -> None:
    """Chunks first_chunk, first_chunk + step, ... below chunk `stop` (None: no end): stop at the
    first hit (stored in slot `me`) or once a chunk starts past a hit of the other worker. Slot
    me + 2 counts chunks searched."""
    other = 1 - me
    k = first_chunk
    while stop is None or k < stop:
        lo = k * _CHUNK
        best = min(struct.unpack_from("<Q", shared, 8 * me)[0], struct.unpack_from("<Q", shared, 8 * other)[0])
        if lo > best:
            return
        hit = first_valid_nonce(base, pow_bits, lo, lo + _CHUNK)
        struct.pack_into("<Q", shared, 8 * (me + 2), k + step)  # every chunk below this one is done
        if hit is not None:
            struct.pack_into("<Q", shared, 8 * me, hit)
            return
        k += step


def grind_compiled(prefix: bytes, pow_bits: int, first: int = 0) -> int:
    """grind_prefix with the compiled hash, from nonce `first` on (every nonce below it holds no
    hit): rounds of one chunk per thread, in nonce order; the first round holding a hit answers
    with its lowest one, so the result is the serial search's."""
    jb = kernels.blake2s()
    words = xp.frombuffer(prefix, dtype="<u4").copy()
    width = kernels.threads()
    while True:
        hits = [-1] * width

        def search(t: int, first: int = first, hits: list[int] = hits) -> None:
            lo = first + t * _COMPILED_CHUNK
            hits[t] = jb.first_pow_nonce(words, pow_bits, lo, lo + _COMPILED_CHUNK)

        kernels.run_parallel(search, range(width))
        found = [h for h in hits if h >= 0]
        if found:
            return min(found)
        first += width * _COMPILED_CHUNK


def grind_prefix(prefix: bytes, pow_bits: int) -> int:
    """Smallest nonce n with trailing_zeros(blake2s(prefix || u64_le(n))) >= pow_bits."""
    compilable = len(prefix) == 32 and pow_bits <= 64
    if compilable and kernels.use_compiled((1 << pow_bits) * _HASHLIB_NS * 1e-9):
        return grind_compiled(prefix, pow_bits)
    stop = _hashlib_chunks(pow_bits) if compilable and kernels.can_load() else None
    hit = _grind_hashlib(prefix, pow_bits, stop)
    if hit is not None:
        return hit
    assert stop is not None  # an unbounded search returns a nonce
    try:
        return grind_compiled(prefix, pow_bits, stop * _CHUNK)
    except kernels.KernelError:  # numba found but not importable: hashlib goes on, unbounded
        got = _grind_hashlib(prefix, pow_bits, None)
        assert got is not None
        return got


def _hashlib_chunks(pow_bits: int) -> int:
    """hashlib's share of a search that the compiled kernel can take over, in chunks: twice the
    expected nonces (a search goes past it with probability e^-2)."""
    return max(1, (2 << pow_bits) // _CHUNK)


def _grind_hashlib(prefix: bytes, pow_bits: int, stop: int | None) -> int | None:
    """The smallest valid nonce below chunk `stop` (None: no end), by hashlib on two processes, or
    None if there is none."""
    base = hashlib.blake2s(prefix)
    if pow_bits < _FORK_MIN_BITS or not hasattr(os, "fork"):
        k = 0
        while stop is None or k < stop:
            hit = first_valid_nonce(base, pow_bits, k * _CHUNK, (k + 1) * _CHUNK)
            if hit is not None:
                return hit
            k += 1
        return None
    shared = mmap.mmap(-1, 32)
    struct.pack_into("<4Q", shared, 0, _NONE, _NONE, 0, 1)  # hits (parent, child); next chunks
    pid = os.fork()
    if pid == 0:  # child: odd chunks; leave without running the parent's cleanup handlers
        code = 1
        try:
            _search(base, pow_bits, 1, 2, shared, 1, stop)
            code = 0
        finally:
            os._exit(code)
    try:
        _search(base, pow_bits, 0, 2, shared, 0, stop)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    os.waitpid(pid, 0)
    mine, theirs, next_even, next_odd = struct.unpack_from("<4Q", shared, 0)
    shared.close()
    best = min(mine, theirs)
    # Chunks below the answer (or below `stop`, with no answer) that a worker did not report as
    # searched (the child failed, or a stop test read a half-written slot): search them here, in order.
    last = best // _CHUNK + 1 if best != _NONE else stop
    assert last is not None  # unbounded, the parent's own search ends only at a hit
    for k in sorted([*range(next_even, last, 2), *range(next_odd, last, 2)]):
        if k * _CHUNK > best:
            break
        hit = first_valid_nonce(base, pow_bits, k * _CHUNK, (k + 1) * _CHUNK)
        if hit is not None:
            best = min(best, hit)
            break
    return None if best == _NONE else best


def grind(channel: Channel, pow_bits: int) -> int:
    """Smallest nonce whose proof-of-work hash has `pow_bits` trailing zero bits."""
    return grind_prefix(channel.pow_prefix(pow_bits), pow_bits)
