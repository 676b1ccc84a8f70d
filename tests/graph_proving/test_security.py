"""Security accounting: every soundness term is computed from the proof's own AIR and config, the
reported security is their union bound, and the interaction proof of work is checked."""

import numpy as np
import pytest
from luminair.prover import Graph
from luminair.verifier import verify
from luminair.verifier.config import PRESETS, PcsConfig
from luminair.verifier.errors import ConfigError
from luminair.verifier.formats import read_proof_file
from luminair.verifier.merkle import DIGEST_BYTES
from luminair.verifier.security import soundness_terms, union_bits
from luminair.verifier.graph.planner import plan_graph
from proving_helpers import prove_graph


@pytest.fixture(scope="module")
def default_proof():
    cx = Graph()
    x = cx.input("x", (1, 8))
    (x @ cx.constant(np.linspace(-1, 1, 32).reshape(8, 4), "w")).relu().output("y")
    settings, _, proof = prove_graph(cx, {"x": np.linspace(0, 1, 8).reshape(1, 8)}, preset="default")
    return settings, proof


def test_every_term_is_reported_and_the_total_is_their_union(default_proof):
    settings, proof = default_proof
    r = verify(proof.data, settings.data)
    assert r.success, r.error_message
    terms = r.extra["soundness_bits"]
    # the product is Freivalds-checked: its term too
    assert set(terms) == {"FRI queries + proof of work", "LogUp", "constraint combination", "OODS / DEEP", "FRI folding",
                          "Freivalds", "Merkle digests"}
    assert terms["Merkle digests"] == 4 * DIGEST_BYTES == 104
    # any of the events forges a proof: -log2(sum of 2^-term), below the weakest term
    union = -np.log2(sum(2.0 ** -t for t in terms.values()))
    assert 96 <= r.security_bits == int(union_bits(terms)) == int(union) < min(terms.values())
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
    bits = verify(proof.data, settings.data).security_bits
    r = verify(proof.data, settings.data, min_security_bits=bits + 1)
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


# --- presets sized by the trace (prover/presets.py preset_config) ------------------------------------


def test_a_preset_takes_the_largest_blowup_its_trace_affords():
    from dataclasses import replace

    from luminair.prover.presets import PRESET_LDE_CELLS, preset_config
    from luminair.verifier.config import MAX_EXTRA_POW_BITS, at_blowup

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
    assert at_blowup(PRESETS["default"], 4).n_queries == 19 and at_blowup(PRESETS["default"], 4).pow_bits == 21
    # blowup 8: 25 queries and 22 bits of grinding (97 bits), not 26 queries and 21 bits (99)
    assert (at_blowup(PRESETS["default"], 3).n_queries, at_blowup(PRESETS["default"], 3).pow_bits) == (25, 22)
    assert (at_blowup(PRESETS["secure"], 3).n_queries, at_blowup(PRESETS["secure"], 3).pow_bits) == (31, 20)
    custom = PcsConfig(pow_bits=20, log_blowup=4, n_queries=20, log_last_layer=8, interaction_pow_bits=10)
    assert "[custom]" in custom.describe()  # less grinding than the preset's: not labelled as it
    # queries added to reach the floor by the union bound (proving.reach_union_bound) keep the label
    topped = replace(at_blowup(PRESETS["default"], 4), n_queries=20)
    assert "[default preset" in topped.describe()


def test_gen_settings_sizes_the_preset_from_the_graph(default_proof, monkeypatch):
    from luminair.prover import presets
    from luminair.verifier import config

    settings, proof = default_proof
    # a tiny trace: the fastest config (the smallest blowup, light grinding) is far within the proof budget
    light = config.with_pow_bits(PRESETS["default"], config.LIGHT_POW_BITS)
    assert settings.config == config.at_blowup(light, 2) == light
    r = verify(proof.data, settings.data)
    assert r.success and r.security_label == "default preset"
    cx = Graph()
    x = cx.input("x", (1, 8))
    (x @ cx.constant(np.linspace(-1, 1, 32).reshape(8, 4), "w")).relu().output("y")
    small = cx.gen_settings(preset="small")  # (sized for the proof's bytes: the preset's own grinding)
    assert small.config == config.at_blowup(PRESETS["default"], 4)  # the smallest proof: the largest blowup
    assert small.config.security_bits >= PRESETS["default"].security_bits
    monkeypatch.setattr(presets, "PRESET_MAX_PROOF_BYTES", 1)  # no config within the budget: the smallest proof
    assert cx.gen_settings(preset="default").config == config.at_blowup(PRESETS["default"], 4)
    monkeypatch.setattr(presets, "PRESET_LDE_CELLS", 1)  # as if the trace were too large for any
    assert cx.gen_settings(preset="default").config == PRESETS["default"]
    # an explicit config or bit count is taken as given
    assert cx.gen_settings(security_bits=96).config.log_blowup == 2
    monkeypatch.setattr(presets, "PRESET_LDE_CELLS", 1 << 40)
    assert cx.gen_settings(config=PRESETS["default"]).config == PRESETS["default"]
    assert cx.gen_settings(preset="secure").config == config.at_blowup(PRESETS["secure"], 4)  # (budget of 1 byte)


