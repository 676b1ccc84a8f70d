"""Proven training steps: an honest step and chain verify and attest the fixed-point executor's
values bit for bit; a step replaced in any of the ways a cheater would try is rejected by a named
check."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from luminair.prover.air import graph_trace
from luminair.prover.train import TDCLM, from_state_dict, load_npz, save_npz, to_state_dict
from luminair.verifier import verify
from luminair.verifier.graph import statement as graph_statement
from luminair.verifier.graph.training import NoiseError
from luminair.verifier.training_chain import verify_chain
from train_helpers import BATCH, MAX_WORK, SEED, SIZES, batches, program, relie, start

STARK_CHECKS = {"LogUp sum", "OODS mismatch", "FRI", "Merkle path"}


@pytest.fixture(scope="module")
def honest():
    prog = program()
    params, state = start(prog)
    steps = prog.prove_chain(params, state, batches(3), start_step=0, seed=SEED)
    return prog, params, state, steps


def _pairs(steps):
    return [(s.proof, s.settings) for s in steps]


def _cheat_prove(prog, trace, monkeypatch) -> bytes:
    """A cheating prover: no twin check of its trace against the executor, no noise check."""
    with monkeypatch.context() as m:
        m.setattr(graph_trace, "_check_outputs", lambda *a: None)
        m.setattr(graph_trace, "_check_product", lambda *a: None)
        m.setattr(graph_statement, "training_statement", lambda *a: None)
        return prog.graph.prove(trace, prog.settings()).data


def _chain(pairs, **kw):
    return verify_chain(pairs, min_security_bits=0, max_work=MAX_WORK, **kw)


def test_honest_chain_verifies_and_reports_the_statement(honest) -> None:
    prog, params, state, steps = honest
    r = _chain(_pairs(steps), start_state_digest=prog.digest(params, state))
    assert r.success, r.error_message
    assert [s["step"] for s in r.steps] == [0, 1, 2]
    assert all(s["seed"] == SEED for s in r.steps)
    assert r.steps[0]["old_weights_digest"] == prog.digest(params)
    assert r.steps[-1]["new_weights_digest"] == prog.digest(steps[-1].new_params)
    assert r.losses == pytest.approx([s.loss for s in steps])
    single = verify(steps[0].proof, steps[0].settings, min_security_bits=0, max_work=MAX_WORK)
    assert single.success and single.statement.startswith("graph: training step 0")


def test_proven_step_equals_fixed_point_executor_bit_for_bit(honest) -> None:
    prog, params, state, steps = honest
    p, s = params, state
    for i, step in enumerate(steps):
        exact = prog.run_exact(p, s, batches(3)[i], i, SEED)
        for k in prog.param_shapes:
            np.testing.assert_array_equal(step.new_params[k], exact.new_params[k])
            np.testing.assert_array_equal(step.new_state[k]["m"], exact.new_state[k]["m"])
        assert step.loss == exact.loss
        p, s = step.new_params, step.new_state
    # and the values the verifier decodes from the proof are those
    r = verify(steps[0].proof, steps[0].settings, min_security_bits=0, max_work=MAX_WORK)
    got = np.array(r.outputs["train/new_param/0/fc1.weight"]["values"]).reshape(SIZES[1], SIZES[0])
    np.testing.assert_array_equal(got, steps[0].new_params["fc1.weight"])


def test_proven_step_is_within_the_fixed_point_error_of_float64(honest) -> None:
    """|proven - float64| <= lr * 2 * u_bound + 1 raw unit always (|u| <= u_bound in both, the
    rounding moves by less than one unit); in practice it is about one raw unit."""
    prog, params, state, steps = honest
    ref = prog.reference_step(params, state, batches(3)[0])
    opt = prog.optimizer
    bound = opt.lr * 2 * opt.u_bound + 1 / prog.one
    errs = np.concatenate(
        [np.abs(steps[0].new_params[k] - ref.new_params[k]).ravel() for k in prog.param_shapes]
    )
    assert errs.max() <= bound
    assert errs.max() <= 3 / prog.one, errs.max() * prog.one  # measured: under 2 raw units
    assert abs(steps[0].loss - ref.loss) <= 8 / prog.one


def test_wrong_rounding_noise_is_rejected(honest, monkeypatch) -> None:
    prog, params, state, _ = honest
    feed = prog.feed(params, state, batches(1)[0], 0, SEED)
    key = f"train/noise/2/{prog.bits}"
    feed[key] = feed[key].copy()
    feed[key].flat[5] = (
        (feed[key].flat[5] * prog.one + 1) % (1 << prog.bits) / prog.one
    )  # one bit of one element
    trace = prog.graph.gen_trace(feed)
    with pytest.raises(NoiseError):  # the honest prover refuses
        prog.graph.prove(trace, prog.settings())
    proof = _cheat_prove(prog, trace, monkeypatch)
    r = verify(proof, prog.settings().data, min_security_bits=0, max_work=MAX_WORK)
    assert not r.success and r.check == "stochastic rounding noise", r.error_message
    assert "parameter 2 'fc2.weight' element 5" in r.error_message


def test_wrong_rounding_of_one_output_is_rejected(honest, monkeypatch) -> None:
    """Correct noise, but one new weight rounded the other way (one raw unit off)."""
    prog, params, state, _ = honest
    trace = prog.graph.gen_trace(prog.feed(params, state, batches(1)[0], 0, SEED))
    node, _ = prog.graph.outputs()["train/new_param/0/fc1.weight"]
    relie(prog.graph, trace, node.id, 3, 1)
    proof = _cheat_prove(prog, trace, monkeypatch)
    r = verify(proof, prog.settings().data, min_security_bits=0, max_work=MAX_WORK)
    assert not r.success and r.check in STARK_CHECKS, r.error_message


def test_wrong_gradient_element_is_rejected(honest, monkeypatch) -> None:
    """The prover changes one element of a gradient and carries the lie through the update."""
    prog, params, state, _ = honest
    g = prog.grad_handles[2]  # d loss / d fc2.weight (its node after compilation)
    trace = prog.graph.gen_trace(prog.feed(params, state, batches(1)[0], 0, SEED))
    before = trace.public[:]
    relie(prog.graph, trace, g.node.id, 0, 40)
    assert trace.public != before  # the lie reaches the new weights
    proof = _cheat_prove(prog, trace, monkeypatch)
    r = verify(proof, prog.settings().data, min_security_bits=0, max_work=MAX_WORK)
    assert not r.success and r.check in STARK_CHECKS, r.error_message


def test_skipped_parameter_is_rejected(honest, monkeypatch) -> None:
    prog, params, state, steps = honest
    # (a) the honest program, but the claimed new value of one parameter is its old value
    trace = prog.graph.gen_trace(prog.feed(steps[0].new_params, steps[0].new_state, batches(3)[1], 1, SEED))
    n_in = sum(1 for n in prog.graph.inputs().values() if not n.private)
    names = list(prog.graph.outputs())
    k = names.index("train/new_param/1/fc1.bias")
    old = [int(v) for v in trace.public[list(prog.graph.inputs()).index("train/param/1/fc1.bias")]]
    assert trace.public[n_in + k] != old
    trace.public[n_in + k] = old
    proof = _cheat_prove(prog, trace, monkeypatch)
    r = verify(proof, prog.settings().data, min_security_bits=0, max_work=MAX_WORK)
    assert not r.success and r.check in STARK_CHECKS, r.error_message

    # (b) a program that does not update fc1.bias: valid on its own, rejected in the chain
    @dataclasses.dataclass(frozen=True)
    class SkipBias(TDCLM):
        def update(self, p, g, st, noise, bits):
            new_p, new_state = super().update(p, g, st, noise, bits)
            return (p * 1.0 if p.node.name == "train/param/1/fc1.bias" else new_p), new_state

    cheat = program(optimizer=SkipBias(lr=0.02))
    forged = cheat.prove_step(steps[0].new_params, steps[0].new_state, batches(3)[1], 1, SEED)
    np.testing.assert_array_equal(forged.new_params["fc1.bias"], steps[0].new_params["fc1.bias"])
    assert verify(forged.proof, forged.settings, min_security_bits=0, max_work=MAX_WORK).success
    r = _chain([(steps[0].proof, steps[0].settings), (forged.proof, forged.settings)])
    assert not r.success and r.check == "training program" and r.failed_step == 1, r.error_message


def test_wrong_learning_rate_is_rejected(honest) -> None:
    prog, params, state, steps = honest
    cheat = program(optimizer=TDCLM(lr=0.03))
    forged = cheat.prove_step(steps[0].new_params, steps[0].new_state, batches(3)[1], 1, SEED)
    r = _chain([(steps[0].proof, steps[0].settings), (forged.proof, forged.settings), _pairs(steps)[2]])
    assert not r.success and r.check == "training program" and r.failed_step == 1, r.error_message
    # and against an expected program digest, even as the first step
    r = _chain([(forged.proof, forged.settings)], program_digest=prog.settings().model_digest)
    assert not r.success and r.check == "training program" and r.failed_step == 0


def test_weights_of_another_step_are_rejected(honest) -> None:
    prog, params, state, steps = honest
    # step 2 proven from the weights before step 1 (a valid proof of the wrong step)
    stale = prog.prove_step(steps[0].new_params, steps[0].new_state, batches(3)[2], 2, SEED)
    r = _chain([_pairs(steps)[0], _pairs(steps)[1], (stale.proof, stale.settings)])
    assert not r.success and r.check == "chain link" and r.failed_step == 2, r.error_message
    # a step replayed in place of the next one
    r = _chain([_pairs(steps)[0], _pairs(steps)[1], _pairs(steps)[1]])
    assert not r.success and r.check == "chain step" and r.failed_step == 2, r.error_message
    # a chain that does not start from the claimed weights
    r = _chain(_pairs(steps), start_state_digest=prog.digest(steps[0].new_params, steps[0].new_state))
    assert not r.success and r.check == "chain link" and r.failed_step == 0
    # another seed
    other = prog.prove_step(steps[0].new_params, steps[0].new_state, batches(3)[1], 1, SEED + 1)
    r = _chain([_pairs(steps)[0], (other.proof, other.settings)])
    assert not r.success and r.check == "chain seed" and r.failed_step == 1
    # the expected start step and seed, when the caller names them
    r = _chain(_pairs(steps), start_step=1)
    assert not r.success and r.check == "chain step" and r.failed_step == 0
    r = _chain(_pairs(steps), seed=SEED + 1)
    assert not r.success and r.check == "chain seed" and r.failed_step == 0
    assert _chain(_pairs(steps), start_step=0, seed=SEED).success


def test_tampered_proof_in_chain_names_the_step(honest) -> None:
    _, _, _, steps = honest
    bad = bytearray(steps[1].proof)
    bad[-40] ^= 1
    r = _chain([_pairs(steps)[0], (bytes(bad), steps[1].settings)])
    assert not r.success and r.failed_step == 1 and r.error_message.startswith("step 1:")


def test_private_batch_step_verifies_without_revealing_the_batch() -> None:
    prog = program(private_batch=True)
    params, state = start(prog)
    step = prog.prove_step(params, state, batches(1)[0], 0, SEED)
    r = verify(step.proof, step.settings, min_security_bits=0, max_work=MAX_WORK)
    assert r.success, r.error_message
    assert "x" not in r.inputs and r.extra["training"]["private_batch_inputs"] == ["x", "y"]


def test_weights_round_trip_npz(honest, tmp_path) -> None:
    prog, _, _, steps = honest
    path = save_npz(tmp_path / "w.npz", steps[-1].new_params, steps[-1].new_state)
    params, state = load_npz(path)
    assert prog.digest(params, state) == prog.digest(steps[-1].new_params, steps[-1].new_state)


def test_weights_round_trip_torch_state_dict(honest) -> None:
    """The proven weights load into a PyTorch module with the same names and compute the same
    logits; the state dict reads back to the same digest."""
    torch = pytest.importorskip("torch")
    prog, _, _, steps = honest
    params, state = steps[-1].new_params, steps[-1].new_state
    net = torch.nn.Sequential()
    net.add_module("fc1", torch.nn.Linear(SIZES[0], SIZES[1]))
    net.add_module("relu", torch.nn.ReLU())
    net.add_module("fc2", torch.nn.Linear(SIZES[1], SIZES[2]))
    net.load_state_dict(to_state_dict(params))
    x = batches(1)[0]["x"]
    logits = net(torch.tensor(x, dtype=torch.float32)).detach().numpy()
    h = np.maximum(x @ params["fc1.weight"].T + params["fc1.bias"], 0)
    np.testing.assert_allclose(logits, h @ params["fc2.weight"].T + params["fc2.bias"], atol=1e-5)
    back = from_state_dict(net.state_dict())  # float32 holds every 16-bit fixed-point value exactly
    assert prog.digest(back, state) == prog.digest(params, state)


def test_onnx_classifier_trains_like_the_python_mlp() -> None:
    """An imported ONNX MLP (Gemm, Relu, Gemm) as a training program: its own weights are the
    parameters, and its fixed-point step is the Python MLP's, bit for bit; the step verifies."""
    from pathlib import Path

    from luminair.prover.train import mlp_program, onnx_program

    onnx_path = Path(__file__).resolve().parents[2] / "examples" / "mlp_16_16_4" / "network.onnx"
    prog, weights = onnx_program(onnx_path, BATCH, TDCLM(lr=0.02), preset="fast")
    assert list(prog.param_shapes) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    mlp = mlp_program([16, 16, 4], BATCH, TDCLM(lr=0.02), preset="fast")
    rng = np.random.default_rng(5)
    b = {"x": rng.uniform(0, 1, (BATCH, 16)), "y": np.eye(4)[rng.integers(0, 4, BATCH)]}
    p, s = prog.quantize(weights), prog.init_state()
    a, c = prog.run_exact(p, s, b, 0, SEED), mlp.run_exact(p, s, b, 0, SEED)
    assert a.loss == c.loss
    for k in p:
        np.testing.assert_array_equal(a.new_params[k], c.new_params[k])
    step = prog.prove_step(p, s, b, 0, SEED)
    assert verify(step.proof, step.settings, min_security_bits=0, max_work=MAX_WORK).success


