"""Building mixed-degree Merkle trees from numpy columns and answering queries. Hashing is the
verifier's own (verifier/merkle.py); `decommit` walks the tree exactly as
verifier.merkle.verify_decommitment does, so its output is what that function consumes.

Trees are hashed by the compiled BLAKE2s (jit/blake2s.py, rows in parallel threads) or by its twin,
hashlib (kernels.py chooses). With hashlib, large trees are hashed by two processes (the two
halves below the root): hashlib keeps the GIL for small inputs, so threads would not help."""

from __future__ import annotations

import os
import tempfile

from functools import lru_cache

from ...verifier.formats import Decommitment
from ...verifier.merkle import _LEAF_STATE, _NODE_STATE, DIGEST_BYTES, LEAF_PREFIX, NODE_PREFIX
from . import kernels
from .backend import U32, Array, xp

_FORK_MIN_LEAVES = 1 << 14
_HASHLIB_NS = 800  # about one hashlib digest with the Python around it (kernels.use_compiled)
_CHILD_WORDS = 2 * DIGEST_BYTES // 4  # a node's two children: 13 u32 words
_BLOCK_VALUES = 1 << 16  # column values per block of rows handed to the compiled kernel
# The lowest layers of a large tree are dropped once it is built (the leaf layer alone is half of a
# tree's digests): decommit hashes the few nodes it needs there again from the columns, which stay.
_DROP_LAYERS = 4  # layers height .. height - 3: 15/16 of the digests; a node there is <= 15 hashes
_DROP_MIN_HEIGHT = 12  # smaller trees keep every layer


_ROW_BLOCK = 2048  # rows per block of the transpose below (a block stays in cache)


def _row_bytes(columns: list[Array]) -> tuple[memoryview | bytes, int]:
    """Row-major little-endian u32 bytes of equally long columns, and the width of one row. The
    transpose goes block by block: writing whole columns with a row-sized stride was about 3x
    slower (a cache miss per value)."""
    if not columns:
        return b"", 0
    n, k = columns[0].shape[0], len(columns)
    if n == 0:  # a half's share of the root layer
        return b"", 4 * k
    mat = xp.empty((n, k), dtype="<u4")
    tmp = xp.empty((k, min(n, _ROW_BLOCK)), dtype="<u4")
    for s in range(0, n, _ROW_BLOCK):
        e = min(n, s + _ROW_BLOCK)
        block = tmp[:, : e - s]
        for i, c in enumerate(columns):
            block[i] = c[s:e]
        mat[s:e] = block.T
    return memoryview(mat).cast("B"), 4 * k


def _hash_range(height: int, stop: int, rows: list[tuple[memoryview | bytes, int]], lo: int, hi: int) -> list[bytes]:
    """Layers height..stop of the subtree over leaves [lo, hi) (aligned, hi - lo = 2^(height - stop)),
    each as the concatenation of its digests (DIGEST_BYTES each). rows[k] = (row bytes, width) of the
    columns injected at layer k, over this subtree's nodes of that layer only."""
    layers: list[bytes] = []
    data, width = rows[height]
    mv = memoryview(data)
    leaf = _LEAF_STATE
    out = []
    for i in range(hi - lo):
        s = leaf.copy()
        s.update(mv[i * width : (i + 1) * width])
        out.append(s.digest())
    layers.append(b"".join(out))
    fresh = _NODE_STATE.copy
    pair = 2 * DIGEST_BYTES
    for k in range(height - 1, stop - 1, -1):
        lo, hi = lo >> 1, hi >> 1
        pmv = memoryview(layers[-1])
        data, width = rows[k]
        vmv = memoryview(data)
        if width:
            out = [(s := fresh(), s.update(pmv[pair * i : pair * i + pair]), s.update(vmv[i * width : (i + 1) * width]),
                    s.digest())[3] for i in range(hi - lo)]
        else:  # most layers inject no column: a comprehension is about 20% faster than a loop here
            out = [(s := fresh(), s.update(pmv[pair * i : pair * i + pair]), s.digest())[2] for i in range(hi - lo)]
        layers.append(b"".join(out))
    return layers


