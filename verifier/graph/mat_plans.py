"""The components of the Freivalds-checked matrix products (graph/matmul.py): MatIn and MatOut for
known weights, MatPair and MatOut for two computed operands, with their topology derived from the
graph like every other component's, and the bound on their boundary rows for the work budget."""

from __future__ import annotations

from typing import Any

from ..errors import StatementError
from ..fields import QM31
from ..numeric import from_field
from .plan import ComponentPlan, log_size_of, set_topology
from .spec import GraphSpec
from .topology import ColumnPattern, Segment, layout_segments, node_bases, view_columns, view_cost


def mat_topology_cost(spec: GraphSpec, index: int) -> int:
    """An upper bound on the boundary rows mat_component_plans derives for a Freivalds-checked
    product, from its shapes alone (budget.graph_work; plan_components checks the real count); 8 of
    them for where its rows meet another node's in the MatOut they share."""
    if index in spec.pairs():
        pp = spec.pairs()[index]
        cost = 16 + view_cost(pp.a_view, pp.pair_rows) + view_cost(pp.b_view, pp.pair_rows)
        cost += 3 * (_padded_rows(pp.pair_rows) // pp.groups_rows) + pp.k + 4  # first, last, kstart
        mp = pp
    else:
        mp = spec.matmuls()[index]
        cost = 16 + view_cost(mp.a_view, mp.in_rows) + (_padded_rows(mp.in_rows) >> mp.period_log)  # first
    cost += view_cost(mp.out_view, mp.out_rows) + mp.m + 2 + 8
    if mp.bias is not None:
        cost += view_cost(mp.bias, mp.out_rows)
    return cost


def _padded_rows(rows: int) -> int:
    return 1 << log_size_of(rows)


def mat_component_plans(spec: GraphSpec, indices: list[int]) -> list[ComponentPlan]:
    """The components of the checked products `indices` (graph order): a MatIn or MatPair per node,
    then the MatOut instances their outputs share, one per variant (bias, public weights), split
    like the op kinds when padding would waste much (statement.split_parts)."""
    from .components import MatOutComponent
    from .statement import split_parts

    variants: dict[tuple[bool, bool], list[int]] = {}
    for i in indices:
        mp = spec.matmuls().get(i) or spec.pairs()[i]
        variants.setdefault((mp.bias is not None, mp.w_public), []).append(i)
    share: dict[int, tuple[str, int]] = {}  # node -> (its MatOut's tag, the groups before its own)
    outs = []
    for (bias, split_w), nodes in sorted(variants.items()):
        done = 0
        for part, count in enumerate(split_parts([_product(spec, i).out_rows for i in nodes[done:]])):
            members, done = nodes[done : done + count], done + count
            tag = MatOutComponent.tag(bias, split_w, part)
            groups = 0
            for i in members:
                share[i] = (tag, groups)
                groups += _product(spec, i).out_rows // _product(spec, i).n
            outs.append(_mat_out_plan(spec, members, tag, bias, split_w))
    operands = [plan for i in indices for plan in (_mat_in_plan if i in spec.matmuls() else _pair_plan)(spec, i, *share[i])]
    return operands + outs


def _product(spec: GraphSpec, index: int) -> Any:
    return spec.matmuls().get(index) or spec.pairs()[index]


def _mat_in_plan(spec: GraphSpec, index: int, tag: str, offset: int) -> list[ComponentPlan]:
    """The MatIn component of one Freivalds-checked product (graph/matmul.py), with its topology
    derived from the graph like every other component's."""
    from .components import MatInComponent, mat_challenges
    from .matmul import weight_rows, weight_vector

    mp = spec.matmuls()[index]
    node = spec.nodes[index]
    bases = node_bases(spec)
    period = 1 << mp.period_log
    w_node = node.srcs[1 - mp.a_input][0]
    names = mat_challenges(tag, mp.w_public)
    rows_of_w: list[list[list[int]]] = []

    def weights(challenges: dict[str, QM31]) -> dict[str, tuple[int, list[QM31]]]:
        if mp.w_public:  # the proof's public values, bound by graph_statement
            public = spec.__dict__.get("_public_values", {}).get(w_node)
            if public is None:
                raise StatementError(f"node {index}: its weights are a public input with no values bound")
            w = weight_rows(spec, mp, [from_field(v) for v in public])
            v = weight_vector(w, mp.n, challenges[names[1]], challenges[names[3]])
        else:
            if not rows_of_w:
                rows_of_w.append(weight_rows(spec, mp, spec.nodes[w_node].values or []))
            v = weight_vector(rows_of_w[0], mp.n, challenges[names[1]])
        pad = [(0, 0, 0, 0)] * ((1 << mp.period_log) - mp.k // mp.lanes)  # rows that read nothing
        return {f"v{j}": (mp.period_log, v[j :: mp.lanes] + pad) for j in range(mp.lanes)}

    comp_in = MatInComponent(log_size_of(mp.in_rows), spec.scale_bits, mp.lanes, index, weights, mp.w_public,
                             tag, offset)
    n_in = 1 << comp_in.log_size
    a_base = bases[node.srcs[mp.a_input][0]]
    rows = mp.in_rows
    pats = {"is_real": ColumnPattern("step", n_in), "in0_step": ColumnPattern("step", n_in)}
    pats["is_real"].add(0, rows, lambda _l: 1, [0])
    pats["in0_step"].add(0, rows, lambda _l, st=mp.a_step: st, [0])
    pats["in0_addr"], pats["in0_real"] = view_columns(mp.a_view, a_base, rows, n_in)
    set_topology(comp_in, pats)
    comp_in.sparse_columns["first"] = {r: 1 for r in range(0, n_in, period)}
    return [ComponentPlan("MatIn", [index], rows, comp_in, [Segment(index, 0, rows)])]


def _mat_out_plan(spec: GraphSpec, indices: list[int], tag: str, bias: bool, split_w: bool) -> ComponentPlan:
    """MatOut: one row per output element of each checked product (MatPlan or PairPlan), the nodes'
    rows one after another."""
    from .components import MatOutComponent

    bases = node_bases(spec)
    segs = layout_segments(spec, indices, lambda i: _product(spec, i).out_rows)
    total = sum(seg.rows for seg in segs)
    comp_out = MatOutComponent(log_size_of(total), spec.scale_bits, tag, bias, split_w)
    n_out = 1 << comp_out.log_size
    pats = {"is_real": ColumnPattern("step", n_out), "addr": ColumnPattern("affine", n_out)}
    if bias:
        pats["in0_addr"], pats["in0_real"] = ColumnPattern("affine", n_out), ColumnPattern("step", n_out)
    first: dict[int, int] = {}
    for seg in segs:
        mp = _product(spec, seg.node)
        pats["is_real"].add(seg.start, seg.rows, lambda _l: 1, [0])
        view_columns(mp.out_view, bases[seg.node], seg.rows, n_out, seg.start, pats["addr"])
        if bias:
            src = spec.nodes[seg.node].srcs[2][0]
            view_columns(mp.bias, bases[src], seg.rows, n_out, seg.start, pats["in0_addr"], pats["in0_real"])
        first.update((r, 1) for r in range(seg.start, seg.start + seg.rows, mp.n))
    set_topology(comp_out, pats)
    if total < n_out:
        first[total] = 1  # the padding rows: one more group
    comp_out.sparse_columns["first"] = first
    return ComponentPlan("MatOut", list(indices), total, comp_out, segs)


def _pair_plan(spec: GraphSpec, index: int, tag: str, offset: int) -> list[ComponentPlan]:
    """The MatPair component of a Freivalds-checked product of two computed operands."""
    from .components import MatPairComponent

    pp = spec.pairs()[index]
    node = spec.nodes[index]
    bases = node_bases(spec)
    comp = MatPairComponent(log_size_of(pp.pair_rows), spec.scale_bits, pp.la, pp.lb, index, tag, offset)
    n_rows = 1 << comp.log_size
    rows = pp.pair_rows
    pats = {"is_real": ColumnPattern("step", n_rows)}
    pats["is_real"].add(0, rows, lambda _l: 1, [0])
    for k, (view, step) in enumerate(((pp.a_view, pp.a_step), (pp.b_view, pp.b_step))):
        pats[f"in{k}_step"] = ColumnPattern("step", n_rows)
        pats[f"in{k}_step"].add(0, rows, lambda _l, st=step: st, [0])
        pats[f"in{k}_addr"], pats[f"in{k}_real"] = view_columns(view, bases[node.srcs[k][0]], rows, n_rows)
    set_topology(comp, pats)
    group, kgroup = pp.groups_rows, pp.groups_rows * pp.bn
    comp.sparse_columns["first"] = {r: 1 for r in range(0, n_rows, group)}
    kstart = {r: 1 for r in range(0, rows, kgroup)}
    if rows < n_rows:
        kstart[rows] = 1  # the padding rows: one more run
    comp.sparse_columns["kstart"] = kstart
    comp.sparse_columns["last"] = {r: 1 for r in range(group - 1, rows, group)}
    return [ComponentPlan("MatPair", [index], rows, comp, [Segment(index, 0, rows)])]
