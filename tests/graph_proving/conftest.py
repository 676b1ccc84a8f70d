"""Fixtures for graph-proof tests (helpers live in proving_helpers.py)."""

import numpy as np
import pytest

from luminair.prover import Graph
from proving_helpers import prove_graph


@pytest.fixture(scope="session")
def mlp_case():
    """A small MLP with bias and ReLU: (cx, settings, trace, proof)."""
    rng = np.random.default_rng(7)
    cx = Graph()
    x = cx.input("x", (2, 6))
    w1 = cx.constant(rng.uniform(-0.8, 0.8, (6, 5)), "w1")
    b1 = cx.constant(rng.uniform(-0.5, 0.5, (5,)), "b1")
    w2 = cx.constant(rng.uniform(-0.8, 0.8, (5, 3)), "w2")
    h = (x @ w1 + b1).relu()
    (h @ w2).max_reduce(1).output("m")
    (h @ w2).output("y")
    settings, trace, proof = prove_graph(cx, {"x": rng.uniform(-1, 1, (2, 6))})
    return cx, settings, trace, proof
