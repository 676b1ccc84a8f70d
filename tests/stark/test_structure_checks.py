"""Every structural check of the verifier rejects a proof that violates it, naming the check."""

import pytest

from luminair.verifier.merkle import DIGEST_BYTES
from luminair.verifier import verify
from luminair.verifier.config import PcsConfig
from luminair.verifier.errors import ConfigError
from luminair.verifier.formats import read_proof_file


def _mutated(files, edit):
    settings, proof = files
    pf = read_proof_file(proof)
    edit(pf.stark)
    return verify(pf.to_bytes(), settings)


def test_a_missing_fold_sibling_is_rejected(fib_files):
    r = _mutated(fib_files, lambda s: s.fri.inner_layers[0].siblings.pop())
    assert r.check == "FRI" and "too few fold siblings" in r.error_message


def test_an_extra_fold_sibling_is_rejected(fib_files):
    r = _mutated(fib_files, lambda s: s.fri.first_layer.siblings.append((1, 2, 3, 4)))
    assert r.check == "FRI" and "unused fold siblings" in r.error_message


def test_a_last_layer_of_the_wrong_size_is_rejected(fib_files):
    r = _mutated(fib_files, lambda s: s.fri.last_layer.append((0, 0, 0, 0)))
    assert r.check == "FRI" and "last layer has 257 coefficients, expected 256" in r.error_message


def test_a_wrong_last_layer_value_is_caught_at_the_queries(fib_files):
    """Changing the last layer changes the transcript before proof of work: rejected there."""
    r = _mutated(fib_files, lambda s: s.fri.last_layer.__setitem__(0, (1, 1, 1, 1)))
    assert r.check == "proof of work"


def test_missing_or_extra_commitments_and_claimed_sums_are_malformed(lookup_files):
    for edit, needle in (
        (lambda s: s.commitments.pop(), "commitments"),
        (lambda s: s.commitments.append(bytes(DIGEST_BYTES)), "commitments"),
        (lambda s: s.claimed_sums.pop(), "claimed sums"),
        (lambda s: s.decommitments.pop(), "decommitments"),
        (lambda s: s.queried_values[0].pop(), "queried columns"),
        (lambda s: s.sampled_values[0][0].append((0, 0, 0, 0)), "sampled values"),
    ):
        r = _mutated(lookup_files, edit)
        assert r.check == "malformed file" and needle in r.error_message, r.error_message


def test_an_opened_column_of_the_wrong_length_is_malformed(fib_files):
    r = _mutated(fib_files, lambda s: s.queried_values[0][0].pop())
    assert r.check == "malformed file" and "opens" in r.error_message


def test_an_extra_hash_in_a_witness_is_rejected(fib_files):
    r = _mutated(fib_files, lambda s: s.decommitments[0].hash_witness.append(bytes(DIGEST_BYTES)))
    assert r.check == "Merkle path" and "unused" in r.error_message


def test_a_dropped_hash_in_a_witness_is_rejected(fib_files):
    r = _mutated(fib_files, lambda s: s.decommitments[0].hash_witness.pop(0))
    assert r.check == "Merkle path"


@pytest.mark.parametrize(
    "config,needle",
    [
        (PcsConfig(40, 2, 40), "pow_bits"),
        (PcsConfig(10, 0, 60), "log_blowup"),
        (PcsConfig(10, 9, 20), "log_blowup"),
        (PcsConfig(10, 2, 0), "n_queries"),
        (PcsConfig(10, 2, 300), "n_queries"),
        (PcsConfig(10, 2, 50, 11), "log_last_layer"),
    ],
)
def test_structurally_invalid_configs_are_refused(config, needle):
    with pytest.raises(ConfigError, match=needle):
        config.check_floor(0)


def test_a_config_whose_last_layer_leaves_no_fold_is_rejected(fib_files):
    from luminair.verifier.channel import Channel
    from luminair.verifier.errors import FriError
    from luminair.verifier.fri import FriVerifier

    proof = read_proof_file(fib_files[1]).stark
    fri = FriVerifier(PcsConfig(1, 4, 4, 6), [7, 4], proof.fri)  # the last layer would sit below the blowup
    with pytest.raises(FriError, match="leaves no room to fold"):
        fri.commit(Channel())


