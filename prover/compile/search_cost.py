"""The search compiler's cost model: committed trace cells, per row of each AIR component, read
from the components themselves (verifier/graph/components.py), times the rows a node occupies
(verifier/graph/statement.rows_of: one per element, one per reduced input element, one per chunk
of lanes for a Dot). Padding to powers of two and the fixed-size tables are left out: they do not
depend on which equivalent node is chosen, to first order."""

from __future__ import annotations

from functools import lru_cache

from luminair.verifier.fields import P
from luminair.verifier.graph.components import COMPONENT_ORDER, make_component
from luminair.verifier.graph.summary import component_cells
from luminair.verifier.graph.topology import DOT_LANE_CHOICES, KNOWN_LANES
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


def known_cells(numel: int, cells: dict[str, float]) -> float:
    return -(-numel // KNOWN_LANES) * cells["Known"]


def private_input_cells(numel: int, cells: dict[str, float]) -> float:
    return numel * cells["PrivateInput"]
