"""Two small AIRs that exercise the proof system below the graph layer (the tests of the STARK core
and bench/stark_*_bench.py use them; the shipped verifier checks graph statements only):

* `fibonacci`: K columns holding consecutive Fibonacci terms (mod P); each row continues the
  previous one (next-row constraints), the first row starts from (a, b) and the last column of the
  last row equals the result.
* `square_lookup`: rows (x, y) that must appear in a table of (i, i^2) for i < 2^k, looked up with
  LogUp, plus a running sum of x (next-row constraints) equal to a total. The table is committed
  in the main tree and pinned by the verifier's own evaluation at the out-of-domain point, as the
  graph's function tables are.

    air, main, pre = fibonacci_case(log_size=6, n_columns=5)
    proof = prove_stark(air, config, b"statement", main, pre)
    verify_stark(air, config, b"statement", proof)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from luminair.prover.stark.prove import commit_preprocessed
from luminair.verifier.air.framework import Air, Component, PreprocessedColumn, PreprocessedTree
from luminair.verifier.fields import P


class FibonacciComponent(Component):
    def __init__(self, log_size: int, n_columns: int, a: int, b: int, result: int) -> None:
        if n_columns < 3:
            raise ValueError("the Fibonacci AIR needs at least 3 columns")
        self.name = "fibonacci"
        self.log_size = log_size
        self.main_columns = tuple(f"c{i}" for i in range(n_columns))
        self.a, self.b, self.result = a, b, result

    def evaluate(self, ev: Any) -> None:
        k = len(self.main_columns)
        c = [ev.main(name) for name in self.main_columns]
        for i in range(2, k):
            ev.add_constraint(c[i] - c[i - 1] - c[i - 2])
        # Row r+1 starts with the last two terms of row r, except across the wrap-around.
        not_last = 1 - ev.selector("last")
        ev.add_constraint(not_last * (ev.main("c0", 1) - c[k - 2]))
        ev.add_constraint(not_last * (ev.main("c1", 1) - c[k - 1]))
        first = ev.selector("first")
        ev.add_constraint(first * (c[0] - self.a))
        ev.add_constraint(first * (c[1] - self.b))
        ev.add_constraint(ev.selector("last") * (c[k - 1] - self.result))


def fibonacci_air(log_size: int, n_columns: int, a: int, b: int, result: int) -> Air:
    return Air([FibonacciComponent(log_size, n_columns, a, b, result)])


def fibonacci_result(log_size: int, n_columns: int, a: int, b: int) -> int:
    """The last term: each row adds n_columns - 2 new terms after the initial two."""
    x, y = a % P, b % P
    for _ in range((1 << log_size) * (n_columns - 2)):
        x, y = y, (x + y) % P
    return y


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


SQUARE_RELATION = "square"


class SquareUserComponent(Component):
    def __init__(self, log_size: int, total: int) -> None:
        self.name = "square_user"
        self.log_size = log_size
        self.main_columns = ("x", "y", "acc")
        self.total = total

    def evaluate(self, ev: Any) -> None:
        x, y, acc = ev.main("x"), ev.main("y"), ev.main("acc")
        first = ev.selector("first")
        ev.add_constraint(first * (acc - x))
        ev.add_constraint((1 - first) * (acc - ev.main("acc", -1) - x))
        ev.add_constraint(ev.selector("last") * (acc - self.total))
        ev.add_to_relation(SQUARE_RELATION, 1, [x, y])


class SquareTableComponent(Component):
    def __init__(self, log_size: int) -> None:
        self.name = "square_table"
        self.log_size = log_size
        self.main_columns = ("multiplicity",)

    def evaluate(self, ev: Any) -> None:
        ev.add_to_relation(SQUARE_RELATION, -ev.main("multiplicity"), [ev.pre("square.in"), ev.pre("square.out")])


def square_table(table_log_size: int) -> dict[str, list[int]]:
    n = 1 << table_log_size
    return {"square.in": list(range(n)), "square.out": [i * i % P for i in range(n)]}


def square_lookup_air(log_size: int, table_log_size: int, total: int) -> Air:
    cols = [PreprocessedColumn("square.in", table_log_size), PreprocessedColumn("square.out", table_log_size)]
    tree = PreprocessedTree("square_table", cols, known_values=lambda: square_table(table_log_size))
    return Air([SquareUserComponent(log_size, total), SquareTableComponent(table_log_size)], [tree])


def square_lookup_trace(xs: np.ndarray, table_log_size: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    """(user columns, table multiplicities, total) for looking up x -> x^2 for each x."""
    xs = np.asarray(xs, dtype=np.int64)
    if xs.min() < 0 or xs.max() >= 1 << table_log_size:
        raise ValueError(f"lookup values must be in [0, 2^{table_log_size})")
    user = {"x": xs, "y": xs * xs % P, "acc": np.cumsum(xs) % P}
    mult = np.bincount(xs, minlength=1 << table_log_size).astype(np.int64)
    return user, {"multiplicity": mult}, int(xs.sum() % P)


def square_table_tree(air: Air, log_blowup: int) -> Any:
    """The committed square table (the prover's side of the known-values tree)."""
    tree = air.preprocessed[0]
    cols = {k: np.array(v, dtype=np.int64) for k, v in tree.known_values().items()}  # type: ignore[misc]
    return commit_preprocessed(tree, cols, log_blowup)


def fibonacci_case(log_size: int, n_columns: int, a: int = 1, b: int = 1) -> tuple[Air, list, list]:
    """(AIR, main trace, preprocessed trees) of an honest Fibonacci run."""
    air = fibonacci_air(log_size, n_columns, a, b, fibonacci_result(log_size, n_columns, a, b))
    return air, [fibonacci_trace(log_size, n_columns, a, b)], []


def square_lookup_case(log_size: int, table_log_size: int, log_blowup: int, seed: int = 0) -> tuple[Air, list, list]:
    """(AIR, main trace, preprocessed trees) of an honest square lookup of 2^log_size random values."""
    xs = np.random.default_rng(seed).integers(0, 1 << table_log_size, size=1 << log_size)
    user, table, total = square_lookup_trace(xs, table_log_size)
    air = square_lookup_air(log_size, table_log_size, total)
    return air, [user, table], [square_table_tree(air, log_blowup)]


def prove_example(name: str, params: dict[str, int], config: Any, seed: int = 0) -> tuple[Air, bytes, Any]:
    """(AIR, statement bytes, StarkProof) of an honest run of `fibonacci` (log_size, n_columns) or
    `square_lookup` (log_size, table_log_size); check it with verify.verify_stark(air, config,
    statement, proof)."""
    from luminair.prover.stark.prove import prove_stark

    if name == "fibonacci":
        air, main, pre = fibonacci_case(params["log_size"], params["n_columns"])
    elif name == "square_lookup":
        air, main, pre = square_lookup_case(params["log_size"], params["table_log_size"], config.log_blowup, seed)
    else:
        raise ValueError(f"unknown example AIR {name!r}")
    statement = f"example {name} {sorted(params.items())}".encode()
    return air, statement, prove_stark(air, config, statement, main, pre)
