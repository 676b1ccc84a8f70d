"""From a graph settings file and the proof's public values to the AIR the verifier checks, the
public LogUp terms it computes itself, and the decoded outputs it reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..air.framework import Air, AirDefinitionError, PreprocessedColumn, PreprocessedTree, RelationElements
from ..errors import FormatError, StatementError
from ..fields import QM31, QZERO, P, q_add, q_batch_inverse, q_from_m31, q_mul, q_mul_m31, q_sub
from ..numeric import VALUE_MAX, VALUE_MIN, from_field
from .components import (
    COMPONENT_ORDER,
    DATA,
    FunctionTableComponent,
    GraphComponent,
    RangeTableComponent,
    make_component,
)
from .spec import GraphSpec
from .tables import TABLE_ORDER, table_log_size, table_root

if TYPE_CHECKING:  # statement.py imports this module
    from ..statement import Settings, Statement

MIN_LOG_SIZE = 4


def _log_size(rows: int) -> int:
    return max(MIN_LOG_SIZE, (rows - 1).bit_length())


def node_kind(spec: GraphSpec, index: int) -> str | None:
    """The component a node's rows go to (None: a public input, which has no rows)."""
    node = spec.nodes[index]
    if node.op == "Input":
        return "PrivateInput" if node.private else None
    return node.op


@dataclass
class ComponentPlan:
    kind: str
    nodes: list[int]  # graph node indices, in graph order
    rows: int  # real rows
    component: GraphComponent


def plan_components(spec: GraphSpec) -> list[ComponentPlan]:
    """Which nodes each op component holds, in the fixed component order (prover and verifier)."""
    by_kind: dict[str, list[int]] = {}
    for i in range(len(spec.nodes)):
        kind = node_kind(spec, i)
        if kind is not None:
            by_kind.setdefault(kind, []).append(i)
    plans = []
    for kind in COMPONENT_ORDER:
        nodes = by_kind.get(kind)
        if not nodes:
            continue
        rows = sum(spec.rows_of(i) for i in nodes)
        plans.append(ComponentPlan(kind, nodes, rows, make_component(kind, _log_size(rows), spec.scale_bits)))
    return plans


def model_tree(plans: list[ComponentPlan], root: bytes) -> PreprocessedTree:
    cols = [
        PreprocessedColumn(f"{p.component.name}.{c}", p.component.log_size)
        for p in plans
        for c in p.component.pre_columns
    ]
    return PreprocessedTree("model", cols, root)


def build_graph_air(spec: GraphSpec, log_blowup: int) -> tuple[Air, list[ComponentPlan]]:
    plans = plan_components(spec)
    if not plans:
        raise FormatError("settings.bin: the graph has no computation to prove")
    components: list = [p.component for p in plans]
    trees = [model_tree(plans, spec.model_root)]
    needed = {t for c in components for t in c.tables} | ({"range8"} if any(c.uses_range for c in components) else set())
    for table in TABLE_ORDER:
        if table not in needed:
            continue
        root = table_root(table, spec.scale_bits, log_blowup)
        if table == "range8":
            components.append(RangeTableComponent())
            trees.append(PreprocessedTree("table.range8", [PreprocessedColumn("table.range8.value", 8)], root))
            continue
        log = table_log_size(table, spec.scale_bits)
        components.append(FunctionTableComponent(table, log))
        cols = [PreprocessedColumn(f"table.{table}.in", log), PreprocessedColumn(f"table.{table}.out", log)]
        trees.append(PreprocessedTree(f"table.{table}", cols, root))
    return Air(components, trees), plans


def _combine(el: RelationElements, a2: QM31, node: int, idx: int, value: int) -> QM31:
    # node + alpha * idx + alpha^2 * value - z
    acc = q_add(q_from_m31(node), q_mul_m31(el.alpha, idx))
    acc = q_add(acc, q_mul_m31(a2, value))
    return q_sub(acc, el.z)


def _decode(vals: list[int], what: str, scale: int) -> list[float]:
    out = []
    for i, v in enumerate(vals):
        raw = from_field(v)
        if not VALUE_MIN <= raw <= VALUE_MAX:
            raise StatementError(f"{what} element {i}: {raw} is outside the 16-bit value range")
        out.append(raw / (1 << scale))
    return out


def graph_statement(settings: "Settings", public: list[list[int]]) -> "Statement":
    """The AIR, statement bytes, public LogUp terms and decoded public values of a graph proof."""
    from ..statement import Statement, statement_bytes

    spec: GraphSpec = settings.body
    pub_inputs = [inp for inp in spec.inputs if not spec.nodes[inp.node].private]
    expected = len(pub_inputs) + len(spec.outputs)
    if len(public) != expected:
        raise StatementError(f"the proof carries {len(public)} public tensors, the model has {expected}")
    inputs, outputs = {}, {}
    for inp, vals in zip(pub_inputs, public):
        node = spec.nodes[inp.node]
        if len(vals) != node.numel:
            raise StatementError(f"public input {inp.name!r}: {len(vals)} values for shape {node.shape}")
        inputs[inp.name] = {"shape": list(node.shape), "values": _decode(vals, f"input {inp.name!r}", spec.scale_bits)}
    for out, vals in zip(spec.outputs, public[len(pub_inputs) :]):
        if len(vals) != len(out.src_indices):
            raise StatementError(f"output {out.name!r}: {len(vals)} values for shape {out.shape}")
        for i, (src, v) in enumerate(zip(out.src_indices, vals)):
            if src < 0 and v != 0:
                raise StatementError(f"output {out.name!r} element {i} reads padding but is not 0")
        outputs[out.name] = {"shape": list(out.shape), "values": _decode(vals, f"output {out.name!r}", spec.scale_bits)}
    try:
        air, plans = build_graph_air(spec, settings.config.log_blowup)
    except AirDefinitionError as e:
        raise FormatError(f"settings.bin: the graph cannot be proven as described: {e}") from None

    def public_sum(elements: dict[str, RelationElements]) -> QM31:
        el = elements.get(DATA)
        if el is None:
            return QZERO
        a2 = q_mul(el.alpha, el.alpha)
        nums: list[int] = []
        dens: list[QM31] = []
        for inp, vals in zip(pub_inputs, public):
            nid = spec.node_id(inp.node)
            for i, (f, v) in enumerate(zip(inp.fanout, vals)):
                if f:
                    nums.append(f)
                    dens.append(_combine(el, a2, nid, i, v))
        for out, vals in zip(spec.outputs, public[len(pub_inputs) :]):
            nid = spec.node_id(out.node)
            for src, v in zip(out.src_indices, vals):
                if src >= 0:
                    nums.append(P - 1)
                    dens.append(_combine(el, a2, nid, src, v))
        total = QZERO
        try:
            invs = q_batch_inverse(dens)
        except ZeroDivisionError:
            raise StatementError("degenerate LogUp challenge for the public terms") from None
        for n, d in zip(nums, invs):
            total = q_add(total, q_mul_m31(d, n))
        return total

    n_ops = sum(1 for p in plans for _ in p.nodes)
    title = f"{spec.title} " if spec.title else ""
    desc = f"{title}graph of {len(spec.nodes)} nodes ({n_ops} proven), {len(air.components)} AIR components"
    return Statement(air, statement_bytes(settings.digest, public), public_sum, outputs, inputs, desc)
