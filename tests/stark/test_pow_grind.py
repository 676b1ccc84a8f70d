"""The chunked, two-process grind returns exactly the serial search's nonce (the smallest valid
one), so proofs stay byte-identical whatever the timing."""

import struct

import pytest

from luminair.prover.stark import pow_grind
from luminair.verifier.channel import Channel, check_pow, pow_hash, trailing_zeros


def _serial(prefix: bytes, bits: int) -> int:
    nonce = 0
    while trailing_zeros(pow_hash(prefix, nonce)) < bits:
        nonce += 1
    return nonce


@pytest.mark.parametrize("bits", [0, 1, 5, 9, 12])
def test_grind_equals_the_serial_search(bits):
    for seed in range(3):
        c = Channel()
        c.mix_u64(seed)
        prefix = c.pow_prefix(bits)
        nonce = pow_grind.grind(c, bits)
        assert nonce == _serial(prefix, bits)
        assert check_pow(c, bits, nonce)


def test_two_process_grind_equals_the_serial_search(monkeypatch):
    """Small chunks and a low fork threshold: hits land in either worker's chunks, often several."""
    monkeypatch.setattr(pow_grind, "_CHUNK", 64)
    monkeypatch.setattr(pow_grind, "_FORK_MIN_BITS", 1)
    for seed in range(8):
        for bits in (4, 9, 11):
            prefix = struct.pack("<Q", seed) * 4
            assert pow_grind.grind_prefix(prefix, bits) == _serial(prefix, bits)


def test_the_parent_searches_what_the_child_missed(monkeypatch):
    """A child that dies at once leaves its chunks to the parent: same nonce."""
    monkeypatch.setattr(pow_grind, "_CHUNK", 64)
    monkeypatch.setattr(pow_grind, "_FORK_MIN_BITS", 1)
    real = pow_grind._search

    def child_dies(base, bits, first, step, shared, me, stop=None):
        if me == 1:
            raise RuntimeError("child failure")
        real(base, bits, first, step, shared, me, stop)

    monkeypatch.setattr(pow_grind, "_search", child_dies)
    for seed in range(6):
        prefix = struct.pack("<Q", seed) * 4
        assert pow_grind.grind_prefix(prefix, 10) == _serial(prefix, 10)


def test_first_valid_nonce_checks_bits_past_64():
    import hashlib

    base = hashlib.blake2s(b"x" * 32)
    for lo in (0, 1000):
        hit = pow_grind.first_valid_nonce(base, 3, lo, lo + 200)
        assert hit == lo + next(i for i in range(200) if trailing_zeros(pow_hash(b"x" * 32, lo + i)) >= 3)
    assert pow_grind.first_valid_nonce(base, 70, 0, 300) is None


@pytest.mark.parametrize("fork_min_bits", [1, 30])  # the two-process and the serial hashlib search
def test_a_search_past_the_hashlib_budget_goes_on_compiled(monkeypatch, fork_min_bits):
    """hashlib searches its share (here 4 chunks of 64), the compiled kernel the rest: the same nonce."""
    from luminair.prover.stark import kernels

    monkeypatch.setenv("LUMINAIR_KERNELS", "auto")
    monkeypatch.setattr(pow_grind, "_CHUNK", 64)
    monkeypatch.setattr(pow_grind, "_hashlib_chunks", lambda bits: 4)
    monkeypatch.setattr(pow_grind, "_FORK_MIN_BITS", fork_min_bits)
    handed_over = []
    real = pow_grind.grind_compiled
    monkeypatch.setattr(pow_grind, "grind_compiled", lambda p, b, first=0: handed_over.append(first) or real(p, b, first))
    for seed in range(10):
        monkeypatch.setattr(kernels, "_modules", {})  # as in a fresh process: not loaded yet
        prefix = struct.pack("<Q", seed) * 4
        assert pow_grind.grind_prefix(prefix, 9) == _serial(prefix, 9)
    assert handed_over and set(handed_over) == {256}  # some searches went past the budget, from there on
