"""Trace generation for the example AIRs of verifier/air/examples.py."""

from __future__ import annotations

import numpy as np

from ...verifier.air.examples import square_table
from ...verifier.config import PcsConfig
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


def prove_example(
    name: str, params: dict[str, int], config: "PcsConfig", seed: int = 0
) -> tuple[bytes, bytes]:
    """(settings.bin, proof.bin) of an example AIR, as files."""
    from ...verifier.formats import ProofFile
    from ...verifier.statement import KIND_AIR, ExampleAirSpec, build_statement, encode_settings, read_settings
    from ..stark.prove import commit_preprocessed, prove_stark

    settings_bytes = encode_settings(KIND_AIR, config, ExampleAirSpec(name, dict(params)))
    settings = read_settings(settings_bytes)
    if name == "fibonacci":
        from ...verifier.air.examples import fibonacci_result

        a, b = 1, 1
        result = fibonacci_result(params["log_size"], params["n_columns"], a, b)
        public = [[a, b, result]]
        main = [fibonacci_trace(params["log_size"], params["n_columns"], a, b)]
        pre = []
    elif name == "square_lookup":
        rng = np.random.default_rng(seed)
        xs = rng.integers(0, 1 << params["table_log_size"], size=1 << params["log_size"])
        user, table, total = square_lookup_trace(xs, params["table_log_size"])
        public = [[total]]
        main = [user, table]
        pre = None
    else:
        raise ValueError(f"unknown example AIR {name!r}")
    st = build_statement(settings, public)
    if pre is None:
        pre = [commit_preprocessed(st.air.preprocessed[0], square_lookup_preprocessed(params["table_log_size"]), config.log_blowup)]
    stark = prove_stark(st.air, config, st.statement_bytes, main, pre)
    return settings_bytes, ProofFile(settings.digest, public, stark).to_bytes()
