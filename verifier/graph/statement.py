"""From a graph settings file and the proof's public values to the AIR the verifier checks, the
public LogUp terms it computes itself, and the decoded outputs it reports."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from operator import mul
from typing import TYPE_CHECKING

from ..air.framework import Air, AirDefinitionError, PreprocessedColumn, PreprocessedTree, RelationElements
from ..errors import FormatError, StatementError
from ..fields import QM31, QONE, QZERO, P, q_add, q_inv, q_mul, q_sub
from ..numeric import VALUE_MAX, VALUE_MIN, from_field
from .components import (
    COMPONENT_ORDER,
    DATA,
    KNOWN,
    WEIGHTS,
    RANGE16_MIN_LOG,
    FunctionTableComponent,
    RangeTableComponent,
    make_component,
)
from .spec import CONTRACT, GROUPED, GraphSpec, is_identity_map
from .tables import TABLE_ORDER, table_columns, table_log_size
from .training import is_training, raw_values, training_statement
from .topology import (
    KNOWN_LANES,
    ColumnPattern,
    direct_weight_rows,
    MAX_SPARSE_ENTRIES,
    rowless_constants,
    known_topology,
    layout_segments,
    node_bases,
    op_topology,
    reduce_groups,
    topology_cost,
    value_topology,
)

from .mat_plans import mat_component_plans
from .plan import ComponentPlan, log_size_of

if TYPE_CHECKING:  # statement.py imports this module
    from ..statement import Settings, Statement

def node_kind(spec: GraphSpec, index: int) -> str:
    """The component a node's rows go to."""
    node = spec.nodes[index]
    if node.op == "Constant" and index in rowless_constants(spec):
        return "Direct"  # no rows: its readers take the weights from the verifier's own terms
    if index in spec.matmuls():
        return "MatMul"  # a MatIn of its own and a share of a MatOut (graph/matmul.py)
    if index in spec.pairs():
        return "MatPair"  # a MatPair of its own and a share of a MatOut
    if node.op == "Constant" or (node.op == "Input" and not node.private):
        return "Known"
    if node.op == "Input":
        return "PrivateInput"
    if node.op in CONTRACT:
        direct = "W" if index in spec.direct_weights() else ""
        chunked = ("C" if (index, 0) in spec.chunked() else "") + ("D" if (index, 1) in spec.chunked() else "")
        return f"{node.op}{direct}{spec.lanes(index)}{'B' if len(node.srcs) == 3 else ''}{chunked}"
    return node.op


