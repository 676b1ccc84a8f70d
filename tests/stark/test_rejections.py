"""Every way a proof can be wrong is rejected, with the check that catches it named."""

import random
import zlib

import numpy as np
import pytest

from example_airs import (
    fibonacci_air, fibonacci_result, fibonacci_trace, square_lookup_air, square_lookup_trace, square_table_tree,
)
from luminair.prover.stark.prove import prove_stark
from luminair.verifier import verify
from luminair.verifier.config import PRESETS, PcsConfig
from luminair.verifier.errors import ConfigError, LogUpError, OodsMismatch, VerificationError
from luminair.verifier.formats import read_proof_file
from luminair.verifier.statement import KIND_GRAPH, encode_settings, read_settings
from luminair.verifier.verify import verify_stark
from tamper_regions import PROOF_REGIONS as EXPECTED

FAST = PRESETS["fast"]



def _flips(data: bytes, start: int, end: int, count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        pos = rng.randrange(start, end)
        bit = 1 << rng.randrange(8)
        yield pos, data[:pos] + bytes([data[pos] ^ bit]) + data[pos + 1 :]


@pytest.mark.parametrize("files", ["stark_files", "lookup_files"])
@pytest.mark.parametrize("region", sorted(EXPECTED))
def test_a_flipped_byte_in_every_region_is_rejected(request, files, region):
    settings, proof = request.getfixturevalue(files)
    regions = read_proof_file(proof).encode().regions()
    start, end = regions[region]
    for pos, bad in _flips(proof, start, end, 6, zlib.crc32(region.encode())):
        r = verify(bad, settings)
        assert not r.success, f"flip at byte {pos} ({region}) verified"
        assert r.check in EXPECTED[region], f"{region} byte {pos}: {r.error_message}"


def test_truncated_and_extended_proofs_are_malformed(stark_files):
    settings, proof = stark_files
    for cut in (0, 1, 9, 10, 41, len(proof) // 3, len(proof) - 1):
        r = verify(proof[:cut], settings)
        assert not r.success and r.check == "malformed file", r.error_message
    for extra in (b"\0", b"\xff" * 16):
        r = verify(proof + extra, settings)
        assert r.check == "malformed file" and "trailing" in r.error_message


def test_unsupported_versions_are_named(stark_files):
    settings, proof = stark_files
    from luminair.verifier.formats import FORMAT_VERSION

    newer = proof[:8] + (FORMAT_VERSION + 1).to_bytes(2, "little") + proof[10:]
    r = verify(newer, settings)
    assert r.check == "unsupported version" and "newer" in r.error_message
    older = settings[:8] + (1).to_bytes(2, "little") + settings[10:]
    r = verify(proof, older)
    assert r.check == "unsupported version" and "prove the model again" in r.error_message, r.error_message
    previous = proof[:8] + (2).to_bytes(2, "little") + proof[10:]
    r = verify(previous, settings)
    assert r.check == "unsupported version" and "another proof layout" in r.error_message, r.error_message
    r = verify(proof[:8] + (7).to_bytes(2, "little") + proof[10:], settings)
    assert r.check == "unsupported version" and "batches of two" in r.error_message, r.error_message
    r = verify(proof, settings[:8] + (FORMAT_VERSION + 1).to_bytes(2, "little") + settings[10:])
    assert r.check == "unsupported version" and "settings.bin" in r.error_message


def test_garbage_and_swapped_files(stark_files):
    settings, proof = stark_files
    assert "not a luminair proof file" in verify(b"GIF89a" + bytes(100), settings).error_message
    assert "settings file, not a proof file" in verify(settings, settings).error_message
    assert "empty" in verify(proof, b"").error_message


def test_a_trace_breaking_one_constraint_on_one_row_is_rejected():
    n = 6
    res = fibonacci_result(n, 6, 1, 1)
    air = fibonacci_air(n, 6, 1, 1, res)
    for col, row in (("c4", 9), ("c0", 0), ("c5", (1 << n) - 1), ("c1", 33)):
        trace = fibonacci_trace(n, 6, 1, 1)
        trace[col][row] += 1
        proof = prove_stark(air, FAST, b"s", [trace])
        with pytest.raises(OodsMismatch):
            verify_stark(air, FAST, b"s", proof)


def _lookup(xs, table_log=5):
    user, table, total = square_lookup_trace(xs, table_log)
    air = square_lookup_air(len(xs).bit_length() - 1, table_log, total)
    return air, user, table, square_table_tree(air, FAST.log_blowup)


def test_a_wrong_claimed_logup_sum_is_rejected():
    air, user, table, pre = _lookup(np.arange(64) % 32)
    table["multiplicity"] = table["multiplicity"].copy()
    table["multiplicity"][3] += 1  # the table claims one lookup too many
    proof = prove_stark(air, FAST, b"s", [user, table], [pre])
    with pytest.raises(LogUpError):
        verify_stark(air, FAST, b"s", proof)


def test_claimed_sums_forced_to_cancel_break_the_interaction_constraints():
    air, user, table, pre = _lookup(np.arange(64) % 32)
    proof = prove_stark(air, FAST, b"s", [user, table], [pre])
    a, b = proof.claimed_sums
    shift = (1, 0, 0, 0)
    from luminair.verifier.fields import q_add, q_sub

    proof.claimed_sums = [q_add(a, shift), q_sub(b, shift)]
    with pytest.raises(OodsMismatch):
        verify_stark(air, FAST, b"s", proof)


def test_a_lookup_of_a_value_outside_the_table_cannot_be_proven_honestly():
    air, user, table, pre = _lookup(np.arange(64) % 32)
    user = dict(user)
    user["y"] = user["y"].copy()
    user["y"][5] += 1  # (5, 26) is not a row of the squares table
    proof = prove_stark(air, FAST, b"s", [user, table], [pre])
    with pytest.raises(VerificationError) as e:
        verify_stark(air, FAST, b"s", proof)
    assert e.value.check in {"LogUp sum", "OODS mismatch"}


def test_a_proof_for_a_different_statement_is_rejected(stark_files, lookup_files):
    settings, proof = stark_files
    pf = read_proof_file(proof)
    pf.public_values = [[(v + 1) % (2**31 - 1) if i == 0 else v for i, v in enumerate(t)] for t in pf.public_values]
    r = verify(pf.to_bytes(), settings)
    # the changed statement changes the transcript: the interaction grind no longer holds
    assert r.check == "proof of work" and "public values" in r.error_message, r.error_message
    r = verify(proof, lookup_files[0])
    assert r.check == "statement mismatch"


def test_a_config_below_the_floor_is_rejected():
    from luminair.prover import Graph

    cx = Graph()
    x = cx.input("x", (1, 4))
    (x * x).output("y")
    settings = cx.gen_settings(preset="fast")
    proof = cx.prove(cx.gen_trace({"x": [[1.0, 2.0, 3.0, 0.5]]}), settings).data
    r = verify(proof, settings.data)
    assert r.check == "config below floor" and "20 conjectured bits" in r.error_message
    with pytest.raises(ConfigError):
        FAST.check_floor(96)
    assert verify(proof, settings.data, min_security_bits=0).success


def test_a_proof_cannot_be_replayed_under_a_weaker_config(stark_files):
    """The config is mixed into the transcript: changing it in settings changes every challenge."""
    settings, proof = stark_files
    parsed = read_settings(settings)
    weaker = encode_settings(KIND_GRAPH, PcsConfig(12, 2, 43, 0), parsed.body)
    pf = read_proof_file(proof)
    pf.settings_digest = read_settings(weaker).digest
    r = verify(pf.to_bytes(), weaker)
    # every challenge differs: the claimed sums no longer cancel the public terms (first to fail)
    assert not r.success and r.check == "LogUp sum", r.error_message


def test_dropping_a_fri_layer_is_rejected(stark_files):
    settings, proof = stark_files
    pf = read_proof_file(proof)
    pf.stark.fri.inner_layers.pop()
    r = verify(pf.to_bytes(), settings)
    assert r.check == "FRI" and "inner layers" in r.error_message


def test_a_wrong_number_of_columns_is_malformed(stark_files):
    settings, proof = stark_files
    pf = read_proof_file(proof)
    pf.stark.sampled_values[0].pop()
    r = verify(pf.to_bytes(), settings)
    assert r.check == "malformed file" and "sampled columns" in r.error_message


def test_a_table_other_than_the_one_the_air_names_is_rejected_by_its_samples():
    """A known-values tree (the square table) is pinned by the verifier's own evaluation at the
    out-of-domain point: a prover who commits another table fails there."""
    import numpy as np
    from luminair.prover.stark.prove import commit_preprocessed

    air, user, table, _ = _lookup(np.arange(64) % 32)
    other = {k: np.array(v, dtype=np.int64) for k, v in air.preprocessed[0].known_values().items()}
    other["square.out"][7] += 1
    user = dict(user)
    user["y"] = np.where(user["x"] == 7, other["square.out"][7], user["y"])  # the lookups agree with the forged table
    proof = prove_stark(air, FAST, b"s", [user, table], [commit_preprocessed(air.preprocessed[0], other, FAST.log_blowup)])
    with pytest.raises(OodsMismatch, match="square.out"):
        verify_stark(air, FAST, b"s", proof)
