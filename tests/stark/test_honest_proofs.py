"""Honest proofs of both example AIRs verify, from 2^4 to 2^16 rows."""

import numpy as np
import pytest

from luminair.prover.air.examples import fibonacci_trace, prove_example, square_lookup_preprocessed, square_lookup_trace
from luminair.prover.stark.prove import commit_preprocessed, prove_stark
from luminair.verifier import verify
from luminair.verifier.air.examples import fibonacci_air, fibonacci_result, square_lookup_air
from luminair.verifier.config import PRESETS, PcsConfig
from luminair.verifier.verify import verify_stark

FAST = PRESETS["fast"]


@pytest.mark.parametrize("log_size", [4, 5, 8, 11, 14, 16])
def test_fibonacci_proofs_verify(log_size):
    cols = 8 if log_size < 16 else 4
    settings, proof = prove_example("fibonacci", {"log_size": log_size, "n_columns": cols}, FAST)
    r = verify(proof, settings, min_security_bits=0)
    assert r.success, r.error_message
    assert r.outputs["result"]["values"] == [fibonacci_result(log_size, cols, 1, 1)]


@pytest.mark.parametrize("log_size,table", [(4, 4), (6, 8), (10, 6), (13, 10), (16, 8)])
def test_lookup_proofs_verify(log_size, table):
    settings, proof = prove_example("square_lookup", {"log_size": log_size, "table_log_size": table}, FAST)
    r = verify(proof, settings, min_security_bits=0)
    assert r.success, r.error_message


def test_default_preset_proofs_verify_at_96_bits(fib_files, lookup_files):
    for settings, proof in (fib_files, lookup_files):
        r = verify(proof, settings)
        assert r.success, r.error_message
        assert r.security_bits == 96 and r.security_label == "default preset"
        assert len(r.model_digest) == 64


@pytest.mark.parametrize(
    "config", [PcsConfig(4, 1, 5, 0), PcsConfig(0, 3, 6, 2), PcsConfig(2, 2, 8, 3), PcsConfig(1, 4, 3, 1)]
)
def test_other_configs_fold_to_the_right_last_layer(config):
    """Blowups, last-layer sizes and zero PoW all round-trip."""
    n = 6
    res = fibonacci_result(n, 5, 2, 3)
    air = fibonacci_air(n, 5, 2, 3, res)
    proof = prove_stark(air, config, b"s", [fibonacci_trace(n, 5, 2, 3)])
    verify_stark(air, config, b"s", proof)
    assert len(proof.fri.last_layer) == 1 << config.log_last_layer


def test_lookup_with_components_of_different_sizes():
    xs = np.arange(1 << 9) % (1 << 5)
    user, table, total = square_lookup_trace(xs, 5)
    air = square_lookup_air(9, 5, total, FAST.log_blowup)
    pre = commit_preprocessed(air.preprocessed[0], square_lookup_preprocessed(5), FAST.log_blowup)
    proof = prove_stark(air, FAST, b"t", [user, table], [pre])
    verify_stark(air, FAST, b"t", proof)
