"""The verifier's training-step statement (verifier/graph/training.py): the rounding noise it
recomputes (pinned bits), and graphs that use the train/ names wrongly are rejected with the check
"training statement"."""

from __future__ import annotations

import numpy as np
import pytest
from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.air import graph_trace
from luminair.verifier import verify
from luminair.verifier.graph import statement as graph_statement
from luminair.verifier.graph.training import (
    TrainingStatementError,
    from_limbs,
    sr_noise,
    to_limbs,
    weights_digest,
)


def test_noise_bits_are_pinned() -> None:
    """The same (seed, step, index) gives the same bits everywhere: these values are part of the
    statement (a change is a protocol change)."""
    assert sr_noise(7, 0, 0, 20, 10) == [
        886,
        784,
        787,
        743,
        996,
        355,
        770,
        269,
        434,
        66,
        542,
        849,
        48,
        28,
        761,
        959,
        50,
        405,
        260,
        339,
    ]
    assert sr_noise(2**60 - 1, 2**30 - 1, 3, 5, 15) == [8899, 28984, 7032, 7635, 11575]


def test_noise_depends_on_seed_step_and_index_and_is_uniform() -> None:
    base = sr_noise(1, 2, 3, 4096, 8)
    assert sr_noise(1, 2, 3, 4096, 8) == base
    assert sr_noise(2, 2, 3, 4096, 8) != base
    assert sr_noise(1, 3, 3, 4096, 8) != base
    assert sr_noise(1, 2, 4, 4096, 8) != base
    assert sr_noise(1, 2, 3, 10, 8) == base[:10]  # a prefix: the count does not change the bits
    assert min(base) >= 0 and max(base) < 256
    assert abs(np.mean(base) - 127.5) < 6  # uniform: mean of 4096 draws within ~4 sigma
    with pytest.raises(ValueError):
        sr_noise(1, 2, 3, 4, 16)
    with pytest.raises(ValueError):
        sr_noise(2**60, 0, 0, 4, 8)


def test_limbs_round_trip_and_reject_out_of_range() -> None:
    assert from_limbs(to_limbs(2**59 + 12345, 4), "seed") == 2**59 + 12345
    with pytest.raises(TrainingStatementError, match="limb 1"):
        from_limbs([0, 1 << 15], "seed")
    with pytest.raises(TrainingStatementError, match="limb 0"):
        from_limbs([-1, 0], "seed")
    assert weights_digest([("w", (2,), [1, 2])]) != weights_digest([("w", (2,), [1, 3])])
    assert weights_digest([("w", (2,), [1, 2])]) != weights_digest([("v", (2,), [1, 2])])


def _prove(build, feed: dict, monkeypatch) -> tuple[bytes, bytes]:
    """Prove a hand-made graph with a prover that does not check the training statement itself."""
    cx = Graph()
    build(cx)
    cx.compile(GenericCompiler(), StwoCompiler())
    settings = cx.gen_settings(preset="fast")
    with monkeypatch.context() as m:
        m.setattr(graph_statement, "training_statement", lambda *a: None)
        m.setattr(graph_trace, "_check_outputs", lambda *a: None)
        proof = cx.prove(cx.gen_trace(feed), settings)
    return proof.data, settings.data


def _step_graph(
    cx: Graph,
    *,
    noise_private=False,
    noise_shape=(2,),
    seed_shape=(4,),
    extra_input=None,
    new_name="train/new_param/0/w",
    with_loss=True,
    state=False,
    extra_output=None,
    param_name="train/param/0/w",
    noise_name="train/noise/0/4",
    state_shape=(2,),
) -> None:
    cx.input("train/seed", seed_shape)
    cx.input("train/step", (2,))
    w = cx.input(param_name, (2,))
    n = cx.input(noise_name, noise_shape, private=noise_private)
    if extra_input:
        cx.input(extra_input, (1,))
    if state:
        m = cx.input("train/state/0/m", state_shape)
        if state == "paired":
            (m * 0.5).output("train/new_state/0/m")
    (w + n.sum()).output(new_name)  # some update that reads the noise
    if with_loss:
        (w * w).sum().output("train/loss")
    if extra_output:
        (w * 2.0).output(extra_output)


