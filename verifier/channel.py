"""The Blake2s Fiat-Shamir channel (docs/protocol.md "4. The channel": the project's own pinned format).

State: a 32-byte digest (initially zero) and a u32 draw counter reset at every mix.
* mix(data):          digest = H(digest || data)
* mix_u32s(words):    data = the words as u32 little-endian
* mix_felts(qm31s):   data = 4 u32-LE words per QM31
* mix_root(root):     data = the root (merkle.DIGEST_BYTES bytes)
* random bytes:       H(digest || counter u32-LE || 0x00), counter += 1
* draw_base_felts:    8 u32-LE words of random bytes; accepted only if all are < 2P, then reduced
* draw_felt:          the first 4 base felts of one draw as a QM31 (the other 4 are discarded)
* draw_queries(n, L): n positions, each the low L bits of a u32 word (8 words per draw)
H is BLAKE2s-256 from hashlib (no key, no personalization).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence

from .fields import P, QM31

_POW_PREFIX = struct.pack("<I", 0x12345678) + bytes(12)


def blake2s(data: bytes) -> bytes:
    return hashlib.blake2s(data).digest()


class Channel:
    __slots__ = ("digest", "counter")

    def __init__(self) -> None:
        self.digest = bytes(32)
        self.counter = 0

    # --- mixing -----------------------------------------------------------------------------

    def mix(self, data: bytes) -> None:
        self.digest = blake2s(self.digest + data)
        self.counter = 0

    def mix_u32s(self, words: list[int] | tuple[int, ...]) -> None:
        self.mix(struct.pack(f"<{len(words)}I", *words))

    def mix_u64(self, value: int) -> None:
        self.mix_u32s([value & 0xFFFFFFFF, value >> 32])

    def mix_felts(self, felts: Sequence[QM31]) -> None:
        flat = [c for f in felts for c in f]
        self.mix(struct.pack(f"<{len(flat)}I", *flat))

    def mix_root(self, root: bytes) -> None:
        self.mix(root)

    # --- drawing ----------------------------------------------------------------------------

    def random_bytes(self) -> bytes:
        out = blake2s(self.digest + struct.pack("<I", self.counter) + b"\x00")
        self.counter += 1
        return out

    def draw_base_felts(self) -> list[int]:
        while True:
            words = struct.unpack("<8I", self.random_bytes())
            if all(w < 2 * P for w in words):
                return [w % P for w in words]

    def draw_felt(self) -> QM31:
        f = self.draw_base_felts()
        return (f[0], f[1], f[2], f[3])

    def draw_felts(self, n: int) -> list[QM31]:
        out: list[QM31] = []
        while len(out) < n:
            f = self.draw_base_felts()
            out.append((f[0], f[1], f[2], f[3]))
            if len(out) < n:
                out.append((f[4], f[5], f[6], f[7]))
        return out

    def draw_queries(self, n_queries: int, log_size: int) -> list[int]:
        """Sorted distinct positions in [0, 2^log_size) from n_queries draws."""
        mask = (1 << log_size) - 1
        out: set[int] = set()
        drawn = 0
        while drawn < n_queries:
            for w in struct.unpack("<8I", self.random_bytes()):
                if drawn == n_queries:
                    break
                out.add(w & mask)
                drawn += 1
        return sorted(out)

    # --- proof of work ----------------------------------------------------------------------

    def pow_prefix(self, pow_bits: int) -> bytes:
        """H(prefix tag || digest || pow_bits): the grinding target of the current state."""
        return blake2s(_POW_PREFIX + self.digest + struct.pack("<I", pow_bits))


def trailing_zeros(h: bytes) -> int:
    v = int.from_bytes(h[:16], "little")
    if v == 0:
        return 128
    return (v & -v).bit_length() - 1


def pow_hash(prefix: bytes, nonce: int) -> bytes:
    return blake2s(prefix + struct.pack("<Q", nonce))


def check_pow(channel: Channel, pow_bits: int, nonce: int) -> bool:
    return trailing_zeros(pow_hash(channel.pow_prefix(pow_bits), nonce)) >= pow_bits
