"""Table contents are bound: the pinned roots are recomputed from the integer definitions, and a
table never holds a row that is not in the function's graph."""

import numpy as np
import pytest

from luminair.verifier.graph import tables
from luminair.verifier.graph.table_roots import PINNED_ROOTS
from luminair.verifier.numeric import TABLE_FUNCTIONS, table_domain


def test_every_pinned_root_is_the_root_of_its_table():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    from pin_table_roots import BLOWUPS, SCALES, TABLES, compute_root

    assert set(PINNED_ROOTS) == {(t, s, b) for t in TABLES for s in SCALES for b in BLOWUPS}
    for (name, s, b), root in PINNED_ROOTS.items():
        assert compute_root(name, s, b) == root, (name, s, b)


@pytest.mark.parametrize("name", ["exp2", "log2", "sin"])
@pytest.mark.parametrize("s", [8, 10, 12])
def test_tables_hold_only_true_rows(name, s):
    xs, ys = tables.function_table(name, s)
    fn = TABLE_FUNCTIONS[name]
    dom = table_domain(name, s)
    P = (1 << 31) - 1
    signed = lambda v: v - P if v > P // 2 else v  # noqa: E731
    sample = list(range(0, len(xs), 97)) + [len(xs) - 1, len(dom) - 1]
    for i in sample:
        x = signed(xs[i])
        assert x in dom and signed(ys[i]) == fn(x, s)
    assert len(xs) == 1 << tables.function_table_log_size(name, s)


def test_an_unpinned_table_root_is_recomputed(monkeypatch):
    key = ("log2", 10, 1)
    pinned = PINNED_ROOTS[key]
    monkeypatch.setitem(PINNED_ROOTS, key, None)
    monkeypatch.delitem(PINNED_ROOTS, key)
    tables.table_root.cache_clear()
    try:
        assert tables.table_root("log2", 10, 1).hex() == pinned
    finally:
        tables.table_root.cache_clear()
