"""Two example AIRs that exercise the whole proof system (used by tests, the bench and, until a
model is proven, the demo):

* `fibonacci`: K columns holding consecutive Fibonacci terms (mod P); each row continues the
  previous one (next-row constraints), the first row starts from public (a, b) and the last
  column of the last row equals the public result.
* `square_lookup`: rows (x, y) that must appear in a preprocessed table of (i, i^2) for i < 2^k,
  looked up with LogUp, plus a running sum of x (next-row constraints) equal to a public total.
  The table's root is recomputed by the verifier, never read from the proof.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..commit import commitment_root
from ..fields import P
from .framework import Air, Component, PreprocessedColumn, PreprocessedTree


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
        ev.add_to_relation(
            SQUARE_RELATION, -ev.main("multiplicity"), [ev.pre("square.in"), ev.pre("square.out")]
        )


def square_table(table_log_size: int) -> dict[str, list[int]]:
    n = 1 << table_log_size
    return {"square.in": list(range(n)), "square.out": [i * i % P for i in range(n)]}


@lru_cache(maxsize=16)
def square_table_root(table_log_size: int, log_blowup: int) -> bytes:
    """Recomputed from the table's definition: a few milliseconds for the sizes allowed here."""
    table = square_table(table_log_size)
    return commitment_root([table["square.in"], table["square.out"]], log_blowup)


def square_lookup_air(log_size: int, table_log_size: int, total: int, log_blowup: int) -> Air:
    tree = PreprocessedTree(
        "square_table",
        [PreprocessedColumn("square.in", table_log_size), PreprocessedColumn("square.out", table_log_size)],
        square_table_root(table_log_size, log_blowup),
    )
    return Air([SquareUserComponent(log_size, total), SquareTableComponent(table_log_size)], [tree])
