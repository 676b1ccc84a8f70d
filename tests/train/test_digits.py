"""scikit-learn's digits: TD-CLM steps of an MLP lower the loss, and proven steps chain and verify
(the 20 proven steps of MLP 64-64-10 at batch 32 are examples/train_digits.py; this is the small
version that fits the test suite)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

from luminair.prover.train import TDCLM, init_mlp, mlp_program  # noqa: E402
from luminair.prover.train.data import digits_batches, eval_loss  # noqa: E402
from luminair.verifier.training_chain import verify_chain  # noqa: E402

SIZES = [64, 16, 10]


def test_twenty_tdclm_steps_lower_the_loss_and_proven_steps_verify() -> None:
    prog = mlp_program(SIZES, 16, TDCLM(lr=0.03), preset="fast")
    train, held_out = digits_batches(16, 20, seed=1)
    params, state = prog.quantize(init_mlp(SIZES, 0)), prog.init_state()
    before = eval_loss(prog, params, held_out)
    p, s = params, state
    for i, b in enumerate(train):  # the fixed-point steps a proof attests (bit for bit, below)
        v = prog.run_exact(p, s, b, i, 11)
        p, s = v.new_params, v.new_state
    after = eval_loss(prog, p, held_out)
    assert after < before - 0.3, (before, after)

    steps = prog.prove_chain(params, state, train[:2], start_step=0, seed=11)
    r = verify_chain(
        [(x.proof, x.settings) for x in steps],
        min_security_bits=0,
        max_work=50_000_000,
        start_state_digest=prog.digest(params, state),
    )
    assert r.success, r.error_message
    p, s = params, state
    for i, x in enumerate(steps):
        v = prog.run_exact(p, s, train[i], i, 11)
        for k in prog.param_shapes:
            np.testing.assert_array_equal(x.new_params[k], v.new_params[k])
        p, s = v.new_params, v.new_state
