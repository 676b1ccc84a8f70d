"""A proof made for another settings.bin of the same model: which configuration it was made with.

A proof commits to the BLAKE2s digest of the whole settings.bin it was made for. When its public
inputs and outputs fit the given settings, the likeliest difference is the configuration (another
--preset or --security), a 6-byte field near the start of the file: splicing each configuration the
prover could have chosen into the given file and hashing it finds the one the proof was made for,
exactly (a digest match), or shows that the difference lies elsewhere (labels, a custom config)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace

from luminair.verifier.config import (
    LIGHT_POW_BITS, MAX_LOG_BLOWUP, MIN_LOG_BLOWUP, PRESETS, PcsConfig, at_blowup, with_pow_bits,
)
from luminair.verifier.formats import FORMAT_VERSION, SETTINGS_MAGIC, Writer, write_config

CONFIG_AT = len(SETTINGS_MAGIC) + 2 + 1  # magic, u16 format version, u8 statement kind
MAX_TOPPED_QUERIES = 16  # queries the prover adds to reach the union bound (proving.reach_union_bound)
MAX_HASHED_BYTES = 1 << 29  # the search hashes at most this much (about a second): a large file has fewer candidates tried


def config_bytes(config: PcsConfig) -> bytes:
    w = Writer()
    write_config(w, config)
    return w.bytes()


def candidate_configs() -> Iterator[PcsConfig]:
    """Every configuration `luminair prove` chooses (the presets as sized per trace, --security BITS),
    each with the queries the union bound may add; the likeliest first."""
    from luminair.prover.presets import config_for_bits

    bases: list[PcsConfig] = []
    for preset in PRESETS.values():
        for base in (preset, with_pow_bits(preset, LIGHT_POW_BITS)):
            bases += [base] + [at_blowup(base, b) for b in range(MIN_LOG_BLOWUP, MAX_LOG_BLOWUP + 1)]
    bases += [config_for_bits(bits) for bits in range(1, 129)]
    seen: set[PcsConfig] = set()
    for extra in range(MAX_TOPPED_QUERIES + 1):
        for base in bases:
            cfg = replace(base, n_queries=base.n_queries + extra)
            if cfg not in seen:
                seen.add(cfg)
                yield cfg


def proof_config(settings: bytes, proof_digest: bytes) -> PcsConfig | None:
    """The configuration which, put into `settings`, gives the settings.bin `proof_digest` names; None
    when no candidate does (the files differ elsewhere) or the search would hash too much."""
    if not settings.startswith(SETTINGS_MAGIC) or int.from_bytes(settings[len(SETTINGS_MAGIC):CONFIG_AT - 1], "little") != FORMAT_VERSION:
        return None
    head = hashlib.blake2s(settings[:CONFIG_AT])
    width = len(config_bytes(PRESETS["default"]))
    tail = settings[CONFIG_AT + width:]
    budget = MAX_HASHED_BYTES
    for cfg in candidate_configs():
        budget -= len(settings)
        if budget < 0:
            return None
        h = head.copy()
        h.update(config_bytes(cfg))
        h.update(tail)
        if h.digest() == proof_digest:
            return cfg
    return None
