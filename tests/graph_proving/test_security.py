"""Security accounting: every soundness term is computed from the proof's own AIR and config, the
reported security is the weakest, and the interaction proof of work is checked."""

import numpy as np
import pytest

from luminair.verifier.merkle import DIGEST_BYTES
from luminair.prover import Graph
from luminair.verifier import verify
from luminair.verifier.config import PRESETS, PcsConfig
from luminair.verifier.errors import ConfigError
from luminair.verifier.formats import read_proof_file
from luminair.verifier.security import soundness_terms

from proving_helpers import prove_graph


@pytest.fixture(scope="module")
def default_proof():
    cx = Graph()
    x = cx.input("x", (1, 8))
    (x @ cx.constant(np.linspace(-1, 1, 32).reshape(8, 4), "w")).relu().output("y")
    settings, _, proof = prove_graph(cx, {"x": np.linspace(0, 1, 8).reshape(1, 8)}, preset="default")
    return settings, proof


def test_every_term_is_reported_and_the_total_is_the_weakest(default_proof):
    settings, proof = default_proof
    r = verify(proof.data, settings.data)
    assert r.success, r.error_message
    terms = r.extra["soundness_bits"]
    # the product is Freivalds-checked: its term too
    assert set(terms) == {"FRI queries + proof of work", "LogUp", "constraint combination", "OODS / DEEP", "FRI folding",
                          "Freivalds", "Merkle digests"}
    assert terms["Merkle digests"] == 4 * DIGEST_BYTES == 104
    assert r.security_bits == int(min(terms.values())) == 96
    assert terms["LogUp"] > 100  # includes the 10 bits of interaction grinding


def test_the_logup_term_shrinks_with_the_trace_and_grows_with_interaction_grinding(default_proof):
    settings, _ = default_proof
    base = soundness_terms(PcsConfig(12, 2, 42), settings.air)
    ground = soundness_terms(PcsConfig(12, 2, 42, interaction_pow_bits=10), settings.air)
    assert ground["LogUp"] == pytest.approx(base["LogUp"] + 10, abs=0.11)
    assert soundness_terms(PcsConfig(12, 2, 42), settings.air, public_terms=1 << 30)["LogUp"] < base["LogUp"] - 10


def test_a_floor_above_an_algebraic_term_rejects_with_the_term_named(default_proof):
    settings, proof = default_proof
    terms = verify(proof.data, settings.data).extra["soundness_bits"]
    r = verify(proof.data, settings.data, min_security_bits=97)
    assert r.check == "config below floor"
    low = min(v for k, v in terms.items() if k != "FRI queries + proof of work")
    r = verify(proof.data, settings.data, min_security_bits=0)
    assert r.success and low > 96


def test_a_wrong_interaction_nonce_is_rejected(default_proof):
    settings, proof = default_proof
    pf = read_proof_file(proof.data)
    pf.stark.interaction_nonce += 1
    r = verify(pf.to_bytes(), settings.data)
    assert r.check == "proof of work" and "interaction nonce" in r.error_message, r.error_message


def test_interaction_grinding_is_bounded_by_the_config_codec():
    assert PRESETS["default"].interaction_pow_bits == 10
    with pytest.raises(ConfigError):
        PcsConfig(12, 2, 42, interaction_pow_bits=25).validate()
