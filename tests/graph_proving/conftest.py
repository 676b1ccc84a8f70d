"""Fixtures for graph-proof tests (helpers live in proving_helpers.py)."""

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from proving_helpers import prove_graph


def _mlp_case(fuse: bool):
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
    cx.compile(GenericCompiler(), StwoCompiler(fuse=fuse))
    settings, trace, proof = prove_graph(cx, {"x": rng.uniform(-1, 1, (2, 6))})
    return cx, settings, trace, proof


@pytest.fixture(scope="session")
def mlp_fused_case():
    return _mlp_case(True)


@pytest.fixture(scope="session", params=("fused", "primitives"))
def mlp_case(request, mlp_fused_case):
    """The small MLP proven with the fused Dot components (the default) and with the primitives
    only (StwoCompiler(fuse=False))."""
    return mlp_fused_case if request.param == "fused" else _mlp_case(False)
