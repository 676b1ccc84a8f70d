"""A planned component: which graph nodes it holds, its real rows, its topology (shared by the
statement's planning, graph/statement.py, and the checked products', graph/mat_plans.py)."""

from __future__ import annotations

from dataclasses import dataclass

from .components import GraphComponent
from .topology import ColumnPattern, Segment

MIN_LOG_SIZE = 4


def log_size_of(rows: int) -> int:
    return max(MIN_LOG_SIZE, (rows - 1).bit_length())


@dataclass
class ComponentPlan:
    kind: str
    nodes: list[int]  # graph node indices, in graph order
    rows: int  # real rows
    component: GraphComponent
    segments: list[Segment]


def set_topology(comp: GraphComponent, patterns: dict[str, ColumnPattern]) -> None:
    for col, kind in comp.topology_kinds().items():
        comp.sparse_columns[f"d.{col}"], comp.anchors[col] = patterns[col].sparse()
