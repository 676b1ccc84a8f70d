"""Security accounting: every soundness term is computed from the proof's own AIR and config, the
reported security is the weakest, and the interaction proof of work is checked."""

import numpy as np
import pytest
from luminair.prover import Graph
from luminair.verifier import verify
from luminair.verifier.config import PRESETS, PcsConfig
from luminair.verifier.errors import ConfigError
from luminair.verifier.formats import read_proof_file
from luminair.verifier.merkle import DIGEST_BYTES
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


# --- presets sized by the trace (verifier/config.preset_config) ------------------------------------


def test_a_preset_takes_the_largest_blowup_its_trace_affords():
    from dataclasses import replace

    from luminair.verifier.config import MAX_EXTRA_POW_BITS, PRESET_LDE_CELLS, at_blowup, preset_config

    default = PRESETS["default"]
    assert preset_config("default") == default  # size unknown (symbolic settings): as listed
    assert preset_config("default", PRESET_LDE_CELLS >> 4).log_blowup == 4
    assert preset_config("default", (PRESET_LDE_CELLS >> 4) + 1).log_blowup == 3
    assert preset_config("default", PRESET_LDE_CELLS >> 3).log_blowup == 3
    assert preset_config("default", (PRESET_LDE_CELLS >> 3) + 1) == default
    assert preset_config("fast", 1) == PRESETS["fast"]  # development preset: never resized
    for name in ("default", "secure"):
        for b in (3, 4):
            cfg = at_blowup(PRESETS[name], b)
            # the same last layer, the fewest queries that keep the preset's bits, with at most
            # MAX_EXTRA_POW_BITS more grinding where that saves a query
            assert cfg.security_bits >= PRESETS[name].security_bits > cfg.security_bits - b
            assert 0 <= cfg.pow_bits - PRESETS[name].pow_bits <= MAX_EXTRA_POW_BITS
            fewer = replace(cfg, n_queries=cfg.n_queries - 1, pow_bits=PRESETS[name].pow_bits + MAX_EXTRA_POW_BITS)
            assert fewer.security_bits < PRESETS[name].security_bits  # no query could be saved
            assert (cfg.log_last_layer, cfg.interaction_pow_bits) == (
                PRESETS[name].log_last_layer, PRESETS[name].interaction_pow_bits)
            assert f"[{name} preset" in cfg.describe()
    assert at_blowup(PRESETS["default"], 4).n_queries == 19 and at_blowup(PRESETS["default"], 4).pow_bits == 20
    # blowup 8: 25 queries and 21 bits of grinding (96 bits), not 26 queries and 20 bits (98)
    assert (at_blowup(PRESETS["default"], 3).n_queries, at_blowup(PRESETS["default"], 3).pow_bits) == (25, 21)
    assert (at_blowup(PRESETS["secure"], 3).n_queries, at_blowup(PRESETS["secure"], 3).pow_bits) == (31, 20)
    custom = PcsConfig(pow_bits=20, log_blowup=4, n_queries=20, log_last_layer=8, interaction_pow_bits=10)
    assert "[custom]" in custom.describe()  # one query more than the preset's: not labelled as it


def test_gen_settings_sizes_the_preset_from_the_graph(default_proof, monkeypatch):
    from luminair.verifier import config

    settings, proof = default_proof
    # a tiny trace: the fastest config (the smallest blowup) is far within the proof budget
    assert settings.config == config.at_blowup(PRESETS["default"], 2) == PRESETS["default"]
    r = verify(proof.data, settings.data)
    assert r.success and r.security_label == "default preset"
    cx = Graph()
    x = cx.input("x", (1, 8))
    (x @ cx.constant(np.linspace(-1, 1, 32).reshape(8, 4), "w")).relu().output("y")
    small = cx.gen_settings(preset="small")
    assert small.config == config.at_blowup(PRESETS["default"], 4)  # the smallest proof: the largest blowup
    assert small.config.security_bits >= PRESETS["default"].security_bits
    monkeypatch.setattr(config, "PRESET_MAX_PROOF_BYTES", 1)  # no config within the budget: the smallest proof
    assert cx.gen_settings(preset="default").config == config.at_blowup(PRESETS["default"], 4)
    monkeypatch.setattr(config, "PRESET_LDE_CELLS", 1)  # as if the trace were too large for any
    assert cx.gen_settings(preset="default").config == PRESETS["default"]
    # an explicit config or bit count is taken as given
    assert cx.gen_settings(security_bits=96).config.log_blowup == 2
    monkeypatch.setattr(config, "PRESET_LDE_CELLS", 1 << 40)
    assert cx.gen_settings(config=PRESETS["default"]).config == PRESETS["default"]
    assert cx.gen_settings(preset="secure").config == config.at_blowup(PRESETS["secure"], 4)  # (budget of 1 byte)


def test_a_time_sized_preset_takes_the_fastest_config_within_the_budget():
    from luminair.verifier.config import PRESET_MAX_PROOF_BYTES, at_blowup, preset_config

    default = PRESETS["default"]
    sizes = {2: PRESET_MAX_PROOF_BYTES + 1, 3: PRESET_MAX_PROOF_BYTES, 4: 1000}  # log blowup -> estimated bytes
    estimate = lambda cfg: sizes[cfg.log_blowup]  # noqa: E731
    assert preset_config("default", 1 << 10, estimate) == at_blowup(default, 3)  # 2 is over the budget
    sizes[2] = 1000
    assert preset_config("default", 1 << 10, estimate) == default  # blowup 2^2: the least extension work
    assert preset_config("small", 1 << 10, estimate) == at_blowup(default, 4)  # never sized for time
    assert preset_config("default", 1 << 10) == at_blowup(default, 4)  # no estimate: the smallest proof
    sizes.update({2: 10**9, 3: 10**9, 4: 10**9})
    assert preset_config("default", 1 << 10, estimate) == at_blowup(default, 4)  # none fits: the smallest
    assert "[default preset]" in at_blowup(default, 3).describe()
