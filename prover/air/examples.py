"""Trace generation for the example AIRs of verifier/air/examples.py."""

from __future__ import annotations

import numpy as np

from ...verifier.air.examples import square_table
from ...verifier.fields import P


def fibonacci_trace(log_size: int, n_columns: int, a: int, b: int) -> dict[str, np.ndarray]:
    """Rows of n_columns consecutive terms; row r+1 starts with the last two terms of row r."""
    n = 1 << log_size
    cols = np.zeros((n_columns, n), dtype=np.int64)
    cols[0, 0], cols[1, 0] = a % P, b % P
    for r in range(n):
        if r:
            cols[0, r] = cols[n_columns - 2, r - 1]
            cols[1, r] = cols[n_columns - 1, r - 1]
        for i in range(2, n_columns):
            cols[i, r] = (cols[i - 1, r] + cols[i - 2, r]) % P
    return {f"c{i}": cols[i] for i in range(n_columns)}


def square_lookup_trace(
    xs: np.ndarray, table_log_size: int
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    """(user columns, table multiplicities, public total) for looking up x -> x^2 for each x."""
    xs = np.asarray(xs, dtype=np.int64)
    if xs.min() < 0 or xs.max() >= 1 << table_log_size:
        raise ValueError(f"lookup values must be in [0, 2^{table_log_size})")
    user = {"x": xs, "y": xs * xs % P, "acc": np.cumsum(xs) % P}
    mult = np.bincount(xs, minlength=1 << table_log_size).astype(np.int64)
    table = {"multiplicity": mult}
    return user, table, int(xs.sum() % P)


def square_lookup_preprocessed(table_log_size: int) -> dict[str, np.ndarray]:
    return {k: np.array(v, dtype=np.int64) for k, v in square_table(table_log_size).items()}
