"""Constant Freivalds errors that cancel across instances (format 9's forgery, fixed in format 10).

Every MatOut instance has challenges of its own (mu, rho, lambda), so its plain terms form a
polynomial Q_I in them, and the verifier checks one equation: the public terms plus every claimed
sum vanish. On row 0 of an instance the counters are u = r = 1, so before format 10 MatOut's term
there had the constant part -S_lo[0], matched by a constant in its MatIn (or MatPair): a prover who
adds e to S_lo[0] of one instance and -e to another's moved two outputs by +-e / 2^s and every
equation still held, for every challenge. Now every plain term is a multiple of its instance's mu
(verifier/air/framework.py enforces the rule when an AIR is built), so each Q_I has no constant
term and the errors show in the LogUp sum. The forger (proving_helpers.forge_instance_constants)
re-solves the rounding, every range limb and every value downstream, so nothing else objects."""

from __future__ import annotations

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.verifier.graph import mat_plans
from luminair.verifier.graph import statement as graph_statement
from proving_helpers import check, forge_instance_constants, matout_instances, prove_graph

RNG = np.random.default_rng(24)


def _proven(cx: Graph, feed: dict):
    cx.compile(GenericCompiler(), StwoCompiler())
    settings, trace, proof = prove_graph(cx, feed)
    assert check(settings, proof).success
    return cx, settings, trace


def _assert_forgeries_rejected(case, pairs: list[tuple[int, int]]) -> None:
    """The forger with nothing forged gives a valid proof; opposite errors on two instances'
    first rows are rejected by the claimed sums."""
    cx, settings, trace = case
    assert check(settings, forge_instance_constants(cx, trace, settings, {})).success
    for a, b in pairs:
        res = check(settings, forge_instance_constants(cx, trace, settings, {a: 1, b: -1}))
        assert not res.success and res.check == "LogUp sum", res.error_message


@pytest.fixture(scope="module")
def batch_mlp():
    """An honest batch MLP 64-1024-10 at batch 128: its MatOut splits into two instances (the first
    layer's 131072 rows alone, the second layer's 1280 apart: statement.split_parts)."""
    cx = Graph()
    x = cx.input("x", (128, 64))
    h = (x @ cx.constant(RNG.uniform(-0.2, 0.2, (64, 1024)), "w1") + cx.constant(RNG.uniform(-0.2, 0.2, 1024), "b1"))
    (h.relu() @ cx.constant(RNG.uniform(-0.1, 0.1, (1024, 10)), "w2") + cx.constant(RNG.uniform(-0.1, 0.1, 10), "b2")).output("y")
    return _proven(cx, {"x": RNG.uniform(-1, 1, (128, 64))})


def test_the_batch_mlp_has_two_matout_instances(batch_mlp):
    _, settings, _ = batch_mlp
    assert [settings.plans[k].component.name for k in matout_instances(settings)] == ["matoutb", "matoutb.1"]


def test_opposite_errors_in_the_batch_mlps_two_instances_are_rejected(batch_mlp):
    """+1 on h[0, 0] (then through ReLU into the second layer, re-solved) and -1 on y[0, 0]."""
    a, b = matout_instances(batch_mlp[1])
    _assert_forgeries_rejected(batch_mlp, [(a, b)])


@pytest.fixture(scope="module")
def two_variants():
    """Products of two variants (bias, none) that the cost model keeps apart: two instances."""
    cx = Graph()
    x = cx.input("x", (64, 16))
    (x @ cx.constant(RNG.uniform(-1, 1, (16, 8)), "w1") + cx.constant(RNG.uniform(-1, 1, 8), "b1")).output("y")
    (x @ cx.constant(RNG.uniform(-1, 1, (16, 512)), "w2")).output("z")
    return _proven(cx, {"x": RNG.uniform(-1, 1, (64, 16))})


def test_opposite_errors_in_two_variants_are_rejected(two_variants):
    _, settings, _ = two_variants
    a, b = matout_instances(settings)
    assert {settings.plans[k].component.name for k in (a, b)} == {"matout", "matoutb"}
    _assert_forgeries_rejected(two_variants, [(a, b), (b, a)])


@pytest.fixture(scope="module")
def pair_and_known():
    """Attention's q k^T (MatPair, a MatOut of four limb sums) beside a dense layer with a bias
    (MatIn, a MatOut of two): two instances of different kinds of plain terms."""
    cx = Graph()
    q = cx.input("q", (2, 16, 8), private=True)
    k = cx.input("k", (2, 16, 8), private=True)
    (q @ k.permute((0, 2, 1))).output("s")
    x = cx.input("x", (64, 16))
    (x @ cx.constant(RNG.uniform(-1, 1, (16, 512)), "w") + cx.constant(RNG.uniform(-1, 1, 512), "b")).output("y")
    feed = {"q": RNG.uniform(-1, 1, (2, 16, 8)), "k": RNG.uniform(-1, 1, (2, 16, 8)), "x": RNG.uniform(-1, 1, (64, 16))}
    return _proven(cx, feed)


def test_opposite_errors_through_a_pair_product_are_rejected(pair_and_known):
    _, settings, _ = pair_and_known
    assert "MatPair" in [p.kind for p in settings.plans]
    a, b = matout_instances(settings)
    assert {settings.plans[k].component.name for k in (a, b)} == {"matoutw", "matoutb"}
    _assert_forgeries_rejected(pair_and_known, [(a, b)])