def test_a_last_layer_above_the_smallest_column_is_lowered_to_fit():
    """The default preset's last layer (2^5 coefficients) is lowered for a proof whose columns are
    small, by prover and verifier alike: a tiny graph proves and verifies at the default preset."""
    import numpy as np

    from luminair.prover import GenericCompiler, Graph, StwoCompiler
    from luminair.verifier import verify
    from luminair.verifier.config import PRESETS

    cx = Graph()
    (cx.input("x", (1, 4)) * 2.0).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    settings = cx.gen_settings(config=PRESETS["default"])
    proof = cx.prove(cx.gen_trace({"x": np.ones((1, 4))}), settings)
    fri = read_proof_file(proof.data).stark.fri
    assert len(fri.last_layer) < 1 << PRESETS["default"].log_last_layer
    assert verify(proof.data, settings.data).success


def test_verify_never_raises_on_arguments_of_the_wrong_type(fib_files):
    settings, proof = fib_files
    for p, s in ((None, settings), (proof, "text"), (123, 4.5)):
        r = verify(p, s)
        assert not r.success and r.check == "usage" and "must be bytes" in r.error_message
    assert verify(bytearray(proof), memoryview(settings)).success


def test_fri_layers_fold_up_to_three_times_and_quotients_open_the_groups_they_join():
    """The default schedule for quotients of log sizes 20..9: layers at 19, 16, 13 (three folds)
    and 10 (two) down to a last layer at log size 8 (64 coefficients); a quotient joining at a
    layer's j-th fold opens the 2^(steps - j) positions that fold into one there."""
    from luminair.verifier.config import PRESETS
    from luminair.verifier.fri import fri_schedule, quotient_group_bits

    cfg = PRESETS["default"]
    sizes = [20, 17, 16, 15, 14, 11, 9]
    assert fri_schedule(sizes, cfg) == (8, [(19, 3), (16, 3), (13, 3), (10, 2)])
    assert quotient_group_bits(sizes, cfg) == {20: 1, 17: 1, 16: 3, 15: 2, 14: 1, 11: 1, 9: 1}
    assert fri_schedule([12, 9], cfg) == (8, [(11, 3)])  # the last layer stays below every column
    assert fri_schedule([3], cfg) == (2, [])  # nothing to fold: the last layer is the whole line


def test_the_fri_schedule_is_the_cheapest_of_every_schedule():
    """fri_schedule against brute force: every sequence of 1-3 folds ending at an allowed last
    layer, costed by the same estimate."""
    from luminair.verifier.config import PRESETS
    from luminair.verifier.fri import FOLD_STEP, _layer_bytes, fri_schedule

    cfg = PRESETS["default"]

    def every(m, lo, hi):
        if lo <= m <= hi:
            yield m, []
        for steps in range(1, min(FOLD_STEP, m - lo) + 1):
            for last, rest in every(m - steps, lo, hi):
                yield last, [(m, steps)] + rest

    def cost(sizes, last, schedule):
        return (16 << (last - cfg.log_blowup)) + sum(
            _layer_bytes(m, k, sizes, cfg) for m, k in schedule)

    for sizes in ([20, 17, 16, 15, 14, 11, 9], [19, 18, 17, 16, 15, 12, 10], [18, 9], [13, 12, 11, 7], [16]):
        hi = min(cfg.log_last_layer + cfg.log_blowup, min(sizes) - 1)
        last, schedule = fri_schedule(sizes, cfg)
        assert cfg.log_blowup <= last <= hi
        best = min(cost(sizes, l, s) for l, s in every(max(sizes) - 1, cfg.log_blowup, hi))
        assert cost(sizes, last, schedule) == best, sizes


def test_an_altered_member_of_a_folded_group_is_rejected(fib_files):
    """A sibling of an inner layer's group of 8 (one fold's input) changed: its Merkle path fails."""
    def edit(s):
        layer = s.fri.inner_layers[0]
        v = layer.siblings[3]
        layer.siblings[3] = ((v[0] + 1) % (2**31 - 1), v[1], v[2], v[3])

    r = _mutated(fib_files, edit)
    assert r.check == "FRI" and "layer 1" in r.error_message, r.error_message