class MerkleTree:
    """Commits columns of mixed log sizes; a column of log size k is hashed into layer k. Layer k
    is kept as one bytes object of 2^k digests (one object per layer, not per node: cheap to pass
    between processes and to join)."""

    def __init__(self, columns: list[Array]) -> None:
        if not columns:
            raise ValueError("a Merkle tree needs at least one column")
        self.columns = columns
        self.log_sizes = [int(c.shape[0]).bit_length() - 1 for c in columns]
        self.height = max(self.log_sizes)
        self.by_size: dict[int, list[int]] = {}
        for i, k in enumerate(self.log_sizes):
            self.by_size.setdefault(k, []).append(i)
        self.layers: list[bytes | Array | None] = [b""] * (self.height + 1)  # bytes, uint8 arrays, None: dropped
        self._build()
        if self.height >= _DROP_MIN_HEIGHT:
            for k in range(self.height - _DROP_LAYERS + 1, self.height + 1):
                self.layers[k] = None

    def _build(self) -> None:
        h = self.height
        n = 1 << h
        if kernels.use_compiled(2 * n * _HASHLIB_NS * 1e-9):
            self.layers = _build_compiled(self.columns, self.by_size, h)
            return
        if n >= _FORK_MIN_LEAVES and hasattr(os, "fork"):
            top = self._build_in_two_processes()
        else:
            top = _hash_range(h, 0, self._rows(0, n), 0, n)
        for i, layer in enumerate(top):
            self.layers[h - i] = layer

    def _rows(self, lo: int, hi: int) -> list[tuple[memoryview | bytes, int]]:
        """Per layer k, the row bytes of the columns injected there, over the nodes above leaves
        [lo, hi) (each process of _build_in_two_processes transposes its own half)."""
        h = self.height
        return [_row_bytes([self.columns[i][lo >> (h - k) : hi >> (h - k)] for i in self.by_size.get(k, [])])
                for k in range(h + 1)]

    def _build_in_two_processes(self) -> list[bytes]:
        """Left half here, right half in a forked child (its layers come back as raw bytes in a
        shared-memory file); then the root."""
        h = self.height
        n = 1 << h
        with tempfile.TemporaryFile(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
            pid = os.fork()
            if pid == 0:  # child: hash the right half, write it, leave without cleanup handlers
                try:
                    for layer in _hash_range(h, 1, self._rows(n // 2, n), n // 2, n):
                        tmp.write(layer)
                    tmp.flush()
                    os._exit(0)
                except BaseException:
                    os._exit(1)
            left = _hash_range(h, 1, self._rows(0, n // 2), 0, n // 2)
            _, status = os.waitpid(pid, 0)
            tmp.seek(0)
            raw = tmp.read() if status == 0 else b""
        sizes = [len(layer) for layer in left]
        if len(raw) != sum(sizes):  # the child failed: do its half here
            right = _hash_range(h, 1, self._rows(n // 2, n), n // 2, n)
        else:
            ends = [sum(sizes[: i + 1]) for i in range(len(sizes))]
            right = [raw[e - s : e] for e, s in zip(ends, sizes)]
        layers = [a + b for a, b in zip(left, right)]
        root_rows = _row_bytes([self.columns[i] for i in self.by_size.get(0, [])])
        s = _NODE_STATE.copy()
        s.update(layers[-1])
        if root_rows[1]:
            s.update(root_rows[0])
        layers.append(s.digest())
        return layers

    def node(self, layer: int, index: int) -> bytes:
        kept = self.layers[layer]
        if kept is not None:
            return bytes(kept[DIGEST_BYTES * index : DIGEST_BYTES * (index + 1)])
        # a dropped layer: hashed again from the columns (verifier.merkle's leaf and node hashes)
        words = b"".join(int(self.columns[c][index]).to_bytes(4, "little") for c in self.by_size.get(layer, []))
        s = (_LEAF_STATE if layer == self.height else _NODE_STATE).copy()
        if layer < self.height:
            s.update(self.node(layer + 1, 2 * index))
            s.update(self.node(layer + 1, 2 * index + 1))
        s.update(words)
        return s.digest()

    @property
    def root(self) -> bytes:
        return bytes(self.layers[0])  # type: ignore[arg-type]

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
                            dec.hash_witness.append(self.node(k + 1, child))
            prev = set(need)
        return values, dec


@lru_cache(maxsize=2)
def _prefix_state(prefix: bytes) -> Array:
    """The compiled hash's state after the 64-byte prefix block (never the last block: a leaf or
    node always has words after it)."""
    jb = kernels.blake2s()
    return jb.compress_block(jb.initial_state(DIGEST_BYTES), prefix, 64, False)


def _build_compiled(columns: list[Array], by_size: dict[int, list[int]], height: int) -> list[bytes | Array]:
    """Every layer (index = layer, each a flat uint8 array of its digests), hashed by the compiled
    BLAKE2s; rows in blocks over threads.
    A block's columns are copied into one (columns, rows) uint32 array, so no whole-tree transpose
    is ever held."""
    jb = kernels.blake2s()
    leaf, node = _prefix_state(LEAF_PREFIX), _prefix_state(NODE_PREFIX)
    layers: list[bytes | Array] = [b""] * (height + 1)
    children = xp.empty(0, dtype=U32)
    for k in range(height, -1, -1):
        n = 1 << k
        cols = [columns[i] for i in by_size.get(k, [])]
        out = xp.empty((n, DIGEST_BYTES), dtype=xp.uint8)
        cw = 0 if k == height else _CHILD_WORDS
        h0 = leaf if k == height else node
        rows = max(256, _BLOCK_VALUES // max(1, len(cols)))
        # uint32 contiguous columns are read by address (jb.gather_rows), the others copied here
        direct = all(c.dtype == U32 and c.flags.c_contiguous for c in cols)
        addrs = xp.array([c.ctypes.data for c in cols] if direct else [], dtype=xp.int64)

        def block(s: int, cols: list[Array] = cols, out: Array = out, cw: int = cw, h0: Array = h0,
                  children: Array = children, rows: int = rows, n: int = n, addrs: Array = addrs) -> None:
            e = min(n, s + rows)
            vals = xp.empty((len(cols), e - s), dtype=U32)
            if addrs.shape[0]:
                jb.gather_rows(addrs, n, s, vals)
            else:
                for i, c in enumerate(cols):
                    vals[i] = c[s:e]
            jb.hash_rows(h0, 64, children[cw * s : cw * e], cw, vals, out[s:e], DIGEST_BYTES)

        kernels.run_parallel(block, range(0, n, rows))
        layers[k] = out.reshape(-1)
        if k:
            children = out.reshape(-1).view("<u4")  # node j of layer k - 1 reads words 13j .. 13j + 12
    return layers
