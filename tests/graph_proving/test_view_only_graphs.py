"""Graphs that only rearrange their inputs (an Expand, a transpose, an embedding lookup) have
nothing for a proof to attest: StwoCompiler makes each output a Contiguous copy of its view, which
is proven like any computation. A settings.bin without any computation stays refused."""

from __future__ import annotations

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.graph.ops import Op
from luminair.prover.proving import gen_settings, gen_trace, prove
from luminair.verifier import verify

X = np.array([[0.5, -1.25, 2.0], [0.0, 3.5, -0.75]])


def _expand(private: bool) -> Graph:
    g = Graph()
    g.input("x", (1, 3), private=private).broadcast_to((4, 3)).output("y")
    return g


def _transpose(private: bool) -> Graph:
    g = Graph()
    g.input("x", (2, 3), private=private).permute((1, 0)).output("y")
    return g


def _embedding(private: bool) -> Graph:
    g = Graph()
    ids = g.input("x", (4,), index=True, private=private)
    g.embedding(ids, g.constant(np.arange(12.0).reshape(6, 2) / 8, "emb")).output("y")
    return g


FEEDS = {_expand: X[:1], _transpose: X, _embedding: np.array([0, 5, 2, 2])}


@pytest.mark.parametrize("private", [False, True], ids=["public", "private"])
@pytest.mark.parametrize("build", list(FEEDS), ids=lambda b: b.__name__.strip("_"))
def test_a_graph_that_only_rearranges_its_input_proves_its_copy(build, private):
    g = build(private)
    g.compile(GenericCompiler(), StwoCompiler())
    node, _ = g.outputs()["y"]
    assert node.op is Op.CONTIGUOUS
    feed = {"x": FEEDS[build]}
    settings = gen_settings(g, preset="fast")
    r = verify(prove(g, gen_trace(g, feed), settings).data, settings.data, min_security_bits=0)
    assert r.success, r.error_message
    assert r.outputs["y"]["values"] == g.run(feed, exact=True)["y"].reshape(-1).tolist()
    assert (r.inputs or {}).get("x") is None if private else r.inputs["x"]["values"] == feed["x"].reshape(-1).tolist()


def test_a_graph_with_computation_keeps_its_outputs():
    g = Graph()
    x = g.input("x", (2, 3))
    x.permute((1, 0)).output("view")
    (x * x).output("square")
    g.compile(GenericCompiler(), StwoCompiler())
    assert g.outputs()["view"][0].op is Op.INPUT  # the square is attested; the view is the public input's


def test_settings_without_any_computation_are_refused():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import hostile_bench as hb
    from luminair.verifier.graph.spec import NodeSpec

    settings = hb.graph_settings([NodeSpec("Input", (2, 3), name="x")], [("x", 0)], [("y", 0, (("permute", (1, 0)),))])
    r = verify(hb.proof_file(settings, [[1, 2, 3, 4, 5, 6], [1, 4, 2, 5, 3, 6]]), settings, min_security_bits=0)
    assert not r.success and r.check == "malformed file" and "no computation to prove" in r.error_message
