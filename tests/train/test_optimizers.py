"""Optimizers as graph builders: the fixed-point step of each is its float64 reference within the
fixed-point error, each proves and verifies, and the TD-CLM envelope bounds the step."""

from __future__ import annotations

import numpy as np
import pytest
from luminair.prover import GraphError
from luminair.prover.train import CLM, SGD, TDCLM, Adam, min_eps, mlp_program
from luminair.prover.train.rounding import noise_bits
from luminair.verifier import verify
from train_helpers import BATCH, MAX_WORK, SEED, SIZES, batches, program, start

OPTIMIZERS = {
    "sgd": SGD(lr=0.01, momentum=0.9),
    "sgd plain": SGD(lr=0.01),
    "adam": Adam(lr=0.01),
    "clm": CLM(lr=0.02),
    "tdclm": TDCLM(lr=0.02),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_fixed_point_step_is_the_float64_step_within_its_error(name: str) -> None:
    """Two steps (so the state matters): every new weight within 4 raw units of float64 (the
    update's own error is about one unit; the rest comes from the fixed-point gradient)."""
    prog = program(optimizer=OPTIMIZERS[name])
    params, state = start(prog)
    ref_p, ref_s = params, state
    for i, b in enumerate(batches(2)):
        ex = prog.run_exact(params, state, b, i, SEED)
        ref = prog.reference_step(ref_p, ref_s, b)
        for k in prog.param_shapes:
            err = np.abs(ex.new_params[k] - ref.new_params[k]).max() * prog.one
            assert err <= 4, (name, i, k, err)
            assert not np.array_equal(ex.new_params[k], params[k]) or name.startswith("sgd")
        params, state = ex.new_params, ex.new_state
        ref_p, ref_s = ex.new_params, ex.new_state  # the reference restarts from the proven values


@pytest.mark.parametrize("name", ["adam", "clm", "sgd"])
def test_each_optimizer_step_proves_and_verifies(name: str) -> None:
    prog = program(optimizer=OPTIMIZERS[name])
    params, state = start(prog)
    step = prog.prove_step(params, state, batches(1)[0], 4, SEED)
    r = verify(step.proof, step.settings, min_security_bits=0, max_work=MAX_WORK)
    assert r.success, r.error_message
    assert [p["state"] for p in r.extra["training"]["params"]][0] == sorted(OPTIMIZERS[name].state_slots())
    exact = prog.run_exact(params, state, batches(1)[0], 4, SEED)
    for k in prog.param_shapes:
        np.testing.assert_array_equal(step.new_params[k], exact.new_params[k])


def test_tdclm_envelope_bounds_the_direction() -> None:
    rng = np.random.default_rng(0)
    opt = TDCLM(lr=0.01, b1=0.8, lam=0.0, eps=0.04)
    for _ in range(200):
        m, g = rng.normal(0, 3, 50) * rng.uniform(0, 1), rng.normal(0, 3, 50)
        u, _ = opt.reference_direction(g, {"m": m})
        assert np.abs(u).max() <= 1 / opt.b1 + 1e-12


def test_stochastic_rounding_is_unbiased() -> None:
    """Over many seeds, the mean rounded step equals lr * u to within the sampling error."""
    prog = program(optimizer=SGD(lr=0.003))
    params, state = start(prog)
    b = batches(1)[0]
    ref = prog.reference_step(params, state, b)
    for k in ("fc2.bias", "fc1.weight"):
        steps = [prog.run_exact(params, state, b, 0, seed).new_params[k] for seed in range(60)]
        one_draw = np.abs(steps[0] - ref.new_params[k]).max() * prog.one
        mean_err = np.abs(np.mean(steps, axis=0) - ref.new_params[k]).max() * prog.one
        # one draw is off by up to a raw unit; the mean of 60 (the gradient is the same in every
        # draw) is within a quarter unit (measured: 0.04 and 0.11 raw units)
        assert 0.5 < one_draw < 1.0 and mean_err < 0.25, (k, one_draw, mean_err)
        assert len({s.tobytes() for s in steps}) > 1  # different seeds round differently


def test_effective_learning_rate_is_the_quantized_factor() -> None:
    prog = program(optimizer=TDCLM(lr=0.02))
    c = round(0.02 * (1 << prog.bits) * prog.one) / prog.one  # lr * 2^bits at the graph's resolution
    assert prog.effective_lr == c / (1 << prog.bits)
    assert abs(prog.effective_lr - 0.02) < 0.02 * 1e-3


def test_limits_are_clear_errors() -> None:
    assert min_eps(10) == 33 / 1024
    with pytest.raises(GraphError, match="eps"):
        mlp_program(SIZES, BATCH, TDCLM(lr=0.01, eps=0.01))
    with pytest.raises(GraphError, match="no room for stochastic rounding"):
        noise_bits(20.0, 1.0, 10)
    with pytest.raises(GraphError, match="positive"):
        noise_bits(-1.0, 1.0, 10)
    with pytest.raises(GraphError, match="b1"):
        mlp_program(SIZES, BATCH, TDCLM(lr=0.01, b1=1.0))
