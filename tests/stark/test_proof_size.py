"""The proof-size estimate that sizes presets for time (prover/stark/proof_size.py) against real
proofs, and the sized preset of a real model staying within the budget."""

from pathlib import Path

import pytest

from luminair.prover import GenericCompiler, StwoCompiler
from luminair.prover.graph.model_file import load_model, read_input_json
from luminair.prover.stark.proof_size import estimate_proof_bytes
from luminair.verifier import verify
from luminair.prover.presets import PRESET_MAX_PROOF_BYTES
from luminair.verifier.config import PRESETS, at_blowup

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mlp_64_64_10"


@pytest.fixture(scope="module")
def model():
    cx = load_model(EXAMPLE / "network.onnx")
    cx.compile(GenericCompiler(), StwoCompiler())
    return cx, cx.gen_trace(read_input_json(EXAMPLE / "input.json", cx))


@pytest.mark.parametrize("log_blowup", [2, 3, 4])
def test_the_estimate_is_close_to_the_real_proof(model, log_blowup):
    cx, trace = model
    cfg = at_blowup(PRESETS["default"], log_blowup)
    settings = cx.gen_settings(config=cfg)
    proof = cx.prove(trace, settings)
    estimate = estimate_proof_bytes(settings.air, cfg)
    assert 0.85 * len(proof.data) <= estimate <= 1.25 * len(proof.data)


def test_the_default_preset_is_the_fastest_within_the_budget(model):
    cx, trace = model
    fast, small = cx.gen_settings(preset="default"), cx.gen_settings(preset="small")
    assert fast.config.log_blowup < small.config.log_blowup
    assert fast.config.security_bits >= 96 and small.config.security_bits >= 96
    sizes = {}
    for settings in (fast, small):
        proof = cx.prove(trace, settings)
        r = verify(proof.data, settings.data)
        assert r.success, r.error_message
        sizes[settings.config.log_blowup] = len(proof.data)
    assert sizes[fast.config.log_blowup] <= PRESET_MAX_PROOF_BYTES
    assert sizes[small.config.log_blowup] < sizes[fast.config.log_blowup]
