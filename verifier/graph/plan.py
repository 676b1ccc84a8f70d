"""The planner's records (verifier/graph/planner.py makes them): every decision that turns a graph
into AIR components, as plain data, and the padding rules components are laid out by."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..air.framework import component_info
from .components import DotVariant, GraphComponent
from .topology import Segment

MIN_LOG_SIZE = 4
# A component's rows are padded to a power of two. A kind whose rows would waste more padding than
# this is split into several components (instances), so large models do not pay up to 2x.
SPLIT_MIN_WASTE = 1 << 16
SPLIT_MIN_PART = 1 << 14
# Kinds that share one component when a graph has all of them (a selector column tells the rows
# apart): each component's columns are opened at every query, and these are small and alike
MERGED_KINDS = {"RecipSqrt": ("Recip", "Sqrt"), "ExpErf": ("Exp", "Erf"), "SumMaxReduce": ("SumReduce", "MaxReduce")}


def log_size_of(rows: int) -> int:
    return max(MIN_LOG_SIZE, (rows - 1).bit_length())


def padded_rows(rows: int) -> int:
    return 1 << log_size_of(rows)


def split_parts(rows: list[int]) -> list[int]:
    """How many consecutive nodes (of rows[i] rows each) go into each instance of one kind. The
    rows still to place form one instance unless its padding would waste SPLIT_MIN_WASTE rows or
    more (or fewer than SPLIT_MIN_PART rows remain); else the next instance takes nodes up to the
    largest power of two not above those rows (a node larger than that goes alone) and the rule
    applies again to the rest. Every instance costs its columns in every query's openings, so a
    rest that pads cheaply stays one instance."""
    total = sum(rows)
    parts, i, remaining = [], 0, total
    while i < len(rows):
        waste = (1 << log_size_of(remaining)) - remaining
        if waste < SPLIT_MIN_WASTE or remaining < SPLIT_MIN_PART:
            parts.append(len(rows) - i)
            break
        cap = 1 << (remaining.bit_length() - 1)
        n, taken = 0, 0
        while i + n < len(rows) and (n == 0 or taken + rows[i + n] <= cap):
            taken += rows[i + n]
            n += 1
        parts.append(n)
        i += n
        remaining -= taken
    padded = sum(padded_rows(sum(part)) for part in chunks(rows, parts))
    return parts if (1 << log_size_of(total)) - padded >= SPLIT_MIN_WASTE else [len(rows)]


def chunks(items: list[Any], counts: list[int]) -> list[list[Any]]:
    """`items` cut into consecutive slices of counts[0], counts[1], ... items (split_parts' instances)."""
    out, at = [], 0
    for n in counts:
        out.append(items[at : at + n])
        at += n
    return out


def merge_kinds(by_kind: dict[tuple[str, int], list[int]]) -> dict[tuple[str, int], list[int]]:
    """`by_kind` ((kind, constant) -> nodes) with the kinds of MERGED_KINDS joined where all are
    present at constants one component proves (MERGED_CONSTANT: RecipSqrt proves 2^(2e)/x beside
    sqrt(x 2^e); the others share one constant)."""
    out = dict(by_kind)
    for merged, parts in MERGED_KINDS.items():
        for key in sorted(k for k in out if k[0] == parts[1]):
            first = (parts[0], 2 * key[1] if merged == "RecipSqrt" else key[1])
            if first in out and key in out:
                out[(merged, key[1])] = sorted(out.pop(first) + out.pop(key))
    return out


def vary_constants(by_kind: dict[tuple[str, int], list[int]], varies) -> dict[tuple[str, int], list[int]]:  # noqa: ANN001
    """`by_kind` after merge_kinds with every kind that `varies` (its rows can carry their own
    constant: GraphComponent.vary) held at several constants joined into one group, keyed by its
    largest; Recip and Sqrt groups that merge_kinds left apart join as one RecipSqrt. Every
    component costs its columns at every query: one that varies costs a column or three more."""
    family = {"Recip": "RecipSqrt", "Sqrt": "RecipSqrt"}
    joined: dict[str, list[tuple[str, int]]] = {}
    out: dict[tuple[str, int], list[int]] = {}
    for key in by_kind:
        if varies(key[0]):
            joined.setdefault(family.get(key[0], key[0]), []).append(key)
        else:
            out[key] = by_kind[key]
    for name, keys in joined.items():
        kinds = {kind for kind, _ in keys}
        kind = kinds.pop() if len(kinds) == 1 else name
        out[(kind, max(c for _, c in keys))] = sorted(i for key in keys for i in by_kind[key])
    return out


@dataclass(frozen=True)
class Instance:
    """One AIR component instance as planned, before its topology is derived: its kind, the nodes
    it holds (graph order), their rows, and an upper bound on the boundary rows its topology will
    take (from the shapes alone: what the work budget charges before any of it is derived).
    `name` is the component's name in the AIR (part of the statement's shape). Checked products
    add the MatOut `tag` they share and each node's `offsets` (its MatOut groups before its own)."""

    kind: str  # "Add", "Dot8B", "MatIn", "MatOut", ... (COMPONENT_ORDER's names, then the products')
    name: str
    nodes: tuple[int, ...]
    rows: int  # real rows
    log_size: int
    boundary_bound: int
    variant: DotVariant | None = None  # a Dot's decisions
    tag: str = ""
    offsets: tuple[int, ...] = ()
    bias: bool = False
    split_w: bool = False
    constant: int = 0  # numeric.node_constant of its nodes: a shift, an exponent, a scale (the largest
    # where they differ)
    variable: bool = False  # its nodes' constants differ: each row carries its own (GraphComponent.vary)


@dataclass
class ComponentPlan:
    """An instance with its component built: the topology derived, the segments its nodes' rows
    take (graph/statement.py, graph/mat_plans.py)."""

    kind: str
    nodes: list[int]  # graph node indices, in graph order
    rows: int  # real rows
    component: GraphComponent
    segments: list[Segment] = field(default_factory=list)
    instance: Any = None  # the Instance it was built from


def component_cells(comp: Any) -> dict[str, int]:
    """Committed cells of one component's trace: padded rows times its main, topology and LogUp
    interaction columns (the table components are not counted)."""
    info = component_info(comp)
    columns = {
        "main_columns": len(comp.main_columns),
        "topology_columns": len(comp.topology_columns()) if hasattr(comp, "topology_columns") else 0,
        "interaction_columns": 4 * (info.n_batches + len(comp.aux_columns)),
    }
    return {**columns, "cells": (1 << comp.log_size) * sum(columns.values())}


def air_cells(air: Any) -> int:
    """Committed cells of every component's trace, the tables' included (what a preset's blowup is
    sized by: verifier/config.preset_config)."""
    return sum(component_cells(comp)["cells"] for comp in air.components)