def rows_of(spec: GraphSpec, index: int) -> int:
    """Trace rows a node occupies in its component."""
    if node_kind(spec, index) == "Known":
        return -(-spec.nodes[index].numel // KNOWN_LANES)
    return spec.rows_of(index)


# A component's rows are padded to a power of two. A kind whose rows would waste more padding than
# this is split into several components (instances), so large models do not pay up to 2x.
SPLIT_MIN_WASTE = 1 << 16
SPLIT_MIN_PART = 1 << 14


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
    padded, i = 0, 0
    for n in parts:
        padded += 1 << log_size_of(sum(rows[i : i + n]))
        i += n
    return parts if (1 << log_size_of(total)) - padded >= SPLIT_MIN_WASTE else [len(rows)]


# Kinds that share one component when a graph has all of them (a selector column tells the rows
# apart): each component's columns are opened at every query, and these are small and alike
MERGED_KINDS = {"RecipSqrt": ("Recip", "Sqrt"), "ExpErf": ("Exp", "Erf"), "SumMaxReduce": ("SumReduce", "MaxReduce")}


def merge_kinds(by_kind: dict[str, list[int]]) -> dict[str, list[int]]:
    """`by_kind` (kind -> nodes) with the kinds of MERGED_KINDS joined where all are present."""
    out = dict(by_kind)
    for merged, parts in MERGED_KINDS.items():
        if all(p in out for p in parts):
            out[merged] = sorted(i for p in parts for i in out.pop(p))
    return out


def plan_components(spec: GraphSpec) -> list[ComponentPlan]:
    """Which nodes each component holds, in the fixed component order (a kind split into instances
    "<name>", "<name>.1", ... when padding would waste much: split_parts), with every topology
    column derived from the graph (prover and verifier)."""
    by_kind: dict[str, list[int]] = {}
    for i in range(len(spec.nodes)):
        by_kind.setdefault(node_kind(spec, i), []).append(i)
    by_kind = merge_kinds(by_kind)
    plans = []
    n_sparse = 0
    for kind in COMPONENT_ORDER:
        all_nodes = by_kind.get(kind)
        if not all_nodes:
            continue
        start = 0
        for part, count in enumerate(split_parts([rows_of(spec, i) for i in all_nodes])):
            nodes = all_nodes[start : start + count]
            start += count
            plan, n_sparse = _plan(spec, kind, nodes, part, n_sparse)
            plans.append(plan)
    for plan in mat_component_plans(spec, sorted(by_kind.get("MatMul", []) + by_kind.get("MatPair", []))):
        n_sparse += sum(len(col) for col in plan.component.sparse_columns.values())
        plans.append(plan)
        if n_sparse > MAX_SPARSE_ENTRIES:
            raise FormatError(
                f"settings.bin: the graph's topology needs more than {MAX_SPARSE_ENTRIES} boundary rows "
                f"(at the matrix product nodes {plan.nodes}), above the verifier's work budget"
            )
    if max((p.component.log_size for p in plans), default=0) >= RANGE16_MIN_LOG:
        for plan in plans:
            plan.component.use_limbs(16)
    return plans


def range_tables(components: list) -> set[str]:
    """The range tables (range8, range16) the components' lookups need."""
    return set().union(*(c.range_tables() for c in components))


def _plan(spec: GraphSpec, kind: str, nodes: list[int], part: int, n_sparse: int) -> tuple[ComponentPlan, int]:
    """One component instance holding `nodes`, and the boundary rows counted so far."""
    segs = layout_segments(spec, nodes, lambda i: rows_of(spec, i))
    rows = sum(seg.rows for seg in segs)
    op = spec.nodes[nodes[0]].op
    if kind in ("Known", "PrivateInput"):
        n_sparse += 4 * len(segs)
    else:
        n_sparse += topology_cost(spec, segs, min(2, len(spec.nodes[nodes[0]].srcs)), op in GROUPED)
        n_sparse += 2 * len(segs) if kind in MERGED_KINDS else 0  # the selector's boundaries
    if n_sparse > MAX_SPARSE_ENTRIES:
        raise FormatError(
            f"settings.bin: the graph's topology needs more than {MAX_SPARSE_ENTRIES} boundary rows "
            f"(at the {kind} nodes), above the verifier's work budget"
        )
    comp = make_component(kind, log_size_of(rows), spec.scale_bits)
    if part:
        comp.name = f"{comp.name}.{part}"
    n_rows = 1 << comp.log_size
    if kind == "Known":
        patterns = known_topology(spec, segs, n_rows)
    elif kind == "PrivateInput":
        patterns = value_topology(spec, segs, n_rows)
    else:
        patterns = op_topology(spec, segs, n_rows, comp.n_inputs, op in GROUPED, op in CONTRACT)
    if kind in MERGED_KINDS:  # q: 1 on the rows of the second kind's nodes
        patterns["q"] = ColumnPattern("step", n_rows)
        for seg in segs:
            if spec.nodes[seg.node].op == MERGED_KINDS[kind][1]:
                patterns["q"].add(seg.start, seg.rows, lambda _l: 1, [0])
    kinds = comp.topology_kinds()
    for col, pattern in patterns.items():
        if col in kinds:
            comp.sparse_columns[f"d.{col}"], comp.anchors[col] = pattern.sparse()
    if op in GROUPED:
        comp.sparse_columns["first"], comp.sparse_columns["last"] = reduce_groups(spec, segs, n_rows)
    return ComponentPlan(kind, nodes, rows, comp, segs), n_sparse


def build_graph_air(spec: GraphSpec, log_blowup: int) -> tuple[Air, list[ComponentPlan]]:
    """The AIR a graph is proven with, and its component plans (made once per spec and blowup: the
    prover proves many times against one settings.bin; nothing downstream changes them)."""
    cache = spec.__dict__.setdefault("_air", {})
    if log_blowup not in cache:
        cache[log_blowup] = _build_graph_air(spec, log_blowup)
    return cache[log_blowup]


def _build_graph_air(spec: GraphSpec, log_blowup: int) -> tuple[Air, list[ComponentPlan]]:
    plans = plan_components(spec)
    if not any(p.kind not in ("Known", "PrivateInput") for p in plans):
        raise FormatError("settings.bin: the graph has no computation to prove")
    components: list = [p.component for p in plans]
    # the range tables' values are topology columns: listed with the plans'
    components += [RangeTableComponent(bits) for bits in (8, 16) if f"range{bits}" in range_tables(components)]
    topology = [
        PreprocessedColumn(f"{c.name}.{col}", c.log_size) for c in components for col in c.topology_columns()
    ]
    trees = [PreprocessedTree("topology", topology, from_proof=True)]
    needed = {t for c in components for t in c.tables}
    for table in TABLE_ORDER:
        if table not in needed:
            continue
        log = table_log_size(table, spec.scale_bits)
        components.append(FunctionTableComponent(table, log))
        cols = [PreprocessedColumn(f"table.{table}.in", log), PreprocessedColumn(f"table.{table}.out", log)]
        values = partial(table_columns, table, spec.scale_bits)
        trees.append(PreprocessedTree(f"table.{table}", cols, from_proof=True, known_values=values))
    return Air(components, trees), plans


class _Combiner:
    """sum_j alpha^j v_j - z for tuples of M31 values, one coordinate at a time with the powers of
    alpha computed once (a hot loop: one call per 8 weights and per output element)."""

    # The four coordinates ride in one integer, 80 bits apart: each coordinate's sum of products
    # stays below 2^80 for any arity up to 2^18 (values and powers below 2^31), so one pass of
    # big-integer multiply-adds computes all four exactly.
    SHIFT = 80
    MASK = (1 << SHIFT) - 1

    def __init__(self, el: RelationElements, arity: int) -> None:
        powers = el.powers(arity)
        self.packed = [a | (b << self.SHIFT) | (c << 2 * self.SHIFT) | (d << 3 * self.SHIFT) for a, b, c, d in powers]
        self.z = el.z

    def __call__(self, values: list[int]) -> QM31:
        t = sum(map(mul, values, self.packed))
        m, s = self.MASK, self.SHIFT
        return q_sub(((t & m) % P, ((t >> s) & m) % P, ((t >> 2 * s) & m) % P, (t >> 3 * s) % P), self.z)


def _decode(vals: Sequence[int], what: str, scale: int) -> list[float]:
    out = []
    for i, v in enumerate(vals):
        raw = from_field(v)
        if not VALUE_MIN <= raw <= VALUE_MAX:
            raise StatementError(f"{what} element {i}: {raw} is outside the 16-bit value range")
        out.append(raw / (1 << scale))
    return out


def public_term_count(spec: GraphSpec, plans: list[ComponentPlan]) -> int:
    """The LogUp fractions the verifier adds itself: one per known or direct-weight row and one per
    output element."""
    n = sum(seg.rows for p in plans if p.kind == "Known" or p.kind.startswith("DotW") for seg in p.segments)
    return n + sum(len(out.src_indices) for out in spec.outputs)


def graph_statement(settings: "Settings", public: Sequence[Sequence[int]]) -> "Statement":
    """The AIR, statement bytes, public LogUp terms and decoded public values of a graph proof."""
    from ..statement import Statement, statement_bytes

    spec: GraphSpec = settings.body
    if spec.is_template:
        raise StatementError("a graph with symbolic dimensions is proven for symbol values (bind_symbols first)")
    all_public = public
    if spec.bound:  # the symbols' values lead the public tensors (statement.bind_symbols checked them)
        public = public[1:]
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
        src_node = spec.nodes[out.node]
        identity = is_identity_map(spec, out)
        outputs[out.name] = {
            "shape": list(out.shape),
            "values": _decode(vals, f"output {out.name!r}", spec.scale_bits),
            "source": {"node": out.node, "op": src_node.op, "name": src_node.name},
            "index_map": "identity" if identity else list(out.src_indices),
        }
    # a training step (train/ names): roles, recomputed rounding noise and weights digests
    training = None if not is_training(spec) else training_statement(  # (raw values only for a step)
        spec,
        {inp.name: raw_values(vals) for inp, vals in zip(pub_inputs, public)},
        {out.name: raw_values(vals) for out, vals in zip(spec.outputs, public[len(pub_inputs):])},
    )
    # a Freivalds-checked product whose weights are a public input computes its periodic columns from
    # this proof's values (the AIR is built once per settings.bin; its shape never depends on them)
    spec.__dict__["_public_values"] = {inp.node: vals for inp, vals in zip(pub_inputs, public)}
    try:
        air, plans = build_graph_air(spec, settings.config.log_blowup)
    except AirDefinitionError as e:
        raise FormatError(f"settings.bin: the graph cannot be proven as described: {e}") from None
    bases = node_bases(spec)
    public_of = {inp.node: vals for inp, vals in zip(pub_inputs, public)}

    def public_sum(elements: dict[str, RelationElements]) -> QM31:
        """+1 for every known row (weights from settings.bin, public inputs from proof.bin), -1 for
        every public output element: the terms the trace's LogUp sums must cancel."""
        # The terms are summed as one fraction num / den (two products a term, one inversion at
        # the end), cheaper than inverting every denominator.
        num, den = QZERO, QONE
        known = elements.get(KNOWN)
        if known is not None:
            combine_known = _Combiner(known, 1 + KNOWN_LANES)
            for plan in plans:
                if plan.kind != "Known":
                    continue
                for seg in plan.segments:
                    node = spec.nodes[seg.node]
                    vals = node.values if node.op == "Constant" else public_of[seg.node]
                    assert vals is not None
                    for t in range(seg.rows):
                        chunk = [v % P for v in vals[KNOWN_LANES * t : KNOWN_LANES * (t + 1)]]
                        chunk += [0] * (KNOWN_LANES - len(chunk))
                        d = combine_known([bases[seg.node] + KNOWN_LANES * t, *chunk])
                        num = q_add(q_mul(num, d), den)  # + 1 / d
                        den = q_mul(den, d)
        weights = elements.get(WEIGHTS)
        if weights is not None:
            for plan in plans:
                if not plan.kind.startswith("DotW"):
                    continue
                combine_w = _Combiner(weights, 1 + spec.lanes(plan.nodes[0]))
                for seg in plan.segments:
                    for addr, vals in direct_weight_rows(spec, seg.node, seg.rows, bases):
                        d = combine_w([addr, *vals])
                        num = q_add(q_mul(num, d), den)  # + 1 / d
                        den = q_mul(den, d)
        data = elements.get(DATA)
        if data is not None:
            combine_data = _Combiner(data, 2)
            for out, vals in zip(spec.outputs, public[len(pub_inputs) :]):
                base = bases[out.node]
                for src, v in zip(out.src_indices, vals):
                    if src >= 0:
                        d = combine_data([base + src, v])
                        num = q_sub(q_mul(num, d), den)  # - 1 / d
                        den = q_mul(den, d)
        if den == QZERO:
            raise StatementError("degenerate LogUp challenge for the public terms")
        return q_mul(num, q_inv(den))

    n_ops = sum(len(p.nodes) for p in plans if p.kind not in ("Known", "PrivateInput"))
    desc = f"graph of {len(spec.nodes)} nodes ({n_ops} proven ops), {len(air.components)} AIR components"
    if spec.bound:
        desc += " at " + ", ".join(f"{k}={v}" for k, v in spec.bound.items())
    n_terms = public_term_count(spec, plans)
    if training is not None:
        desc = f"training step {training['step']} ({desc})"
    return Statement(air, statement_bytes(settings.digest, all_public), public_sum, outputs, inputs, desc, n_terms,
                     training)
