"""From a graph settings file and the proof's public values to the AIR the verifier checks, the
public LogUp terms it computes itself, and the decoded outputs it reports."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from operator import mul
from typing import TYPE_CHECKING

from ..air.framework import Air, AirDefinitionError, PreprocessedColumn, PreprocessedTree, RelationElements
from ..claim import Statement, statement_bytes
from ..errors import FormatError, StatementError
from ..fields import QM31, QONE, QZERO, P, q_add, q_inv, q_mul, q_sub
from ..numeric import VALUE_MAX, VALUE_MIN, from_field
from .components import DATA, KNOWN, WEIGHTS, BoundaryInputComponent, BoundaryOutputComponent, CommittedComponent, GraphComponent, CommittedInputComponent, CommittedOutputComponent, FunctionTableComponent, MatWComponent, RangeTableComponent, make_component
from .mat_plans import MAT_BUILDERS
from .plan import MERGED_KINDS, ComponentPlan, Instance
from .planner import KNOWN_KINDS, GraphPlan, plan_graph
from .spec import CONTRACT, GROUPED, GraphSpec, gather_rows, is_identity_map
from .tables import TABLE_ORDER, table_columns, table_log_size
from .training import is_training, raw_values, training_statement
from .topology import (
    KNOWN_LANES, MAX_SPARSE_ENTRIES, ColumnPattern, Segment, direct_weight_rows, layout_segments, node_bases, op_topology,
    power_pattern, reduce_groups, value_topology,
)

if TYPE_CHECKING:  # (verifier/statement.py builds statements through this module)
    from ..statement import Settings


INPUT_KINDS = ("PrivateInput", "PrivateIndex", "Committed", "CommittedInput", "CommittedOutput", "BoundaryInput", "BoundaryOutput")  # values the prover commits (no op)
MODEL_TREE, INPUT_TREE, OUTPUT_TREE = "model", "input", "output"


def build_components(plan: GraphPlan) -> list[ComponentPlan]:
    """Every planned instance as a component, its topology derived from the graph (prover and
    verifier), its range checks in the plan's limb width. Refused before any of that work if the
    boundary rows' bound passes MAX_SPARSE_ENTRIES (what the work budget charges for, first)."""
    n_sparse = 0
    for inst in plan.instances:
        n_sparse += inst.boundary_bound
        if n_sparse > MAX_SPARSE_ENTRIES:
            where = f"the {inst.kind} nodes" if inst.kind not in MAT_BUILDERS else f"the matrix product nodes {list(inst.nodes)}"
            raise FormatError(
                f"settings.bin: the graph's topology needs more than {MAX_SPARSE_ENTRIES} boundary rows "
                f"(at {where}), above the verifier's work budget"
            )
    plans = [MAT_BUILDERS[inst.kind](plan, inst) if inst.kind in MAT_BUILDERS else
             _build_outputs(plan, inst) if inst.kind in ("CommittedOutput", "BoundaryOutput") else _build_op(plan, inst)
             for inst in plan.instances]
    if plan.limb_bits != 8:
        for p in plans:
            p.component.use_limbs(plan.limb_bits)
    return plans


def range_tables(components: list) -> set[str]:
    """The range tables (range8, range16, a committed value's range<b>) the components' lookups need."""
    return set().union(*(c.range_tables() for c in components))


def _build_outputs(plan: GraphPlan, inst: Instance) -> ComponentPlan:
    """The committed outputs' component: element i of each committed output on its own row, its
    address the node element it reads (index map; -1: padding, not real)."""
    spec = plan.spec
    outs = [out for out in spec.outputs if out.committed]
    comp = (BoundaryOutputComponent(inst.log_size, len(outs)) if inst.kind == "BoundaryOutput" else
            CommittedOutputComponent(inst.log_size, 0))
    n_rows = 1 << comp.log_size
    bases = node_bases(spec)
    pats = {"addr": ColumnPattern("affine", n_rows), "is_real": ColumnPattern("step", n_rows)}
    segs, start = [], 0
    for out in spec.outputs:
        if not out.committed:
            continue
        src, base = out.src_indices, bases[out.node]
        if isinstance(src, range) and src.start >= 0 and src.step >= 0:  # (a boundary tensor: affine, all real)
            pats["addr"].add(start, len(src), lambda l, a=base + src.start, b=src.step: a + b * l, [0])
            pats["is_real"].add(start, len(src), lambda l: 1, [0])
        else:
            pats["addr"].add(start, len(src), lambda l, src=src, base=base: base + src[l] if src[l] >= 0 else 0,
                             range(len(src)))
            pats["is_real"].add(start, len(src), lambda l, src=src: int(src[l] >= 0), range(len(src)))
        segs.append(Segment(out.node, start, len(src)))
        start += len(src)
    comp.set_topology(pats)
    if inst.kind == "BoundaryOutput":
        comp.sparse_columns["first"] = {seg.start: 1 for seg in segs}
    return ComponentPlan(inst.kind, list(inst.nodes), inst.rows, comp, segs, inst)


