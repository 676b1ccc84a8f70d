"""The two-process Merkle build (layers as raw bytes from a forked child) gives the reference tree,
also when the child fails, and with columns injected at every layer down to the root."""

import os
import random

import numpy as np
import pytest

from luminair.prover.stark import merkle_tree as mt
from reference_commit import merkle_root
from luminair.verifier.fields import P
from luminair.verifier.merkle import verify_decommitment


def _cols(sizes, seed):
    rng = random.Random(seed)
    return [[rng.randrange(P) for _ in range(1 << s)] for s in sizes]


@pytest.mark.parametrize("sizes", [[3, 3], [5, 2, 0], [6, 6, 5, 1, 0, 0], [1, 0]])
@pytest.mark.parametrize("child_fails", [False, True])
def test_forked_build_matches_the_reference(monkeypatch, sizes, child_fails):
    monkeypatch.setattr(mt, "_FORK_MIN_LEAVES", 2)
    if child_fails:
        parent, real = os.getpid(), mt._hash_range

        def failing(*args):
            if os.getpid() != parent:
                raise RuntimeError("child failure")
            return real(*args)

        monkeypatch.setattr(mt, "_hash_range", failing)
    cols = _cols(sizes, len(sizes))
    tree = mt.MerkleTree([np.array(c, dtype=np.uint64) for c in cols])
    assert tree.root == merkle_root(cols)
    h = max(sizes)
    queries = {s: sorted({q >> (h - s) for q in (0, (1 << h) - 1, 1 << (h - 1))}) for s in set(sizes)}
    values, dec = tree.decommit(queries)
    verify_decommitment("t", tree.root, sizes, queries, values, dec.hash_witness, dec.column_witness)
