"""The search compiler's cost model: committed trace cells, per row of each AIR component, read
from the components themselves (verifier/graph/components.py), times the rows a node occupies
(verifier/graph/statement.rows_of: one per element, one per reduced input element, one per chunk
of lanes for a Dot), and each component's rows padded to powers of two as the statement lays them
out (statement.split_parts, approximated from the total). The fixed-size tables are left out: they
do not depend on which equivalent node is chosen."""

from __future__ import annotations

from functools import lru_cache

from luminair.verifier.fields import P
from luminair.verifier.graph.components import COMPONENT_ORDER, make_component
from luminair.verifier.graph.plan import MIN_LOG_SIZE
from luminair.verifier.graph.plan import SPLIT_MIN_PART, SPLIT_MIN_WASTE, component_cells
from luminair.verifier.graph.topology import DOT_LANE_CHOICES
from luminair.verifier.numeric import DOT_ACC_BOUND, VALUE_BITS

UNBOUNDED = 1 << (VALUE_BITS - 1)  # |value| bound of anything computed (16-bit signed)
_LOG_ROWS = 4


@lru_cache(maxsize=16)
def cells_per_row(scale_bits: int) -> dict[str, float]:
    """Committed cells of one trace row of every component kind (main, topology and LogUp columns)."""
    out = {}
    for kind in COMPONENT_ORDER:
        comp = make_component(kind, _LOG_ROWS, scale_bits)
        empty: dict[int, int] = {}  # the column counts depend on the sparse columns' names only
        comp.sparse_columns = {f"d.{c}": empty for c in comp.topology_kinds()} | {"first": empty, "last": empty}
        out[kind] = component_cells(comp)["cells"] / (1 << _LOG_ROWS)
    return out


def dot_lanes(length: int, bound_a: int, bound_b: int) -> int:
    """Products per Dot row (topology.dot_lanes without the masks): the most lanes dividing the
    reduced length whose accumulator relation stays below P."""
    for lanes in DOT_LANE_CHOICES:
        if length % lanes == 0 and lanes * bound_a * bound_b < P - 2 * DOT_ACC_BOUND:
            return lanes
    return 1


def padded_rows(rows: int) -> int:
    """Trace rows a component of `rows` real rows commits: the next power of two, or, where that
    would waste SPLIT_MIN_WASTE rows, instances of the largest powers of two that fit (split_parts
    for nodes small enough to split anywhere)."""
    if rows <= 0:
        return 0
    full = 1 << max(MIN_LOG_SIZE, (rows - 1).bit_length())
    total, remaining = 0, rows
    while remaining:
        padded = 1 << max(MIN_LOG_SIZE, (remaining - 1).bit_length())
        if padded - remaining < SPLIT_MIN_WASTE or remaining < SPLIT_MIN_PART:
            total += padded
            break
        cap = 1 << (remaining.bit_length() - 1)
        total += cap
        remaining -= cap
    return min(total, full)
