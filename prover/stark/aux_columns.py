"""Columns that depend on the challenges drawn after the main commitment: a component's aux columns
(powers of a challenge, pinned by verifier/air/framework.constrain_geometric) and its periodic
columns (known to the verifier, never committed), as storage-order QM31 columns on the trace
domain."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...verifier.air.framework import Component, GeometricColumn
from ...verifier.fields import QM31, P, q_mul, q_pow
from . import circle_fft as cf
from . import field_vec as fv
from .backend import U64, Array

Secure = tuple[Array, Array, Array, Array]


def _powers(f: QM31, count: int) -> np.ndarray:
    """(count, 4) array of f^0 .. f^(count - 1), by doubling: rows k..2k-1 are rows 0..k-1 times
    f^k (vector products: exact, the same values as count - 1 scalar ones)."""
    n = max(count, 1)
    out = np.empty((n, 4), dtype=U64)
    out[0] = (1, 0, 0, 0)
    k, fk = 1, f  # invariant: out[:k] holds f^0 .. f^(k-1), fk = f^k
    while k < n:
        m = min(k, n - k)
        block = fv.q_mul_const(tuple(np.ascontiguousarray(out[:m, j]) for j in range(4)), fk)  # type: ignore[arg-type]
        for j in range(4):
            out[k : k + m, j] = block[j]
        k, fk = k + m, q_mul(fk, fk)
    return out


def _storage(rows: np.ndarray, log_size: int) -> Secure:
    """(rows, 4) row-order values -> four storage-order coordinate columns."""
    order = cf.row_to_storage(log_size)
    cols = []
    for k in range(4):
        col = np.empty(rows.shape[0], dtype=U64)
        col[order] = rows[:, k]
        cols.append(col)
    return tuple(cols)  # type: ignore[return-value]


def geometric_rows(
    starts: dict[int, int], n_rows: int, f: QM31, reset: bool, stride: int = 1, heads: list[QM31] | None = None
) -> np.ndarray:
    """Row-order values of a GeometricColumn: h f^(group index), or with reset h f^(rows since the
    group's start), for each of the `stride` interleaved sequences (row r = l stride + i is row l of
    sequence i, whose h is heads[i], else 1). A reset column's sequences must start a group on their
    first row."""
    flag = np.zeros(n_rows, dtype=bool)
    flag[[r for r, v in starts.items() if v]] = True
    grid = flag.reshape(n_rows // stride, stride)  # [l, i]
    local = np.arange(grid.shape[0])[:, None]
    if reset:
        if not grid[0].all():
            raise ValueError("a geometric column's first group must start at row 0")
        exps = local - np.maximum.accumulate(np.where(grid, local, 0), axis=0)
    else:
        exps = np.cumsum(grid, axis=0) - grid[0:1]
    out = _powers(f, int(exps.max()) + 1)[exps.reshape(-1)]
    if heads is not None:  # h_i f^e, as QM31 products over whole columns
        h = np.array(heads, dtype=U64)[np.arange(n_rows) % stride]
        prod = fv.q_mul(tuple(out[:, k] for k in range(4)), tuple(h[:, k] for k in range(4)))
        out = np.stack([np.asarray(c, dtype=U64) for c in prod], axis=1)
    return out


def aux_trace(comp: Component, challenges: dict[str, QM31], source: Any = None) -> dict[str, Secure]:
    """Every aux column: geometric ones first, then running sums, whose terms the component states
    over the trace (`source(kind, key, offset)`, as DomainEvaluator reads it) and the former."""
    from .constraints import DomainEvaluator, as_secure

    n = comp.log_size
    out: dict[str, Secure] = {}
    for name, col in comp.aux_columns.items():
        if isinstance(col, GeometricColumn):
            f = q_pow(challenges[col.factor], col.power)
            heads = None
            if col.head:
                p, values = periodic_values(comp, challenges)[col.head]
                heads = [values[i % (1 << p)] for i in range(col.stride)]
            out[name] = _storage(geometric_rows(comp.sparse_columns[col.starts], 1 << n, f, col.reset,
                                                col.stride, heads), n)
    running = [(name, col) for name, col in comp.aux_columns.items() if not isinstance(col, GeometricColumn)]
    if running:
        if source is None:
            raise ValueError(f"{comp.name}: running aux columns need the trace")

        def aux(name: str, offset: int) -> Secure:
            cols = out[name]
            if offset == 0:
                return cols
            perm = cf.mask_permutation(n, n, offset)
            return tuple(c[perm] for c in cols)  # type: ignore[return-value]

        ev = DomainEvaluator(comp, 1 << n, source, challenges=challenges, aux=aux,
                             periodic=periodic_trace(comp, challenges).__getitem__)
        order = cf.row_to_storage(n)
        for name, col in running:
            term = as_secure(comp.running_term(ev, name), 1 << n)
            rows = np.stack([np.asarray(c)[order] for c in term], axis=1).astype(np.int64)  # (rows, 4) row order
            out[name] = _storage(segmented_sums(rows, comp.sparse_columns[col.starts], col.stride), n)
    return out


def segmented_sums(rows: np.ndarray, starts: dict[int, int], stride: int = 1) -> np.ndarray:
    """Prefix sums mod P of (rows, 4) values, restarting on every group start; with a stride, of
    each of the interleaved sequences (rows i, i + stride, ...) on its own."""
    n = rows.shape[0]
    if stride > 1:  # sequence by sequence: [l, i] -> [i, l], sum, and back
        t = n // stride
        moved = {(r % stride) * t + r // stride: v for r, v in starts.items()}
        flat = rows.reshape(t, stride, 4).transpose(1, 0, 2).reshape(n, 4)
        return segmented_sums(flat, moved).reshape(stride, t, 4).transpose(1, 0, 2).reshape(n, 4)
    flag = np.zeros(n, dtype=bool)
    flag[[r for r, v in starts.items() if v]] = True
    if not flag[0]:
        raise ValueError("a running column's first group must start at row 0")
    out = np.empty_like(rows)
    begin = np.flatnonzero(flag)
    ends = np.append(begin[1:], n)
    for k in range(4):  # a loop over groups would be slow: prefix sums mod P in chunks, then subtract
        col = rows[:, k] % P
        csum = np.zeros(n, dtype=np.int64)
        acc = 0
        for lo in range(0, n, 1 << 20):  # partial sums stay below 2^63: 2^20 values of < 2^31
            part = np.cumsum(col[lo : lo + (1 << 20)]) + acc
            csum[lo : lo + len(part)] = part % P
            acc = int(csum[lo + len(part) - 1])
        before = np.where(begin > 0, csum[np.maximum(begin - 1, 0)], 0)
        out[:, k] = (csum - np.repeat(before, ends - begin)) % P
    return out.astype(U64)


_PERIODIC: dict[Any, Any] = {}


def _cached(comp: Component, challenges: dict[str, QM31]) -> dict[str, Any]:
    """This proof's cache entry for a component (forgetting the last proof's on new challenges)."""
    drawn = tuple(sorted(challenges.items()))
    if _PERIODIC.get("drawn") != drawn:
        _PERIODIC.clear()
        _PERIODIC["drawn"] = drawn
    got = _PERIODIC.get(id(comp))
    if got is None or got[0] is not comp:
        got = _PERIODIC[id(comp)] = (comp, {})
    return got[1]


def periodic_values(comp: Component, challenges: dict[str, QM31]) -> dict[str, tuple[int, list[QM31]]]:
    """comp.periodic_values, computed once per proof (the weights' v takes K N products)."""
    entry = _cached(comp, challenges)
    if "values" not in entry:
        entry["values"] = comp.periodic_values(challenges)
    return entry["values"]


def periodic_trace(comp: Component, challenges: dict[str, QM31]) -> dict[str, Secure]:
    """Every periodic column of a component tiled over its trace domain (made once per proof: the
    trace and composition stages both read them)."""
    entry = _cached(comp, challenges)
    if "trace" not in entry:
        n = comp.log_size
        out = {}
        for name, (p, values) in periodic_values(comp, challenges).items():
            period = np.array(values, dtype=U64).reshape(1 << p, 4)
            out[name] = _storage(period[np.arange(1 << n) % (1 << p)], n)
        entry["trace"] = out
    return entry["trace"]