def _build_op(plan: GraphPlan, inst: Instance) -> ComponentPlan:
    """One op component instance: its nodes' rows one after another, then padding."""
    spec, kind = plan.spec, inst.kind
    nodes = list(inst.nodes)
    segs = layout_segments(nodes, plan.rows_of)
    op = spec.nodes[nodes[0]].op
    comp: GraphComponent
    if kind == "BoundaryInput":  # (its fingerprints' challenge is named after it)
        comp = BoundaryInputComponent(inst.log_size, len(segs), inst.name)
        comp.sparse_columns["first"] = {seg.start: 1 for seg in segs}
    else:
        comp = make_component(kind, inst.log_size, inst.constant)
        comp.name = inst.name
    if inst.variable:
        comp.vary()
    n_rows = 1 << comp.log_size
    if kind in KNOWN_KINDS:
        patterns = value_topology(spec, segs, n_rows, KNOWN_LANES)
    elif kind in INPUT_KINDS:
        patterns = value_topology(spec, segs, n_rows)
    else:
        patterns = op_topology(spec, segs, n_rows, comp.n_inputs, op in GROUPED, plan.lanes, op in CONTRACT)
    if kind == "Gather":  # each node's table width and last row index
        patterns["width"], patterns["top"] = ColumnPattern("step", n_rows), ColumnPattern("step", n_rows)
        for seg in segs:
            v, d = spec.nodes[spec.nodes[seg.node].srcs[0][0]].shape
            patterns["width"].add(seg.start, seg.rows, lambda _l, d=d: d, [0])
            patterns["top"].add(seg.start, seg.rows, lambda _l, v=v: v - 1, [0])
    if kind in MERGED_KINDS:  # q: 1 on the rows of the second kind's nodes
        patterns["q"] = ColumnPattern("step", n_rows)
        for seg in segs:
            if spec.nodes[seg.node].op == MERGED_KINDS[kind][1]:
                patterns["q"].add(seg.start, seg.rows, lambda _l: 1, [0])
    if inst.variable:
        patterns["pow"] = power_pattern(spec, segs, n_rows, inst.constant)
    comp.set_topology(patterns)
    if op in GROUPED:
        comp.sparse_columns["first"], comp.sparse_columns["last"] = reduce_groups(spec, segs, n_rows, plan.lanes)
    return ComponentPlan(kind, nodes, inst.rows, comp, segs, inst)


def build_graph_air(spec: GraphSpec, log_blowup: int) -> tuple[Air, list[ComponentPlan]]:
    """The AIR a graph is proven with, and its component plans (made once per spec and blowup: the
    prover proves many times against one settings.bin; nothing downstream changes them)."""
    cache = spec.__dict__.setdefault("_air", {})
    if log_blowup not in cache:
        cache[log_blowup] = _build_graph_air(plan_graph(spec))
    return cache[log_blowup]


