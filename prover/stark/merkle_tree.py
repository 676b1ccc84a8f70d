"""Building mixed-degree Merkle trees from numpy columns and answering queries. Hashing is the
verifier's own (verifier/merkle.py); `decommit` walks the tree exactly as
verifier.merkle.verify_decommitment does, so its output is what that function consumes."""

from __future__ import annotations

from ...verifier.merkle import _LEAF_STATE, _NODE_STATE
from ...verifier.formats import Decommitment
from .backend import U32, Array, xp


def _row_bytes(columns: list[Array]) -> tuple[bytes, int]:
    """Row-major little-endian bytes of equally long columns, and the width of one row."""
    if not columns:
        return b"", 0
    mat = xp.stack([c.astype(U32) for c in columns], axis=1)
    return mat.astype("<u4").tobytes(), 4 * len(columns)


class MerkleTree:
    """Commits columns of mixed log sizes; a column of log size k is hashed into layer k."""

    def __init__(self, columns: list[Array]) -> None:
        if not columns:
            raise ValueError("a Merkle tree needs at least one column")
        self.columns = columns
        self.log_sizes = [int(c.shape[0]).bit_length() - 1 for c in columns]
        self.height = max(self.log_sizes)
        self.by_size: dict[int, list[int]] = {}
        for i, k in enumerate(self.log_sizes):
            self.by_size.setdefault(k, []).append(i)
        self.layers: list[list[bytes]] = [[] for _ in range(self.height + 1)]
        self._build()

    def _build(self) -> None:
        h = self.height
        data, width = _row_bytes([self.columns[i] for i in self.by_size.get(h, [])])
        mv = memoryview(data)
        leaf = _LEAF_STATE
        out = []
        for j in range(1 << h):
            s = leaf.copy()
            s.update(mv[j * width : (j + 1) * width])
            out.append(s.digest())
        self.layers[h] = out
        for k in range(h - 1, -1, -1):
            prev = b"".join(self.layers[k + 1])
            pmv = memoryview(prev)
            data, width = _row_bytes([self.columns[i] for i in self.by_size.get(k, [])])
            vmv = memoryview(data)
            node = _NODE_STATE
            out = []
            for j in range(1 << k):
                s = node.copy()
                s.update(pmv[64 * j : 64 * j + 64])
                if width:
                    s.update(vmv[j * width : (j + 1) * width])
                out.append(s.digest())
            self.layers[k] = out

    @property
    def root(self) -> bytes:
        return self.layers[0][0]

    def decommit(self, queries: dict[int, list[int]]) -> tuple[list[list[int]], Decommitment]:
        """Opened values per column at `queries[log size]`, and the witnesses to recompute the root."""
        values = []
        for i, k in enumerate(self.log_sizes):
            col = self.columns[i]
            values.append([int(col[p]) for p in queries.get(k, [])])
        dec = Decommitment()
        prev: set[int] = set()
        for k in range(self.height, -1, -1):
            qs = set(queries.get(k, ())) if k in self.by_size else set()
            need = sorted({p >> 1 for p in prev} | qs)
            cols = self.by_size.get(k, [])
            for j in need:
                if cols and j not in qs:
                    dec.column_witness.extend(int(self.columns[c][j]) for c in cols)
                if k < self.height:
                    for child in (2 * j, 2 * j + 1):
                        if child not in prev:
                            dec.hash_witness.append(self.layers[k + 1][child])
            prev = set(need)
        return values, dec