def _feed(
    seed=3,
    step=1,
    noise=None,
    seed_limbs=None,
    extra=None,
    noise_shape=(2,),
    state=False,
    param_name="train/param/0/w",
    noise_name="train/noise/0/4",
    state_shape=(2,),
) -> dict:
    raw = sr_noise(seed, step, 0, int(np.prod(noise_shape)), 4) if noise is None else noise
    feed = {
        "train/seed": np.array(seed_limbs if seed_limbs is not None else to_limbs(seed, 4)) / 1024,
        "train/step": np.array(to_limbs(step, 2)) / 1024,
        param_name: np.array([0.5, -0.25]),
        noise_name: np.array(raw).reshape(noise_shape) / 1024,
    }
    if extra:
        feed[extra] = np.zeros(1)
    if state:
        feed["train/state/0/m"] = np.zeros(state_shape)
    return feed


def _check(proof: bytes, settings: bytes):
    return verify(proof, settings, min_security_bits=0)


def test_a_well_formed_hand_made_step_verifies(monkeypatch) -> None:
    r = _check(*_prove(_step_graph, _feed(), monkeypatch))
    assert r.success, r.error_message
    t = r.extra["training"]
    assert (t["step"], t["seed"], t["loss"]) == (1, 3, 0.3125)
    assert t["old_weights_digest"] != t["new_weights_digest"]


def test_noise_of_another_step_is_rejected(monkeypatch) -> None:
    r = _check(*_prove(_step_graph, _feed(noise=sr_noise(3, 2, 0, 2, 4)), monkeypatch))
    assert not r.success and r.check == "stochastic rounding noise", r.error_message


CASES = {
    "private noise": (dict(noise_private=True), {}, "must be public"),
    "noise shape": (dict(noise_shape=(3,)), dict(noise_shape=(3,)), "must have the parameter's shape"),
    "seed shape": (dict(seed_shape=(3,)), dict(seed_limbs=[1, 2, 3]), "train/seed"),
    "unknown role": (dict(extra_input="train/lr"), dict(extra="train/lr"), "not a known training role"),
    "missing new weights": (
        dict(new_name="train/new_param/0/v"),
        {},
        "needs an output 'train/new_param/0/w'",
    ),
    "missing loss": (dict(with_loss=False), {}, "train/loss"),
    "state without new state": (dict(state=True), dict(state=True), "state inputs"),
    "negative seed limb": ({}, dict(seed_limbs=[-1, 0, 0, 0]), "limb 0"),
    "two inputs for one parameter": (
        dict(extra_input="train/param/0/v"),
        dict(extra="train/param/0/v"),
        "parameter 0 has two inputs",
    ),
    "two new values for one parameter": (
        dict(extra_output="train/new_param/0/v"),
        {},
        "two new-value outputs",
    ),
    "unknown output role": (dict(extra_output="train/grad/0"), {}, "not a known training role"),
    "two noise inputs": (
        dict(extra_input="train/noise/0/5"),
        dict(extra="train/noise/0/5"),
        "two noise inputs",
    ),
    "no parameter": (dict(param_name="x"), dict(param_name="x"), "at least one train/param input"),
    "noise of another parameter": (
        dict(noise_name="train/noise/1/4"),
        dict(noise_name="train/noise/1/4"),
        "noise inputs for parameters [1]",
    ),
    "state shape": (
        dict(state="paired", state_shape=(3,)),
        dict(state=True, state_shape=(3,)),
        "must have the parameter's shape",
    ),
    "new value of an unknown parameter": (dict(extra_output="train/new_param/1/v"), {}, "that have no input"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_training_statement_is_rejected(case: str, monkeypatch) -> None:
    graph_kw, feed_kw, message = CASES[case]
    r = _check(*_prove(lambda cx: _step_graph(cx, **graph_kw), _feed(**feed_kw), monkeypatch))
    assert not r.success and r.check == "training statement", (case, r.error_message)
    assert message in r.error_message, r.error_message
