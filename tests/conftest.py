"""Shared fixtures: proofs made once per session (the prover is the slow part), and the example
AIRs of the STARK core (examples/example_airs.py) on the import path."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from luminair.verifier.config import PRESETS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

FAST = PRESETS["fast"]
DEV_FLOOR = 0  # tests of development-preset proofs lower the verifier's floor explicitly


def _pair(build, feed: dict, **settings_args) -> tuple[bytes, bytes]:
    from luminair.prover import Graph

    cx = Graph()
    build(cx)
    settings = cx.gen_settings(**settings_args)
    proof = cx.prove(cx.gen_trace(feed), settings)
    return settings.data, proof.data


@pytest.fixture(scope="session")
def stark_files() -> tuple[bytes, bytes]:
    """(settings, proof) of a graph at the default (96-bit) preset, large enough for FRI to commit
    inner layers (components of 2^12 rows): a private 64 x 64 input squared and summed by rows."""

    def build(cx):
        x = cx.input("x", (64, 64), private=True)
        (x * x).sum_reduce(1).output("y")

    return _pair(build, {"x": np.linspace(-0.5, 0.5, 64 * 64).reshape(64, 64)}, preset="default")


@pytest.fixture(scope="session")
def lookup_files() -> tuple[bytes, bytes]:
    """(settings, proof) of a graph with table lookups (exp, range checks) at the default preset."""

    def build(cx):
        x = cx.input("x", (1, 16))
        (x * cx.constant(np.linspace(-1, 1, 16).reshape(1, 16), "w")).exp().output("y")

    return _pair(build, {"x": np.linspace(-2, 2, 16).reshape(1, 16)}, preset="default")