def test_program_digest_pins_the_hyperparameters(honest) -> None:
    """The hyperparameters are part of the program: rebuilding it from the claimed ones gives the
    proofs' model digest (anyone can check a claimed learning rate that way); any change differs."""
    prog, _, _, steps = honest
    digest = verify(steps[0].proof, steps[0].settings, min_security_bits=0, max_work=MAX_WORK).model_digest
    assert program().settings().model_digest == digest
    for other in (TDCLM(lr=0.021), TDCLM(lr=0.02, b1=0.8), TDCLM(lr=0.02, lam=0.4), TDCLM(lr=0.02, eps=0.05)):
        assert program(optimizer=other).settings().model_digest != digest, other
    assert program(loss_scale=4.0).settings().model_digest != digest


def test_chain_of_an_inference_proof_or_of_nothing_is_rejected() -> None:
    from pathlib import Path

    public = Path(__file__).resolve().parents[2] / "public"
    pair = ((public / "proof.bin").read_bytes(), (public / "settings.bin").read_bytes())
    assert verify(*pair).success  # a valid proof, but of an inference graph
    r = verify_chain([pair])
    assert not r.success and r.check == "training statement" and r.failed_step == 0, r.error_message
    r = verify_chain([])
    assert not r.success and r.check == "training statement"
