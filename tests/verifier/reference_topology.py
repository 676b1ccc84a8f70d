"""The per-row reference of verifier/graph/topology.py's sparse topology columns: every boundary
row's value computed on its own (the view's digit loop a row, a bisect over the parts a row), the
way the verifier did before it computed runs in closed form (ViewRuns, ColumnPattern._interior).
Tests cross-check the fast version against it entry by entry."""

from __future__ import annotations

from bisect import bisect_right

from luminair.verifier.fields import P
from luminair.verifier.graph.topology import AffineView, ColumnPattern, ViewRuns, _run_length


def address(v: AffineView, base: int, local: int) -> int:
    """base + offset + sum digit_j stride_j over the digits of `local` (innermost first; the
    outermost digit wraps)."""
    a = base + v.offset
    for j in range(len(v.sizes) - 1, -1, -1):
        local, d = divmod(local, v.sizes[j])
        a += d * v.strides[j]
    return a


def part_value(fn: object, local: int) -> int:
    """A part's value at one of its rows: a ViewRuns by its definition (the address of element
    local // group of its view), anything else by calling it."""
    if isinstance(fn, ViewRuns):
        return address(fn.view, fn.base, local // (fn.group or 1))
    return fn(local)  # type: ignore[operator]


def reference_candidates(pattern: ColumnPattern) -> set[int]:
    """Every row where the difference may be non-zero: the pattern's listed candidates and every
    run start of its ViewRuns parts (and the row after it, for an affine column; every row of a
    step column's part whose runs step)."""
    out = set(pattern.candidates)
    for start, rows, fn in pattern.parts:
        if isinstance(fn, ViewRuns):
            length = fn.group if fn.group is not None else _run_length(fn.view)  # (not the fast object's own)
            if pattern.kind == "step" and fn.group is None and len(fn.view.sizes) and any(
                    d > 1 and s for d, s in zip(fn.view.sizes, fn.view.strides)):
                length = 1
            for b in range(0, rows, length):
                out.add(start + b)
                if pattern.kind == "affine":
                    out.add(start + b + 1)
    return out


def reference_value(pattern: ColumnPattern, row: int) -> int:
    row %= pattern.n_rows
    i = bisect_right(pattern.starts, row) - 1
    if i >= 0:
        start, rows, fn = pattern.parts[i]
        if row < start + rows:
            return part_value(fn, row - start)
    return 0


def reference_sparse(pattern: ColumnPattern) -> tuple[dict[int, int], int]:
    """(difference column row -> value mod P, anchor at row 0), one row at a time."""
    out = {}
    for r in sorted(c for c in reference_candidates(pattern) if c < pattern.n_rows):
        v = [reference_value(pattern, r - j) for j in range(3)]
        d = v[0] - 2 * v[1] + v[2] if pattern.kind == "affine" else v[0] - v[1]
        if d % P:
            out[r] = d % P
    return out, reference_value(pattern, 0) % P


def dense_difference(pattern: ColumnPattern) -> dict[int, int]:
    """The difference column over every row (small patterns only): where it is non-zero."""
    n = pattern.n_rows
    col = [reference_value(pattern, r) for r in range(n)]
    out = {}
    for r in range(n):
        d = col[r] - 2 * col[r - 1] + col[r - 2] if pattern.kind == "affine" else col[r] - col[r - 1]
        if d % P:
            out[r] = d % P
    return out