def test_a_time_sized_preset_takes_the_fastest_config_within_the_budget():
    from luminair.prover.presets import LIGHT_TRACE_CELLS, PRESET_MAX_PROOF_BYTES, preset_config
    from luminair.verifier.config import LIGHT_POW_BITS, at_blowup, with_pow_bits

    default = PRESETS["default"]
    light = with_pow_bits(default, LIGHT_POW_BITS)  # a light trace grinds little, queries make up the rest
    assert light.security_bits >= default.security_bits and light.pow_bits == LIGHT_POW_BITS
    sizes = {2: PRESET_MAX_PROOF_BYTES + 1, 3: PRESET_MAX_PROOF_BYTES, 4: 1000}  # log blowup -> estimated bytes
    estimate = lambda cfg: sizes[cfg.log_blowup]  # noqa: E731
    assert preset_config("default", 1 << 10, estimate) == at_blowup(light, 3)  # 2 is over the budget
    assert preset_config("default", LIGHT_TRACE_CELLS + 1, estimate) == at_blowup(default, 3)  # the preset's grinding
    sizes[2] = 1000
    assert preset_config("default", 1 << 10, estimate) == light  # blowup 2^2: the least extension work
    assert "[default preset]" in light.describe()
    assert preset_config("small", 1 << 10, estimate) == at_blowup(default, 4)  # never sized for time
    assert preset_config("default", 1 << 10) == at_blowup(default, 4)  # no estimate: the smallest proof
    sizes.update({2: 10**9, 3: 10**9, 4: 10**9})
    assert preset_config("default", 1 << 10, estimate) == at_blowup(default, 4)  # none fits: the smallest
    assert "[default preset]" in at_blowup(default, 3).describe()



# --- the union bound on the project's examples, and the relations' entry bound ----------------------


@pytest.mark.parametrize("example", ["mlp_16_16_4", "mlp_64_64_10", "mlp_784_128_10", "cnn_cifar", "transformer_tiny"])
def test_the_examples_reach_96_bits_by_the_union_bound_at_the_default_preset(example):
    """Every term counted together (the probability that any event happens), with the preset's
    sized config as it is: no query needed adding (proof sizes as before format 10)."""
    from pathlib import Path

    from luminair.prover.air.graph_trace import build_spec
    from luminair.prover.compile import GenericCompiler, StwoCompiler
    from luminair.prover.onnx import load_onnx
    from luminair.prover.proving import choose_config
    from luminair.verifier.config import LIGHT_POW_BITS, at_blowup, with_pow_bits
    from luminair.verifier.graph.statement import build_graph_air

    cx = load_onnx(Path(__file__).resolve().parents[2] / "examples" / example / "network.onnx")
    cx.compile(GenericCompiler(), StwoCompiler())
    spec = build_spec(cx)
    cfg = choose_config(spec, "default")
    sized = {at_blowup(base, b) for base in (PRESETS["default"], with_pow_bits(PRESETS["default"], LIGHT_POW_BITS))
             for b in (2, 3, 4)}
    assert cfg in sized  # no query added: the preset's config as it is sized
    air, plans = build_graph_air(spec, cfg.log_blowup)
    terms = soundness_terms(cfg, air, plan_graph(spec).public_terms())
    assert 96 <= union_bits(terms) < min(terms.values())


def test_queries_are_added_until_the_union_bound_reaches_the_target(default_proof):
    """A config whose FRI term alone is the target falls short by the union bound: gen_settings
    adds queries (the label stays the preset's)."""
    from luminair.prover.proving import reach_union_bound

    settings, _ = default_proof
    short = PcsConfig(pow_bits=20, log_blowup=4, n_queries=19, log_last_layer=8, interaction_pow_bits=10)  # 96
    assert union_bits(soundness_terms(short, settings.air)) < 96
    cfg = reach_union_bound(short, settings.spec, 96)
    assert cfg.n_queries == 20 and union_bits(soundness_terms(cfg, settings.air)) >= 96


def test_a_trace_whose_algebraic_terms_fall_short_is_refused_before_proving(default_proof, monkeypatch):
    """Queries cannot lift the union past what the algebraic terms allow: the prover names them."""
    from luminair.prover.proving import ProverError, reach_union_bound
    from luminair.verifier import security

    settings, _ = default_proof
    monkeypatch.setattr(security, "FIELD_BITS", 100)  # as if the trace were 2^24 times taller
    with pytest.raises(ProverError, match="caps its security at .* below the 96-bit target"):
        reach_union_bound(PRESETS["default"], settings.spec, 96)


def test_a_relation_at_the_entry_bound_is_refused_by_the_verifier_and_the_prover(default_proof, monkeypatch):
    """check_entry_bound counts the real statement: with the bound lowered to exactly its largest
    relation plus the public terms, verify refuses it by name, and gen_settings refuses to make it."""
    from luminair.prover.proving import ProverError
    from luminair.verifier.air import framework

    settings, proof = default_proof
    counts = settings.air.entry_counts()
    rel = max(counts, key=counts.get)
    limit = counts[rel] + settings.plan.public_terms()
    monkeypatch.setattr(framework, "MAX_RELATION_ENTRIES", limit + 1)
    assert verify(proof.data, settings.data).success
    monkeypatch.setattr(framework, "MAX_RELATION_ENTRIES", limit)
    r = verify(proof.data, settings.data)
    assert not r.success and r.check == "LogUp entry bound" and f"relation {rel!r}" in r.error_message
    cx = Graph()
    x = cx.input("x", (1, 8))
    (x @ cx.constant(np.linspace(-1, 1, 32).reshape(8, 4), "w")).relu().output("y")
    with pytest.raises(ProverError, match="cannot be proven soundly: relation"):
        cx.gen_settings(preset="default")