def _build_graph_air(plan: GraphPlan) -> tuple[Air, list[ComponentPlan]]:
    spec = plan.spec
    if not any(inst.kind not in (*KNOWN_KINDS, *INPUT_KINDS) for inst in plan.instances):
        raise FormatError("settings.bin: the graph has no computation to prove")
    plans = build_components(plan)
    components: list = [p.component for p in plans]
    # the range tables' values are topology columns: listed with the plans'
    components += [RangeTableComponent(bits) for bits in sorted(int(t[len("range"):]) for t in range_tables(components))]
    topology = [
        PreprocessedColumn(f"{c.name}.{col}", c.log_size) for c in components for col in c.topology_columns()
    ]
    trees = [PreprocessedTree("topology", topology)]
    needed = {t for c in components for t in c.tables}
    for table in TABLE_ORDER:
        if table not in needed:
            continue
        log = table_log_size(table, spec.scale_bits)
        components.append(FunctionTableComponent(table, log))
        cols = [PreprocessedColumn(f"table.{table}.in", log), PreprocessedColumn(f"table.{table}.out", log)]
        values = partial(table_columns, table, spec.scale_bits)
        trees.append(PreprocessedTree(f"table.{table}", cols, known_values=values))
    model = [PreprocessedColumn(f"{c.name}.v", c.log_size) for c in components if type(c) is CommittedComponent]
    model += [PreprocessedColumn(key, c.log_size) for c in components if isinstance(c, MatWComponent) for key in c.model_columns()]
    if model:  # committed weights: the model tree, settings.bin's root (docs/committed-models.md), opened first
        trees.append(PreprocessedTree(MODEL_TREE, model, statement=True, root=spec.model_root))
    inputs = [PreprocessedColumn(f"{c.name}.v", c.log_size) for c in components if isinstance(c, CommittedInputComponent)]
    if inputs:  # committed inputs: the input tree, its root each proof's (the input digest)
        trees.append(PreprocessedTree(INPUT_TREE, inputs, statement=True, proof_root=True))
    outputs = [PreprocessedColumn(f"{c.name}.v", c.log_size) for c in components if isinstance(c, CommittedOutputComponent)]
    if outputs:  # committed outputs: the output tree, likewise (the output digest)
        trees.append(PreprocessedTree(OUTPUT_TREE, outputs, statement=True, proof_root=True))
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


def _indices(rows: int, vals: Sequence[int], name: str) -> list[int]:
    """An index input's integers, each a row of every table a Gather reads at it (`rows`: the fewest)."""
    out = [from_field(v) for v in vals]
    for i, v in enumerate(out):
        if not 0 <= v < rows:
            raise StatementError(f"input {name!r} element {i}: index {v} is outside the table ({rows} rows)")
    return out


def known_values(spec: GraphSpec, node: int, public_of: dict[int, Sequence[int]]) -> Sequence[int]:
    """The values of a known node: a constant's from settings.bin, a public input's from proof.bin,
    a Gather's rows of its table at its index input (checked by _indices)."""
    n = spec.nodes[node]
    if n.op == "Constant":
        assert n.values is not None
        return n.values
    if n.op == "Gather":
        (table, shape, _), (ids, _, _) = n.srcs
        return gather_rows(known_values(spec, table, public_of), shape[1], [from_field(v) for v in public_of[ids]])
    return public_of[node]


