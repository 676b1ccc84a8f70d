"""The components of the Freivalds-checked matrix products (graph/matmul.py): MatIn and MatOut for
known weights, MatPair and MatOut for two computed operands. The planner (graph/planner.py) groups
the products into instances with the functions here (variant_instances, operand_instances); the
builders below derive each instance's topology from the graph like every other component's."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping

from ..errors import StatementError
from ..air.framework import HEADS
from ..fields import QM31, QONE, QZERO, q_pow
from ..numeric import from_field
from .components import MatInComponent, MatOutComponent, MatPairComponent, MatWComponent, mat_challenges
from .matmul import MatPlan, PairPlan, mat_w_lanes, weight_rows, weight_vector
from .plan import ComponentPlan, Instance, chunks, component_cells, log_size_of, padded_rows, split_parts
from .spec import GraphSpec
from .topology import ColumnPattern, Segment, layout_segments, node_bases, power_pattern, view_columns, view_cost

if TYPE_CHECKING:  # (the planner groups the products with the functions here)
    from .planner import GraphPlan


def mat_topology_cost(spec: GraphSpec, mp: Any, is_pair: bool) -> int:
    """An upper bound on the boundary rows the builders derive for a Freivalds-checked product
    (a MatPlan or PairPlan), from its shapes alone (what the work budget charges); 8 of them for
    where its rows meet another node's in the MatOut they share."""
    if is_pair:
        pp = mp
        cost = 16 + view_cost(pp.a_view, pp.pair_rows) + view_cost(pp.b_view, pp.pair_rows)
        cost += 3 * (padded_rows(pp.pair_rows) // pp.groups_rows) + pp.k + 4  # first, last, kstart
    else:
        cost = 16 + view_cost(mp.a_view, mp.in_rows) + (padded_rows(mp.in_rows) >> mp.period_log)  # first
    cost += view_cost(mp.out_view, mp.out_rows) + mp.m + 2 + 8
    if mp.bias is not None:
        cost += view_cost(mp.bias, mp.out_rows)
    return cost


def mat_variant_instances(
    spec: GraphSpec, products: Mapping[int, Any], indices: list[int]
) -> list[tuple[tuple[bool, bool], list[int]]]:
    """The checked products' variants (bias, weights in limbs), some merged (_merged_variants):
    ((bias, split_w), the nodes in graph order) per MatOut variant."""
    variants: dict[tuple[bool, bool], list[int]] = {}
    for i in indices:
        mp = products[i]
        variants.setdefault((mp.bias is not None, mp.w_public), []).append(i)
    return _merged_variants(spec, products, variants)


def operand_instances(
    spec: GraphSpec, matmuls: Mapping[int, MatPlan], pairs: Mapping[int, PairPlan], indices: list[int],
    share: dict[int, tuple[str, int]],
) -> list[Instance]:
    """The MatIn and MatPair instances: the nodes of one MatOut (`share`: node -> its MatOut's tag
    and the groups before its own), one width and one row count (and period), interleaved."""
    operands: dict[tuple, list[int]] = {}
    for i in indices:
        if i in matmuls:
            mp = matmuls[i]
            key: tuple = ("MatIn", share[i][0], mp.w_public, mp.lanes)
        else:
            pp = pairs[i]
            key = ("MatPair", share[i][0], pp.la, pp.lb, log_size_of(pp.pair_rows))
        operands.setdefault(key, []).append(i)
    out = []
    for key, nodes in operands.items():
        kind, tag = key[0], key[1]
        groups = _mat_in_groups(matmuls, nodes) if kind == "MatIn" else [
            nodes[at : at + MAX_INTERLEAVED] for at in range(0, len(nodes), MAX_INTERLEAVED)]
        for group in groups:
            s = 1 << (len(group) - 1).bit_length()
            if kind == "MatIn":
                mps = [matmuls[i] for i in group]
                local_log = max(log_size_of(mp.in_rows) for mp in mps)  # every node's slot: the largest
                name = f"matin{mps[0].lanes}.n{group[0]}"
                rows, split_w = sum(mp.in_rows for mp in mps), mps[0].w_public
            else:
                pps = [pairs[i] for i in group]
                local_log = log_size_of(pps[0].pair_rows)
                name = f"matpair{pps[0].la}x{pps[0].lb}.n{group[0]}"
                rows, split_w = sum(pp.pair_rows for pp in pps), True
            name += f"+{len(group) - 1}" if len(group) > 1 else ""
            out.append(Instance(kind, name, tuple(group), rows, local_log + s.bit_length() - 1, 0, tag=tag,
                                offsets=tuple(share[i][1] for i in group), split_w=split_w))
    return out


def _mat_in_groups(matmuls: Mapping[int, MatPlan], nodes: list[int]) -> list[list[int]]:
    """The MatIn components of products with one MatOut and one lane count: nodes of one row count
    and period together (up to MAX_INTERLEAVED), then a group joins the one before it (largest
    slots first) where that saves more than COLUMN_CELLS rows (a node's slot takes the largest
    row count, the shorter ones padded; the periodic column takes the longest period, the shorter
    ones repeated) and the periodic column stays as long as the budget pays for."""

    def rows(group: list[int]) -> int:
        local = max(padded_rows(matmuls[i].in_rows) for i in group)
        return (1 << (len(group) - 1).bit_length()) * local

    def periodic_fits(group: list[int]) -> bool:
        # the verifier evaluates v over S 2^p values a lane, which the work budget pays for through
        # the nodes' K (budget.graph_work): a group stays within 4 sum K, as one of a single shape
        # does (2^p < 2 K / L, S < 2 nodes)
        mps = [matmuls[i] for i in group]
        values = (1 << (len(group) - 1).bit_length()) * (1 << max(mp.period_log for mp in mps)) * mps[0].lanes
        return values <= 4 * sum(mp.k for mp in mps)

    by_shape: dict[tuple[int, int], list[int]] = {}
    for i in nodes:
        mp = matmuls[i]
        by_shape.setdefault((log_size_of(mp.in_rows), mp.period_log), []).append(i)
    groups = [g[at : at + MAX_INTERLEAVED] for g in by_shape.values() for at in range(0, len(g), MAX_INTERLEAVED)]
    # one pass, largest slots first, each group joining the one before when that pays: linear in
    # the groups (a hostile settings.bin may hold hundreds of shapes; the verifier runs this too)
    groups.sort(key=lambda g: (-max(padded_rows(matmuls[i].in_rows) for i in g), g[0]))
    out: list[list[int]] = []
    for group in groups:
        if out:
            merged = sorted(out[-1] + group)
            gain = rows(out[-1]) + rows(group) + COLUMN_CELLS - rows(merged)
            if len(merged) <= MAX_INTERLEAVED and gain > 0 and periodic_fits(merged):
                out[-1] = merged
                continue
        out.append(group)
    return out


# A committed column costs every query its opened values (about 300 bytes at the default preset,
# as much as 2^15 cells cost in prove time, measured on the transformer): merging MatOut variants
# trades that against cells
COLUMN_CELLS = 1 << 15


def _merged_variants(
    spec: GraphSpec, products: Mapping[int, Any], variants: dict[tuple[bool, bool], list[int]]
) -> list[tuple[tuple[bool, bool], list[int]]]:
    """The MatOut instances of the variants (bias, public weights in limbs), some merged: a MatOut
    with a bias serves products without one (bias 0, read nowhere) and one with four limb sums
    serves products of whole weights (the W-high sums 0, which their MatIn's terms, free of lambda2,
    force). Of every grouping (at most four variants), the one of least cells + COLUMN_CELLS x
    columns; nodes keep graph order within an instance."""
    keys = sorted(variants)

    def merged(group: list[tuple[bool, bool]]) -> tuple[tuple[bool, bool], list[int]]:
        """The variant that serves the group's variants, and their nodes in graph order."""
        variant = (any(b for b, _ in group), any(w for _, w in group))
        return variant, sorted(i for key in group for i in variants[key])

    def cost(group: list[tuple[bool, bool]]) -> tuple[tuple[bool, bool], int]:
        variant, nodes = merged(group)
        rows = [products[i].out_rows for i in nodes]
        parts = split_parts(rows)
        padded = sum(padded_rows(sum(part)) for part in chunks(rows, parts))
        width = _mat_out_width(spec.scale_bits, *variant)
        return variant, width * (padded + COLUMN_CELLS * len(parts))

    best: tuple[int, list[list[tuple[bool, bool]]]] | None = None
    for grouping in _partitions(keys):
        made = [cost(g) for g in grouping]
        if len({v for v, _ in made}) < len(made):
            continue  # two instances of one variant: merging them is never worse
        total = sum(c for _, c in made)
        if best is None or total < best[0]:
            best = (total, grouping)
    assert best is not None
    return sorted(merged(group) for group in best[1])


def _partitions(items: list[Any]) -> list[list[list[Any]]]:
    """Every way to split `items` into non-empty groups."""
    if not items:
        return [[]]
    first, rest = items[0], items[1:]
    out = []
    for p in _partitions(rest):
        out.append([[first]] + p)
        for k in range(len(p)):
            out.append(p[:k] + [[first] + p[k]] + p[k + 1 :])
    return out


@lru_cache(maxsize=None)
def _mat_out_width(scale_bits: int, bias: bool, split_w: bool) -> int:
    """Committed columns of a MatOut row of one variant."""
    comp = MatOutComponent(4, scale_bits, "w", bias, split_w)
    empty: dict[int, int] = {}
    comp.sparse_columns = {f"d.{col}": empty for col in comp.topology_columns()} | {"first": empty}
    c = component_cells(comp)
    return c["main_columns"] + c["topology_columns"] + c["interaction_columns"]


MAX_INTERLEAVED = 32  # nodes a MatIn or MatPair component holds at most


def _interleave(comp: Any, per_node: list[dict[str, ColumnPattern]]) -> None:
    """Node i's topology patterns (over its own n_local rows) as the sparse difference columns of
    rows l S + i, with its anchors on row i (sparse a.<col>) where S > 1."""
    s = comp.stride
    for col in comp.topology_kinds():
        diffs: dict[int, int] = {}
        anchors: dict[int, int] = {}
        for i, pats in enumerate(per_node):
            d, anchor = pats[col].sparse()
            diffs.update((l * s + i, v) for l, v in d.items())
            if anchor:
                anchors[i] = anchor
        comp.sparse_columns[f"d.{col}"] = diffs
        if s == 1:
            comp.anchors[col] = anchors.get(0, 0)
        else:
            comp.sparse_columns[f"a.{col}"] = anchors
    if s > 1:
        comp.sparse_columns[HEADS] = {i: 1 for i in range(s)}


def _strided(per_node: list[dict[int, int]], s: int) -> dict[int, int]:
    return {l * s + i: v for i, rows in enumerate(per_node) for l, v in rows.items()}


def _heads(challenges: dict[str, QM31], mu: str, offsets: list[int], s: int) -> tuple[int, list[QM31]]:
    """The periodic column mu^offset (one value a node, 1 on empty slots)."""
    return s.bit_length() - 1, [q_pow(challenges[mu], o) for o in offsets] + [QONE] * (s - len(offsets))


def build_mat_in(plan: "GraphPlan", inst: Instance) -> ComponentPlan:
    """The MatIn component of Freivalds-checked products that share a MatOut, their rows
    interleaved (graph/matmul.py), with the topology derived from the graph like every other
    component's."""
    spec, nodes, tag, offsets = plan.spec, list(inst.nodes), inst.tag, list(inst.offsets)
    mps = [plan.matmuls[i] for i in nodes]
    lanes, split_w = mps[0].lanes, mps[0].w_public
    names = mat_challenges(tag, split_w)
    local_log = max(log_size_of(mp.in_rows) for mp in mps)  # every node's slot: the largest
    n_local = 1 << local_log
    s = 1 << (len(nodes) - 1).bit_length()
    p = max(mp.period_log for mp in mps)  # the periodic column's: shorter periods repeat in it
    constant_rows: dict[int, list[list[int]]] = {}

    def node_v(index: int, mp: Any, challenges: dict[str, QM31]) -> list[QM31]:
        w_node = spec.nodes[index].srcs[1 - mp.a_input][0]
        if mp.w_public:  # the proof's public values, bound by graph_statement
            public = plan.public_values.get(w_node)
            if public is None:
                raise StatementError(f"node {index}: its weights are a public input with no values bound")
            w = weight_rows(spec, mp, [from_field(v) for v in public])
            return weight_vector(w, mp.n, challenges[names[1]], challenges[names[3]])
        if mp.w_committed:  # the proof's v = W rho (checked by the product's MatW component)
            v = plan.product_vectors.get(index)
            if v is None or len(v) != mp.k:
                raise StatementError(f"node {index}: its committed weights' vector v is missing from the proof")
            return list(v)
        if index not in constant_rows:
            constant_rows[index] = weight_rows(spec, mp, spec.nodes[w_node].values or [])
        return weight_vector(constant_rows[index], mp.n, challenges[names[1]])

    def periodic(challenges: dict[str, QM31]) -> dict[str, tuple[int, list[QM31]]]:
        # row r = t S + i: node i's row t, whose lanes read v_((t mod 2^p_i) L + j) (its period
        # 2^p_i repeated up to 2^p); rows past K / L of a period read nothing
        cols = {f"v{j}": [QZERO] * (s << p) for j in range(lanes)}
        for i, (index, mp) in enumerate(zip(nodes, mps)):
            v = node_v(index, mp, challenges)
            for start in range(0, 1 << p, 1 << mp.period_log):
                for t in range(mp.k // lanes):
                    for j in range(lanes):
                        cols[f"v{j}"][(start + t) * s + i] = v[t * lanes + j]
        out = {key: (p + s.bit_length() - 1, vals) for key, vals in cols.items()}
        out["head"] = _heads(challenges, names[0], offsets, s)
        return out

    comp = MatInComponent(local_log + s.bit_length() - 1, spec.scale_bits, lanes, nodes, periodic, split_w, tag)
    bases = node_bases(spec)
    per_node = []
    for index, mp in zip(nodes, mps):
        a_base = bases[spec.nodes[index].srcs[mp.a_input][0]]
        rows = mp.in_rows
        pats = {"is_real": ColumnPattern("step", n_local), "in0_step": ColumnPattern("step", n_local)}
        pats["is_real"].add(0, rows, lambda _l: 1, [0])
        pats["in0_step"].add(0, rows, lambda _l, st=mp.a_step: st, [0])
        pats["in0_addr"], pats["in0_real"] = view_columns(mp.a_view, a_base, rows, n_local)
        per_node.append(pats)
    _interleave(comp, per_node)
    # each node's groups start every 2^p_i rows of its own (padded) rows; past them, none (its
    # padding to the slot adds nothing and keeps its counter)
    comp.sparse_columns["first"] = _strided(
        [{r: 1 for r in range(0, padded_rows(mp.in_rows), 1 << mp.period_log)} for mp in mps], s)
    segs = [Segment(index, i, mp.in_rows) for i, (index, mp) in enumerate(zip(nodes, mps))]  # start: the slot
    return ComponentPlan("MatIn", list(nodes), sum(mp.in_rows for mp in mps), comp, segs, inst)


def build_mat_out(plan: "GraphPlan", inst: Instance) -> ComponentPlan:
    """MatOut: one row per output element of each checked product (MatPlan or PairPlan), the nodes'
    rows one after another."""
    spec, indices, tag, bias = plan.spec, list(inst.nodes), inst.tag, inst.bias
    bases = node_bases(spec)
    segs = layout_segments(indices, lambda i: plan.product(i).out_rows)
    total = sum(seg.rows for seg in segs)
    comp_out = MatOutComponent(log_size_of(total), inst.constant, tag, bias, inst.split_w)
    n_out = 1 << comp_out.log_size
    pats = {"is_real": ColumnPattern("step", n_out), "addr": ColumnPattern("affine", n_out)}
    if inst.variable:
        comp_out.vary()
        pats["pow"] = power_pattern(spec, segs, n_out, inst.constant)
    if bias:
        pats["in0_addr"], pats["in0_real"] = ColumnPattern("affine", n_out), ColumnPattern("step", n_out)
    first: dict[int, int] = {}
    for seg in segs:
        mp = plan.product(seg.node)
        pats["is_real"].add(seg.start, seg.rows, lambda _l: 1, [0])
        view_columns(mp.out_view, bases[seg.node], seg.rows, n_out, seg.start, pats["addr"])
        if mp.bias is not None:
            src = spec.nodes[seg.node].srcs[2][0]
            view_columns(mp.bias, bases[src], seg.rows, n_out, seg.start, pats["in0_addr"], pats["in0_real"])
        first.update((r, 1) for r in range(seg.start, seg.start + seg.rows, mp.n))
    comp_out.set_topology(pats)
    if total < n_out:
        first[total] = 1  # the padding rows: one more group
    comp_out.sparse_columns["first"] = first
    return ComponentPlan("MatOut", list(indices), total, comp_out, segs, inst)


def build_mat_pair(plan: "GraphPlan", inst: Instance) -> ComponentPlan:
    """The MatPair component of Freivalds-checked products of two computed operands that share a
    MatOut, their rows interleaved."""
    spec, nodes, tag, offsets = plan.spec, list(inst.nodes), inst.tag, list(inst.offsets)
    pps = [plan.pairs[i] for i in nodes]
    local_log = log_size_of(pps[0].pair_rows)
    n_local = 1 << local_log
    s = 1 << (len(nodes) - 1).bit_length()
    mu = mat_challenges(tag, True)[0]
    comp = MatPairComponent(local_log + s.bit_length() - 1, spec.scale_bits, pps[0].la, pps[0].lb, nodes, tag,
                            lambda challenges: {"head": _heads(challenges, mu, offsets, s)})
    bases = node_bases(spec)
    per_node = []
    firsts, kstarts, lasts = [], [], []
    for index, pp in zip(nodes, pps):
        node = spec.nodes[index]
        rows = pp.pair_rows
        pats = {"is_real": ColumnPattern("step", n_local)}
        pats["is_real"].add(0, rows, lambda _l: 1, [0])
        for k, (view, step) in enumerate(((pp.a_view, pp.a_step), (pp.b_view, pp.b_step))):
            pats[f"in{k}_step"] = ColumnPattern("step", n_local)
            pats[f"in{k}_step"].add(0, rows, lambda _l, st=step: st, [0])
            pats[f"in{k}_addr"], pats[f"in{k}_real"] = view_columns(view, bases[node.srcs[k][0]], rows, n_local)
        per_node.append(pats)
        group, kgroup = pp.groups_rows, pp.groups_rows * pp.bn
        firsts.append({r: 1 for r in range(0, n_local, group)})
        kstart = {r: 1 for r in range(0, rows, kgroup)}
        if rows < n_local:
            kstart[rows] = 1  # the padding rows: one more run
        kstarts.append(kstart)
        lasts.append({r: 1 for r in range(group - 1, rows, group)})
    for _ in range(len(nodes), s):  # empty slots: one run each, adding nothing
        firsts.append({0: 1})
        kstarts.append({0: 1})
    _interleave(comp, per_node)
    comp.sparse_columns["first"] = _strided(firsts, s)
    comp.sparse_columns["kstart"] = _strided(kstarts, s)
    comp.sparse_columns["last"] = _strided(lasts, s)
    segs = [Segment(index, i, pp.pair_rows) for i, (index, pp) in enumerate(zip(nodes, pps))]  # start: the slot
    return ComponentPlan("MatPair", list(nodes), sum(pp.pair_rows for pp in pps), comp, segs, inst)


def mat_w_instances(matmuls: Mapping[int, MatPlan], indices: list[int], share: dict[int, tuple[str, int]]) -> list[Instance]:
    """One MatW for the products of committed weights that share a MatOut: their K groups of
    ceil(N / L) rows each, one product after another (its `first` column's boundaries, two a group
    at most, and the geometric columns' anchors are its topology)."""
    by_tag: dict[str, list[int]] = {}
    for i in indices:
        mp = matmuls.get(i)
        if mp is not None and mp.w_committed:
            by_tag.setdefault(share[i][0], []).append(i)
    out = []
    for tag, nodes in by_tag.items():
        lanes = mat_w_lanes(min(matmuls[i].n for i in nodes))
        rows = sum(mat_w_group(matmuls[i], lanes) * matmuls[i].k for i in nodes)
        name = f"matw{lanes}.n{nodes[0]}" + (f"+{len(nodes) - 1}" if len(nodes) > 1 else "")
        out.append(Instance("MatW", name, tuple(nodes), rows, log_size_of(rows),
                            2 * sum(matmuls[i].k for i in nodes) + 8, tag=tag))
    return out


def mat_w_group(mp: MatPlan, lanes: int) -> int:
    """Rows of one group (one k) of a product's MatW rows."""
    return -(-mp.n // lanes)


def build_mat_w(plan: "GraphPlan", inst: Instance) -> ComponentPlan:
    """The MatW component of the products of committed weights of one MatOut
    (graph/components.MatWComponent)."""
    nodes = list(inst.nodes)
    mps = [plan.matmuls[i] for i in nodes]
    lanes = mat_w_lanes(min(mp.n for mp in mps))
    comp = MatWComponent(inst.log_size, plan.spec.model_bits, lanes, nodes, [mp.k for mp in mps], inst.tag)
    first: dict[int, int] = {}
    segs = layout_segments(nodes, lambda i: mat_w_group(plan.matmuls[i], lanes) * plan.matmuls[i].k)
    for seg, mp in zip(segs, mps):
        first.update((r, 1) for r in range(seg.start, seg.start + seg.rows, mat_w_group(mp, lanes)))
    comp.sparse_columns["first"] = first
    return ComponentPlan("MatW", nodes, inst.rows, comp, segs, inst)


def mat_w_rows(plan: "GraphPlan", comp: MatWComponent, weights: Mapping[int, list[int]]) -> list[list[int]]:
    """Lane j of a MatW's rows (row order, without padding): W[k, tL + j] on row k T + t of each
    product's rows (0 past N), from the constants' values (`weights`: the W node -> its values; the
    prover's and `luminair audit`'s side: the verifier has none)."""
    lanes = comp.lanes
    out: list[list[int]] = [[] for _ in range(lanes)]
    for index in comp.nodes:
        mp = plan.matmuls[index]
        group = mat_w_group(mp, lanes)
        w_node = plan.spec.nodes[index].srcs[1 - mp.a_input][0]
        block = [[0] * (mp.k * group) for _ in range(lanes)]
        for k, row in enumerate(weight_rows(plan.spec, mp, list(weights[w_node]))):
            for n, w in enumerate(row):
                block[n % lanes][k * group + n // lanes] = w
        for j in range(lanes):
            out[j] += block[j]
    return out


MAT_BUILDERS = {"MatIn": build_mat_in, "MatPair": build_mat_pair, "MatOut": build_mat_out, "MatW": build_mat_w}
