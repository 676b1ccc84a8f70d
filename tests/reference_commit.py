"""Pure-Python commitments from the verifier's own definitions (circle FFT, Merkle hashing): the
root of a tree of columns given row by row, the reference the prover's tree building (numpy and
compiled) is cross-tested against."""

from __future__ import annotations

from luminair.verifier.circle import row_to_storage
from reference_fft import circle_evaluate, circle_interpolate
from luminair.verifier.merkle import leaf_hash, node_hash, pack_u32


def storage_order(values: list[int], log_size: int) -> list[int]:
    out = [0] * len(values)
    for r, v in enumerate(values):
        out[row_to_storage(r, log_size)] = v
    return out


def low_degree_extension(values: list[int], log_blowup: int) -> list[int]:
    """Row-order column of 2^n canonical values -> evaluations on the circle domain of log size
    n + log_blowup (storage order)."""
    n = len(values).bit_length() - 1
    coeffs = circle_interpolate(storage_order(values, n))
    return circle_evaluate(coeffs + [0] * ((1 << (n + log_blowup)) - len(coeffs)))


def merkle_root(columns: list[list[int]]) -> bytes:
    """Root of the mixed-degree tree (verifier/merkle.py) over committed-domain columns."""
    sizes = [len(c).bit_length() - 1 for c in columns]
    height = max(sizes)
    prev: list[bytes] = []
    for k in range(height, -1, -1):
        cols = [c for c, s in zip(columns, sizes) if s == k]
        layer = []
        for j in range(1 << k):
            vals = pack_u32([c[j] for c in cols]) if cols else b""
            if k == height:
                layer.append(leaf_hash(vals))
            else:
                layer.append(node_hash(prev[2 * j], prev[2 * j + 1], vals))
        prev = layer
    return prev[0]


def commitment_root(columns: list[list[int]], log_blowup: int) -> bytes:
    """Root of the tree committing row-order trace columns with the given blowup."""
    return merkle_root([low_degree_extension(c, log_blowup) for c in columns])