def graph_statement(settings: "Settings", public: Sequence[Sequence[int]], vectors: Sequence[Sequence[QM31]] = ()) -> Statement:
    """The AIR, statement bytes, public LogUp terms and decoded public values of a graph proof."""
    spec: GraphSpec = settings.body
    if spec.is_template:
        raise StatementError("a graph with symbolic dimensions is proven for symbol values (bind_symbols first)")
    all_public = public
    if spec.bound:  # the symbols' values lead the public tensors (statement.bind_symbols checked them)
        public = public[1:]
    pub_inputs = [inp for inp in spec.inputs if not spec.nodes[inp.node].private]
    pub_outputs = [out for out in spec.outputs if not out.committed]
    expected = len(pub_inputs) + len(pub_outputs)
    if len(public) != expected:
        raise StatementError(f"the proof carries {len(public)} public tensors, the model has {expected}")
    inputs, outputs = {}, {}
    # the fewest rows of the tables read at each index input, in one pass (largest tables first: the last wins)
    gathers = sorted((g for g in spec.nodes if g.op == "Gather"), key=lambda g: -spec.nodes[g.srcs[0][0]].shape[0])
    rows = {g.srcs[1][0]: spec.nodes[g.srcs[0][0]].shape[0] for g in gathers}
    for inp, vals in zip(pub_inputs, public):
        node = spec.nodes[inp.node]
        if len(vals) != node.numel:
            raise StatementError(f"public input {inp.name!r}: {len(vals)} values for shape {node.shape}")
        decoded = _indices(rows[inp.node], vals, inp.name) if node.index else _decode(vals, f"input {inp.name!r}", spec.scale_of(inp.node))
        inputs[inp.name] = {"shape": list(node.shape), "values": decoded}
    for out, vals in zip(pub_outputs, public[len(pub_inputs) :]):
        if len(vals) != len(out.src_indices):
            raise StatementError(f"output {out.name!r}: {len(vals)} values for shape {out.shape}")
        for i, (src, v) in enumerate(zip(out.src_indices, vals)):
            if src < 0 and v != 0:
                raise StatementError(f"output {out.name!r} element {i} reads padding but is not 0")
        src_node = spec.nodes[out.node]
        identity = is_identity_map(spec, out)
        outputs[out.name] = {
            "shape": list(out.shape),
            "values": _decode(vals, f"output {out.name!r}", spec.scale_of(out.node)),
            "scale_bits": spec.scale_of(out.node),
            "source": {"node": out.node, "op": src_node.op, "name": src_node.name},
            "index_map": "identity" if identity else list(out.src_indices),
        }
    # a training step (train/ names): roles, recomputed rounding noise and weights digests
    training = None if not is_training(spec) else training_statement(  # (raw values only for a step)
        spec,
        {inp.name: raw_values(vals) for inp, vals in zip(pub_inputs, public)},
        {out.name: raw_values(vals) for out, vals in zip(pub_outputs, public[len(pub_inputs):])},
    )
    # a Freivalds-checked product whose weights are a public input computes its periodic columns from
    # this proof's values (the AIR is built once per settings.bin; its shape never depends on them)
    public_of = {inp.node: vals for inp, vals in zip(pub_inputs, public)}
    graph_plan = plan_graph(spec)
    graph_plan.public_values.clear()
    graph_plan.public_values.update(public_of)
    try:
        air, plans = build_graph_air(spec, settings.config.log_blowup)
    except AirDefinitionError as e:
        raise FormatError(f"settings.bin: the graph cannot be proven as described: {e}") from None
    # the proof's v = W rho of each product of committed weights (verify.check_shape counts them)
    graph_plan.product_vectors.clear()
    mat_ws = [air.components[ci] for ci in air.vector_components]
    for c, vec in zip(mat_ws, vectors):
        if isinstance(c, MatWComponent):
            graph_plan.product_vectors.update(c.split(vec))
    bases = node_bases(spec)

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
                if plan.kind not in KNOWN_KINDS:
                    continue
                for seg in plan.segments:
                    vals = known_values(spec, seg.node, public_of)
                    for t in range(seg.rows):
                        chunk = [v % P for v in vals[KNOWN_LANES * t : KNOWN_LANES * (t + 1)]]
                        chunk += [0] * (KNOWN_LANES - len(chunk))
                        d = combine_known([bases[seg.node] + KNOWN_LANES * t, *chunk])
                        num = q_add(q_mul(num, d), den)  # + 1 / d
                        den = q_mul(den, d)
        weights = elements.get(WEIGHTS)
        if weights is not None:
            for plan in plans:
                variant = plan.instance.variant
                if variant is None or not variant.direct:
                    continue
                combine_w = _Combiner(weights, 1 + variant.lanes)
                for seg in plan.segments:
                    for addr, vals in direct_weight_rows(spec, seg.node, seg.rows, bases, variant.lanes):
                        d = combine_w([addr, *vals])
                        num = q_add(q_mul(num, d), den)  # + 1 / d
                        den = q_mul(den, d)
        data = elements.get(DATA)
        if data is not None:
            combine_data = _Combiner(data, 2)
            for out, vals in zip(pub_outputs, public[len(pub_inputs) :]):
                base = bases[out.node]
                for src, v in zip(out.src_indices, vals):
                    if src >= 0:
                        d = combine_data([base + src, v])
                        num = q_sub(q_mul(num, d), den)  # - 1 / d
                        den = q_mul(den, d)
        if den == QZERO:
            raise StatementError("degenerate LogUp challenge for the public terms")
        return q_mul(num, q_inv(den))

    n_ops = sum(len(p.nodes) for p in plans if p.kind not in (*KNOWN_KINDS, *INPUT_KINDS))
    desc = f"graph of {len(spec.nodes)} nodes ({n_ops} proven ops), {len(air.components)} AIR components"
    if spec.bound:
        desc += " at " + ", ".join(f"{k}={v}" for k, v in spec.bound.items())
    n_terms = graph_plan.public_terms()
    if training is not None:
        desc = f"training step {training['step']} ({desc})"
    return Statement(air, statement_bytes(settings.digest, all_public), public_sum, outputs, inputs, desc, n_terms,
                     training)