# --- every kind of plain term, random combinations across many instances -----------------------


@pytest.fixture(scope="module")
def many_instances():
    """A small graph with every kind of plain term (MatIn of whole weights, with and without a
    bias; MatIn of public weights in limbs; MatPair), its products split into as many instances as
    the planner allows (the splitting and merging thresholds lowered, for the prover and the
    verifier alike: a publisher-shaped layout)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(graph_statement, "SPLIT_MIN_WASTE", 1)
        mp.setattr(graph_statement, "SPLIT_MIN_PART", 1)
        mp.setattr(mat_plans, "COLUMN_CELLS", -(1 << 40))  # variants never merged
        cx = Graph()
        x = cx.input("x", (4, 16))
        (x @ cx.constant(RNG.uniform(-1, 1, (16, 8)), "w1")).output("y1")
        (x @ cx.constant(RNG.uniform(-1, 1, (16, 8)), "w2") + cx.constant(RNG.uniform(-1, 1, 8), "b2")).output("y2")
        (x @ cx.constant(RNG.uniform(-1, 1, (16, 12)), "w3") + cx.constant(RNG.uniform(-1, 1, 12), "b3")).output("y3")
        z = cx.input("z", (16, 8))
        (x @ z).output("y4")
        q = cx.input("q", (2, 8, 4), private=True)
        k = cx.input("k", (2, 8, 4), private=True)
        (q @ k.permute((0, 2, 1))).output("s")
        feed = {"x": RNG.uniform(-1, 1, (4, 16)), "z": RNG.uniform(-1, 1, (16, 8)),
                "q": RNG.uniform(-1, 1, (2, 8, 4)), "k": RNG.uniform(-1, 1, (2, 8, 4))}
        return _proven(cx, feed)  # (the thresholds restored for the module's other tests)


def test_random_constant_errors_across_instances_are_rejected(many_instances):
    cx, settings, trace = many_instances
    ks = matout_instances(settings)
    kinds = {p.kind for p in settings.plans}
    assert {"MatIn", "MatPair"} <= kinds and len(ks) >= 4, [p.component.name for p in settings.plans]
    assert any(settings.plans[k].component.split_w for k in ks) and any(settings.plans[k].component.bias for k in ks)
    rng = np.random.default_rng(9)
    with pytest.MonkeyPatch.context() as mp:  # the verifier derives the same layout
        mp.setattr(graph_statement, "SPLIT_MIN_WASTE", 1)
        mp.setattr(graph_statement, "SPLIT_MIN_PART", 1)
        mp.setattr(mat_plans, "COLUMN_CELLS", -(1 << 40))
        assert check(settings, forge_instance_constants(cx, trace, settings, {})).success
        for trial in range(6):
            chosen = rng.choice(ks, size=int(rng.integers(2, len(ks) + 1)), replace=False)
            deltas = [int(v) for v in rng.integers(-3, 4, len(chosen) - 1)]
            deltas.append(-sum(deltas) if trial % 3 else 1 - sum(deltas))  # most sum to zero
            if not any(deltas):
                deltas[0], deltas[-1] = 1, -1
            forged = forge_instance_constants(cx, trace, settings, dict(zip(map(int, chosen), deltas)))
            res = check(settings, forged)
            assert not res.success and res.check == "LogUp sum", (trial, deltas, res.error_message)


# --- a training step forged that way ---------------------------------------------------------


def test_a_training_step_forged_across_its_instances_is_rejected_by_verify_and_verify_chain():
    """MLP 64-512-4 at batch 32: the forward products (public weights, a bias) and the backward
    ones are two MatOut variants; +1 and -1 on their first rows would change the loss and the new
    weights of a step that verify_chain accepts as the next link."""
    from luminair.prover.train import TDCLM, init_mlp, mlp_program, onehot
    from luminair.verifier import verify
    from luminair.verifier.training_chain import verify_chain

    work = 4_000_000  # the honest step declares about 2.0M units (its public weights and state)

    prog = mlp_program([64, 512, 4], 32, TDCLM(lr=0.02), preset="fast")
    settings = prog.settings()
    a, b = matout_instances(settings)
    rng = np.random.default_rng(3)
    batch = {"x": rng.uniform(0, 1, (32, 64)), "y": onehot(rng.integers(0, 4, 32), 4)}
    params, state = prog.quantize(init_mlp([64, 512, 4])), prog.init_state()
    trace = prog.graph.gen_trace(prog.feed(params, state, batch, 0, 5))
    honest = forge_instance_constants(prog.graph, trace, settings, {})
    assert verify_chain([(honest, settings.data)], min_security_bits=0, max_work=work).success
    forged = forge_instance_constants(prog.graph, trace, settings, {a: 1, b: -1})
    res = verify(forged, settings.data, min_security_bits=0, max_work=work)
    assert not res.success and res.check == "LogUp sum", res.error_message
    chain = verify_chain([(forged, settings.data)], min_security_bits=0, max_work=work)
    assert not chain.success and chain.check == "LogUp sum" and chain.failed_step == 0, chain.error_message
