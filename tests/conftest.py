"""Shared fixtures: example proofs made once per session (the prover is the slow part)."""

from __future__ import annotations

import functools

import pytest

from luminair.verifier.config import PRESETS, PcsConfig

FAST = PRESETS["fast"]
DEV_FLOOR = 0  # tests of development-preset proofs lower the verifier's floor explicitly


@functools.lru_cache(maxsize=None)
def example_files(name: str, params: tuple[tuple[str, int], ...], config: PcsConfig) -> tuple[bytes, bytes]:
    from luminair.prover.air.examples import prove_example

    return prove_example(name, dict(params), config)


@pytest.fixture(scope="session")
def fib_files() -> tuple[bytes, bytes]:
    """(settings, proof) of a small Fibonacci AIR at the default (96-bit) preset, large enough for
    FRI to commit inner layers (2^12 rows: three folds from log size 13 to the last layer's 10)."""
    return example_files("fibonacci", (("log_size", 12), ("n_columns", 8)), PRESETS["default"])


@pytest.fixture(scope="session")
def lookup_files() -> tuple[bytes, bytes]:
    """(settings, proof) of the LogUp square-lookup AIR at the default preset."""
    return example_files("square_lookup", (("log_size", 6), ("table_log_size", 6)), PRESETS["default"])
