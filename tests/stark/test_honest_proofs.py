"""Honest proofs of both example AIRs (examples/example_airs.py) verify, from 2^4 to 2^16 rows, and
graph proofs at the default preset verify at 96 bits."""

import numpy as np
import pytest

from example_airs import fibonacci_case, prove_example, square_lookup_air, square_lookup_trace, square_table_tree
from luminair.prover.stark.prove import prove_stark
from luminair.verifier import verify
from luminair.verifier.config import PRESETS, PcsConfig
from luminair.verifier.verify import verify_stark

FAST = PRESETS["fast"]


@pytest.mark.parametrize("log_size", [4, 5, 8, 11, 14, 16])
def test_fibonacci_proofs_verify(log_size):
    cols = 8 if log_size < 16 else 4
    air, statement, proof = prove_example("fibonacci", {"log_size": log_size, "n_columns": cols}, FAST)
    verify_stark(air, FAST, statement, proof)


@pytest.mark.parametrize("log_size,table", [(4, 4), (6, 8), (10, 6), (13, 10), (16, 8)])
def test_lookup_proofs_verify(log_size, table):
    air, statement, proof = prove_example("square_lookup", {"log_size": log_size, "table_log_size": table}, FAST)
    verify_stark(air, FAST, statement, proof)


def test_default_preset_proofs_verify_at_96_bits(stark_files, lookup_files):
    for settings, proof in (stark_files, lookup_files):
        r = verify(proof, settings)
        assert r.success, r.error_message
        assert r.security_bits >= 96 and r.security_label == "default preset"
        assert len(r.model_digest) == 64


@pytest.mark.parametrize(
    "config", [PcsConfig(4, 1, 5, 0), PcsConfig(0, 3, 6, 2), PcsConfig(2, 2, 8, 3), PcsConfig(1, 4, 3, 1)]
)
def test_other_configs_fold_to_the_right_last_layer(config):
    """Blowups, last-layer sizes and zero PoW all round-trip."""
    air, main, pre = fibonacci_case(6, 5, 2, 3)
    proof = prove_stark(air, config, b"s", main, pre)
    verify_stark(air, config, b"s", proof)
    assert len(proof.fri.last_layer) == 1 << config.log_last_layer


def test_lookup_with_components_of_different_sizes():
    xs = np.arange(1 << 9) % (1 << 5)
    user, table, total = square_lookup_trace(xs, 5)
    air = square_lookup_air(9, 5, total)
    proof = prove_stark(air, FAST, b"t", [user, table], [square_table_tree(air, FAST.log_blowup)])
    verify_stark(air, FAST, b"t", proof)
