"""Merkle commitments: the only definitions of leaf and node hashing, and decommitment checks
(docs/protocol.md "5. Merkle trees"; the project's own mixed-degree tree).

A tree commits columns of different log sizes. Its height H is the largest log size; layer k has
2^k nodes, and a column of log size k is injected into layer k:
* a node of layer H (leaf):  H(LEAF_PREFIX || values of the size-H columns at that row)
* a node of layer k < H:     H(NODE_PREFIX || left || right || values of the size-k columns at that row)
Values are u32 little-endian; the prefixes are 64-byte blocks ("leaf"/"node" and zero padding) so
that a leaf can never be read as a node. The root is the single node of layer 0.

Digests are BLAKE2s with a DIGEST_BYTES output: a prover who finds a collision could open one
commitment two ways, and collisions of 208-bit digests take about 2^104 hashes, at or above every
other soundness term of every preset (verifier/security.py). Every path carries one digest a
level, so the size is worth a sixth of a proof's Merkle and FRI bytes against 32-byte digests.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence

from .errors import MerkleError

LEAF_PREFIX = b"leaf" + bytes(60)
NODE_PREFIX = b"node" + bytes(60)
DIGEST_BYTES = 26
_LEAF_STATE = hashlib.blake2s(LEAF_PREFIX, digest_size=DIGEST_BYTES)
_NODE_STATE = hashlib.blake2s(NODE_PREFIX, digest_size=DIGEST_BYTES)


def leaf_hash(values_le: bytes) -> bytes:
    h = _LEAF_STATE.copy()
    h.update(values_le)
    return h.digest()


def node_hash(left: bytes, right: bytes, values_le: bytes = b"") -> bytes:
    h = _NODE_STATE.copy()
    h.update(left)
    h.update(right)
    if values_le:
        h.update(values_le)
    return h.digest()


def pack_u32(values: list[int]) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def verify_decommitment(
    tree: str,
    root: bytes,
    column_log_sizes: list[int],
    queries: dict[int, list[int]],
    queried_values: Sequence[Sequence[int]],
    hash_witness: Sequence[bytes],
    column_witness: Sequence[int],
) -> None:
    """Recompute the root from the opened values and the witnesses; raise MerkleError naming the
    tree on any mismatch, missing witness or leftover witness.

    `queries[k]` are the sorted positions opened in every column of log size k, and
    `queried_values[c]` holds column c's values at those positions, in order. Nodes that must be
    recomputed but carry no opened row take their column values from `column_witness`."""
    if not column_log_sizes:
        raise MerkleError(f"{tree} tree: no columns")
    height = max(column_log_sizes)
    by_size: dict[int, list[int]] = {}
    for c, k in enumerate(column_log_sizes):
        by_size.setdefault(k, []).append(c)
    opened: list[dict[int, int]] = []
    for c, k in enumerate(column_log_sizes):
        pos = queries.get(k, [])
        vals = queried_values[c]
        if len(vals) != len(pos):
            raise MerkleError(
                f"{tree} tree: column {c} has {len(vals)} opened values, expected {len(pos)}"
            )
        opened.append(dict(zip(pos, vals)))
    hw = 0
    cw = 0
    prev: dict[int, bytes] = {}
    for k in range(height, -1, -1):
        need = sorted({p >> 1 for p in prev} | set(queries.get(k, ()) if k in by_size else ()))
        cols = by_size.get(k, [])
        layer: dict[int, bytes] = {}
        for j in need:
            vals = []
            for c in cols:
                v = opened[c].get(j)
                if v is None:
                    if cw >= len(column_witness):
                        raise MerkleError(f"{tree} tree: column witness too short")
                    v = column_witness[cw]
                    cw += 1
                vals.append(v)
            packed = pack_u32(vals) if vals else b""
            if k == height:
                layer[j] = leaf_hash(packed)
                continue
            children = []
            for child in (2 * j, 2 * j + 1):
                h = prev.get(child)
                if h is None:
                    if hw >= len(hash_witness):
                        raise MerkleError(f"{tree} tree: hash witness too short")
                    h = hash_witness[hw]
                    hw += 1
                children.append(h)
            layer[j] = node_hash(children[0], children[1], packed)
        prev = layer
    if hw != len(hash_witness):
        raise MerkleError(f"{tree} tree: {len(hash_witness) - hw} unused hash witness entries")
    if cw != len(column_witness):
        raise MerkleError(f"{tree} tree: {len(column_witness) - cw} unused column witness values")
    if prev.get(0) != root:
        raise MerkleError(f"{tree} tree: root mismatch")
