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
from .backend import U64, Array

Secure = tuple[Array, Array, Array, Array]


def _powers(f: QM31, count: int) -> np.ndarray:
    """(count, 4) array of f^0 .. f^(count - 1)."""
    out = np.empty((max(count, 1), 4), dtype=U64)
    cur = (1, 0, 0, 0)
    for i in range(count):
        out[i] = cur
        cur = q_mul(cur, f)
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


def geometric_rows(starts: dict[int, int], n_rows: int, f: QM31, reset: bool) -> np.ndarray:
    """Row-order values of a GeometricColumn: f^(group index), or with reset f^(rows since the
    group's start). Row 0 must start a group."""
    flag = np.zeros(n_rows, dtype=bool)
    flag[[r for r, v in starts.items() if v]] = True
    if not flag[0]:
        raise ValueError("a geometric column's first group must start at row 0")
    group = np.cumsum(flag) - 1
    if reset:
        begin = np.flatnonzero(flag)[group]
        exps = np.arange(n_rows) - begin
    else:
        exps = group
    return _powers(f, int(exps.max()) + 1)[exps]


def aux_trace(comp: Component, challenges: dict[str, QM31], source: Any = None) -> dict[str, Secure]:
    """Every aux column: geometric ones first, then running sums, whose terms the component states
    over the trace (`source(kind, key, offset)`, as DomainEvaluator reads it) and the former."""
    from .constraints import DomainEvaluator, as_secure

    n = comp.log_size
    out: dict[str, Secure] = {}
    for name, col in comp.aux_columns.items():
        if isinstance(col, GeometricColumn):
            f = q_pow(challenges[col.factor], col.power)
            out[name] = _storage(geometric_rows(comp.sparse_columns[col.starts], 1 << n, f, col.reset), n)
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
            out[name] = _storage(segmented_sums(rows, comp.sparse_columns[col.starts]), n)
    return out


def segmented_sums(rows: np.ndarray, starts: dict[int, int]) -> np.ndarray:
    """Prefix sums mod P of (rows, 4) values, restarting on every group start."""
    n = rows.shape[0]
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


def periodic_trace(comp: Component, challenges: dict[str, QM31]) -> dict[str, Secure]:
    """Every periodic column of a component tiled over its trace domain (made once per proof: the
    trace and composition stages both read them)."""
    drawn = tuple(sorted(challenges.items()))
    if _PERIODIC.get("drawn") != drawn:  # another proof: forget the last one's columns
        _PERIODIC.clear()
        _PERIODIC["drawn"] = drawn
    got = _PERIODIC.get(id(comp))
    if got is not None and got[0] is comp:
        return got[1]
    n = comp.log_size
    out = {}
    for name, (p, values) in comp.periodic_values(challenges).items():
        period = np.array(values, dtype=U64).reshape(1 << p, 4)
        out[name] = _storage(period[np.arange(1 << n) % (1 << p)], n)
    _PERIODIC[id(comp)] = (comp, out)
    return out
