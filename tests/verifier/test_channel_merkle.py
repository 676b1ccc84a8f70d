import hashlib
import random

import pytest

from luminair.verifier.merkle import DIGEST_BYTES
from luminair.verifier.channel import Channel, check_pow, trailing_zeros
from reference_commit import merkle_root
from luminair.verifier.errors import MerkleError
from luminair.verifier.fields import P
from luminair.verifier.merkle import LEAF_PREFIX, NODE_PREFIX, leaf_hash, node_hash, verify_decommitment


def test_blake2s_and_channel_vectors():
    # Vectors reproduced with hashlib (docs/protocol.md "4. The channel"), pinned in the project's format.
    assert hashlib.blake2s(b"").hexdigest() == "69217a3079908094e11121d042354a7c1f55b6482ca1a51e1b250dfd1ed0eef9"
    c = Channel()
    c.mix_u64(0x1111222233334444)
    assert c.digest.hex() == "bc9e3fc1d24e8897956d3359327397249d6bcacd224d927404e7ba4a77dc6ece"
    c = Channel()
    c.mix_u32s(list(range(1, 10)))
    assert c.digest.hex() == "7091768357bb1bb3346fdab6b357d7fa46b8fbe32c2e4324a0ffc294cbf9a1c7"


def test_channel_draws_are_canonical_deterministic_and_reset_on_mix():
    a, b = Channel(), Channel()
    a.mix(b"x")
    b.mix(b"x")
    fa = a.draw_felts(9)
    assert fa == b.draw_felts(9)
    assert all(0 <= v < P for f in fa for v in f)
    q = a.draw_queries(40, 18)
    assert q == sorted(set(q)) and all(0 <= x < 1 << 18 for x in q)
    a.mix(b"y")
    assert a.counter == 0


def test_channel_test_vector_for_draws():
    c = Channel()
    c.mix_u32s([1, 2, 3])
    # Pinned: the project transcript format (docs/protocol.md "4. The channel": a u32 draw counter).
    assert c.draw_felt() == (807610791, 2097869073, 376334573, 1057186329)


def test_pow_check():
    c = Channel()
    c.mix(b"pow")
    from luminair.prover.stark.fri_prover import grind

    nonce = grind(c, 10)
    assert check_pow(c, 10, nonce)
    assert trailing_zeros(bytes(16)) == 128


def test_leaf_and_node_hashing_are_domain_separated():
    assert len(LEAF_PREFIX) == len(NODE_PREFIX) == 64
    assert leaf_hash(b"") != node_hash(b"", b"")
    assert leaf_hash(bytes(64)) != node_hash(bytes(32), bytes(32))


def _tree(sizes, seed=0):
    rng = random.Random(seed)
    return [[rng.randrange(P) for _ in range(1 << s)] for s in sizes]


def test_mixed_degree_decommitment_round_trip_and_tampering():
    from luminair.prover.stark.merkle_tree import MerkleTree
    import numpy as np

    sizes = [6, 6, 4, 3, 6, 0]
    cols = _tree(sizes)
    tree = MerkleTree([np.array(c, dtype=np.uint64) for c in cols])
    assert tree.root == merkle_root(cols)
    top = [1, 5, 17, 63]
    queries = {s: sorted({q >> (6 - s) for q in top}) for s in set(sizes)}
    values, dec = tree.decommit(queries)
    verify_decommitment("t", tree.root, sizes, queries, values, dec.hash_witness, dec.column_witness)
    bad = [list(v) for v in values]
    bad[2][0] = (bad[2][0] + 1) % P
    with pytest.raises(MerkleError, match="root mismatch"):
        verify_decommitment("t", tree.root, sizes, queries, bad, dec.hash_witness, dec.column_witness)
    with pytest.raises(MerkleError, match="too short"):
        verify_decommitment("t", tree.root, sizes, queries, values, dec.hash_witness[:-1], dec.column_witness)
    with pytest.raises(MerkleError, match="unused"):
        verify_decommitment("t", tree.root, sizes, queries, values, dec.hash_witness + [bytes(DIGEST_BYTES)], dec.column_witness)
    with pytest.raises(MerkleError, match="opened values"):
        verify_decommitment("t", tree.root, sizes, queries, values[:-1] + [[]], dec.hash_witness, dec.column_witness)


def test_column_witness_for_nodes_without_opened_rows():
    from luminair.prover.stark.merkle_tree import MerkleTree
    import numpy as np

    sizes = [5, 4, 4]
    cols = _tree(sizes, 3)
    tree = MerkleTree([np.array(c, dtype=np.uint64) for c in cols])
    queries = {5: [3, 20], 4: [9]}  # layer 4 also recomputes nodes 1 and 10: their values are witnesses
    values, dec = tree.decommit(queries)
    assert len(dec.column_witness) == 4
    verify_decommitment("t", tree.root, sizes, queries, values, dec.hash_witness, dec.column_witness)
    with pytest.raises(MerkleError):
        verify_decommitment("t", tree.root, sizes, queries, values, dec.hash_witness, dec.column_witness[:-1])


def test_a_large_tree_hashed_by_two_processes_matches_the_reference():
    from luminair.prover.stark import merkle_tree as mt
    import numpy as np

    sizes = [14, 14, 12, 3]
    cols = _tree(sizes, 8)
    assert 1 << 14 >= mt._FORK_MIN_LEAVES
    tree = mt.MerkleTree([np.array(c, dtype=np.uint64) for c in cols])
    assert tree.root == merkle_root(cols)
    queries = {14: [5, 9000], 12: [1, 2250], 3: [0, 4]}
    values, dec = tree.decommit(queries)
    verify_decommitment("big", tree.root, sizes, queries, values, dec.hash_witness, dec.column_witness)
