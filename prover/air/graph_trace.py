"""Trace generation for graph proofs: the statement (GraphSpec), the topology columns (addresses,
flags and fan-outs, independent of the inputs, each checked against the verifier's own derivation
in verifier/graph/topology.py) and the main trace of every component, from a compiled Graph and its
exact fixed-point values. The constraints these columns satisfy are in verifier/graph/components.py;
lookup multiplicities are counted by running those same components' LogUp entries over the trace,
so what is looked up is never written twice."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...verifier.fields import P
from ...verifier.packed import INT, from_le
from ...verifier.graph.components import CHUNKS, DATA, HALF, KNOWN, WEIGHTS
from ...verifier.graph.spec import CONTRACT, GROUPED, GraphSpec, InputSpec, NodeSpec, OutputSpec
from ...verifier.graph.plan import MERGED_KINDS, ComponentPlan
from ...verifier.graph.planner import KNOWN_KINDS, GraphPlan, plan_graph
from ...verifier.graph.statement import build_graph_air, range_tables
from ...verifier.graph.components import HI_BITS, HI_BOUND, S_BITS
from ...verifier.graph.topology import (
    KNOWN_LANES, AffineView, bias_view, dot_lane_stride, node_bases,
)
from ...verifier.graph.tables import table_start
from ...verifier.numeric import (
    DOT_ACC_BOUND,
)
from .witness import Rows, TraceError, range_value, op_columns, split_limbs
from ..stark.constraints import BV, DomainEvaluator

I64 = np.int64


# --- the statement -------------------------------------------------------------------------------


def fanouts(graph: Any, spec: GraphSpec | None = None) -> dict[int, np.ndarray]:
    """node id -> how many times each of its elements is read (by ops and by outputs): the
    multiplicities a producing row yields its element with (a witness the verifier never needs).
    Reads a Dot makes in whole known rows (the plan's chunked reads) are not element reads: chunk_fanouts."""
    chunked = plan_graph(spec).chunked if spec is not None else set()
    matmuls = plan_graph(spec).matmuls if spec is not None else {}
    pairs = plan_graph(spec).pairs if spec is not None else {}
    counts = {n.id: np.zeros(n.numel, dtype=I64) for n in graph.nodes()}
    for node in graph.nodes():
        if node.op.value == "Gather":  # at public ids the verifier's own values (it reads nothing
            (table, _), (ids, _) = node.srcs  # through LogUp); at private ids each row reads its id,
            if ids.private:  # and its table element, which gather_reads counts from the ids
                counts[ids.id] += table.shape[1]
            continue
        for k, (src, view) in enumerate(node.srcs):
            mp = matmuls.get(node.id)
            if (node.id, k) in chunked or (mp is not None and k == 1 - mp.a_input):
                continue  # (a Freivalds-checked product's weights are the verifier's own)
            idx = view.src_indices()
            if mp is not None and k == mp.a_input:  # each A[m, k] is read once, not once per n
                idx = _mat_a_indices(matmuls[node.id], view, node.axis)
            if node.id in pairs and k < 2:  # each operand element read once (not once per m or n)
                idx = _pair_indices(pairs[node.id], view, node.axis, k)
            counts[src.id] += np.bincount(idx[idx >= 0], minlength=src.numel)
    for _, (node, view) in graph.outputs().items():
        idx = view.src_indices()
        counts[node.id] += np.bincount(idx[idx >= 0], minlength=node.numel)
    return counts


def gather_reads(graph: Any, values: dict[int, np.ndarray], fan: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """The fan-outs with each private-id Gather's reads of its table's elements (ids[t] d + j), which
    depend on the ids: the witness lane multiplicities of the table's known rows."""
    out = dict(fan)
    for node in graph.nodes():
        if node.op.value == "Gather" and node.srcs[1][0].private:
            (table, _), (ids, _) = node.srcs
            d = table.shape[1]
            idx = (values[ids.id][:, None] * d + np.arange(d, dtype=I64)[None, :]).reshape(-1)
            out[table.id] = out[table.id] + np.bincount(idx, minlength=table.numel)
    return out


def _mat_a_indices(mp: Any, view: Any, axis: int, padded: bool = False) -> np.ndarray:
    """A's source indices in MatIn order ((M axes..., K), the N axes at 0) from the ShapeTracker;
    `padded`: each row m's K / lanes rows padded to 2^p with reads of nothing (-1)."""
    idx = view.src_indices().reshape(tuple(view.shape))
    sel = tuple(0 if d in mp.n_axes else slice(None) for d in range(idx.ndim))
    kept = [d for d in range(idx.ndim) if d not in mp.n_axes]
    sub = idx[sel]
    order = [kept.index(d) for d in kept if d != axis] + [kept.index(axis)]
    flat = np.transpose(sub, order).reshape(-1)
    if not padded:
        return flat
    rows = flat.reshape(mp.m, mp.k // mp.lanes, mp.lanes)
    out = np.full((mp.m, 1 << mp.period_log, mp.lanes), -1, dtype=flat.dtype)
    out[:, : mp.k // mp.lanes] = rows
    return out.reshape(-1)


def _pair_indices(pp: Any, view: Any, axis: int, k: int) -> np.ndarray:
    """Operand k's source indices in MatPair order ((K, b..., R), then lanes) from the ShapeTracker:
    A[b, t la + j, k] (the N axis at 0) or B[b, k, t lb + j] (the M axis at 0)."""
    idx = view.src_indices().reshape(tuple(view.shape))
    drop, keep_axis = (pp.n_axis, pp.m_axis) if k == 0 else (pp.m_axis, pp.n_axis)
    sel = tuple(0 if d == drop else slice(None) for d in range(idx.ndim))
    kept = [d for d in range(idx.ndim) if d != drop]
    main = [axis, *pp.b_axes, keep_axis]
    order = [kept.index(d) for d in kept if d not in main] + [kept.index(d) for d in main]  # (size-1 axes first)
    return np.transpose(idx[sel], order).reshape(-1)


def chunk_fanouts(spec: GraphSpec) -> dict[int, np.ndarray]:
    """known node id -> how many Dot rows read each of its known rows whole (the `cm` multiplicity
    its row yields the chunk with)."""
    out: dict[int, np.ndarray] = {}
    for i, k in sorted(plan_graph(spec).chunked):
        src = spec.nodes[i].srcs[k][0]
        offset, valid = _affine_rows(plan_graph(spec).row_view(i, k), plan_graph(spec).rows_of(i))
        rows = -(-spec.nodes[src].numel // KNOWN_LANES)
        lanes = plan_graph(spec).lanes[i]  # a row reads lanes / KNOWN_LANES known rows, from its offset on
        starts = offset[valid] // KNOWN_LANES
        counts = sum(np.bincount(starts + c, minlength=rows) for c in range(lanes // KNOWN_LANES))
        out[src] = out.get(src, np.zeros(rows, dtype=I64)) + counts
    return out


def build_spec(graph: Any, title: str = "", description: str = "", weights: str = "public",
               inputs: str = "public") -> GraphSpec:
    """The graph as the verifier sees it; with weights="committed", its weight tensors are committed
    constants (committed_constants): the prover's spec keeps their values, settings.bin does not;
    with inputs="private" every input is private, with "committed" every value input is committed too
    (the input tree; token ids stay private)."""
    from ..graph.execute import constant_raw, node_scale

    fmt = graph.numeric_format
    nodes = []
    for i, n in enumerate(graph.nodes()):
        if n.id != i:
            raise TraceError(f"node {n.id} sits at position {i}: the graph is not densely numbered")
        srcs = [(s.id, tuple(s.shape), tuple(v.steps)) for s, v in n.srcs]
        values = None
        if n.op.value == "Constant":
            raw = np.asarray(constant_raw(n, fmt)).reshape(-1)
            if raw.size and -(1 << 31) <= raw.min() and raw.max() < 1 << 31:  # as settings.bin decodes it
                values = from_le(INT, raw.astype("<i4").tobytes())
            else:  # (past 32 bits: the settings writer names the value)
                values = [int(x) for x in raw]
        nodes.append(
            NodeSpec(n.op.value, tuple(n.shape), srcs, n.axis, n.name or "", bool(n.private), values, bool(n.index),
                     node_scale(n, fmt))
        )
    inputs_ = [InputSpec(name, node.id) for name, node in graph.inputs().items()]
    outputs = [
        OutputSpec(name, node.id, tuple(view.steps), tuple(view.shape), [int(i) for i in view.src_indices()])
        for name, (node, view) in graph.outputs().items()
    ]
    spec = GraphSpec(fmt.scale_bits, nodes, inputs_, outputs, title, description)
    if weights == "committed":
        commit_constants(spec)
    for inp in spec.inputs if inputs != "public" else ():  # private or committed: no value in proof.bin
        node = spec.nodes[inp.node]
        node.private = True
        node.committed = inputs == "committed" and not node.index  # (token ids stay private)
    return spec


def output_columns(plans: list[ComponentPlan], spec: GraphSpec, values: dict[int, np.ndarray]) -> dict[str, np.ndarray]:
    """The output tree's column (row order): each committed output's elements in turn (0 where one
    reads padding), as the committed-output component lays them out."""
    out = {}
    for plan in plans:
        if plan.kind in ("CommittedOutput", "BoundaryOutput"):
            col = np.zeros(1 << plan.component.log_size, dtype=I64)
            for o, seg in zip([o for o in spec.outputs if o.committed], plan.segments):
                idx = np.asarray(o.src_indices, dtype=I64)
                node = np.asarray(values[o.node], dtype=I64).reshape(-1)
                col[seg.start : seg.start + seg.rows] = np.where(idx >= 0, node[np.maximum(idx, 0)], 0)
            out[f"{plan.component.name}.v"] = col
    return out


def committed_output_topology(plan: ComponentPlan, spec: GraphSpec) -> dict[str, np.ndarray]:
    """The committed-output component's addresses and flags (twin of statement._build_outputs)."""
    n = 1 << plan.component.log_size
    topo = {"addr": np.zeros(n, dtype=I64), "is_real": np.zeros(n, dtype=I64)}
    bases = node_bases(spec)
    for o, seg in zip([o for o in spec.outputs if o.committed], plan.segments):
        idx = np.asarray(o.src_indices, dtype=I64)
        topo["addr"][seg.start : seg.start + seg.rows] = np.where(idx >= 0, bases[o.node] + idx, 0)
        topo["is_real"][seg.start : seg.start + seg.rows] = idx >= 0
    return topo


def input_columns(plans: list[ComponentPlan], values: dict[int, np.ndarray]) -> dict[str, np.ndarray]:
    """The input tree's columns (row order): each committed input's values, node after node, as the
    committed component lays them out (a proof's own: its root is the input digest)."""
    out = {}
    for plan in plans:
        if plan.kind in ("CommittedInput", "BoundaryInput"):
            col = np.zeros(1 << plan.component.log_size, dtype=I64)
            for seg in plan.segments:
                col[seg.start : seg.start + seg.rows] = np.asarray(values[seg.node], dtype=I64).reshape(-1)
            out[f"{plan.component.name}.v"] = col
    return out


def commit_constants(spec: GraphSpec) -> None:
    """Mark the model's weights committed: every constant of more than one element but a Gather's
    table (which stays public: docs/committed-models.md); scalars (a sum's 1.0, an epsilon) are part
    of the architecture and stay in settings.bin. model_bits is the fewest bits that hold them all."""
    tables = {n.srcs[0][0] for n in spec.nodes if n.op == "Gather"}
    chosen = [i for i, n in enumerate(spec.nodes) if n.op == "Constant" and n.numel > 1 and i not in tables]
    if not chosen:
        raise TraceError("--weights committed: the model has no weight tensor to commit (every constant is a scalar)")
    values = [v for i in chosen for v in (min(spec.nodes[i].values), max(spec.nodes[i].values))]
    for i in chosen:
        spec.nodes[i].committed = True
    # the fewest bits b with every value in [-2^(b-1), 2^(b-1)) (a 16-bit value needs 16 at most)
    spec.model_bits = max(2, *(int(v).bit_length() + 1 if v >= 0 else (-int(v) - 1).bit_length() + 1 for v in values))


def model_columns(plans: list[ComponentPlan], spec: GraphSpec, graph_plan: GraphPlan) -> dict[str, np.ndarray]:
    """The model tree's columns (row order): each committed component's values, node after node
    (its segments), and each MatW's lanes of W (graph/mat_plans.mat_w_rows), zero on padding rows.
    Canonical: a function of the weights and the layout the settings imply, so anyone holding the
    weights recomputes the root (luminair audit). `spec` holds the values, `graph_plan` is the
    settings' plan."""
    from ...verifier.graph.mat_plans import mat_w_rows

    out = {}
    weights = {i: n.values for i, n in enumerate(spec.nodes) if n.committed}
    for plan in plans:
        if plan.kind == "MatW":
            for key, lane in zip(plan.component.model_columns(), mat_w_rows(graph_plan, plan.component, weights)):
                col = np.zeros(1 << plan.component.log_size, dtype=I64)
                col[: len(lane)] = lane
                out[key] = col
            continue
        if plan.kind != "Committed":
            continue
        col = np.zeros(1 << plan.component.log_size, dtype=I64)
        for seg in plan.segments:
            col[seg.start : seg.start + seg.rows] = np.asarray(spec.nodes[seg.node].values, dtype=I64)
        out[f"{plan.component.name}.v"] = col
    return out


# --- row layout ------------------------------------------------------------------------------------


def _reduce_order(view: Any, axis: int) -> np.ndarray:
    """Flat view indices in row order: output elements row-major, reduced axis innermost."""
    shape = view.shape
    idx = np.arange(int(np.prod(shape)), dtype=I64).reshape(shape)
    return np.moveaxis(idx, axis, -1).reshape(-1)


def _affine_rows(v: AffineView, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(address offset by the view's affine formula, validity) for rows 0..count-1 (numpy twin of
    tests/verifier/reference_topology.address and topology._valid)."""
    digits = np.unravel_index(np.arange(count, dtype=I64), tuple(v.sizes)) if v.sizes else ()
    addr = np.full(count, v.offset, dtype=I64)
    valid = np.ones(count, dtype=bool)
    for d, stride, (lo, hi) in zip(digits, v.strides, v.masks):
        addr += d.astype(I64) * stride
        valid &= (d >= lo) & (d < hi)
    return addr, valid


def _dense(values: dict[int, int], n_rows: int) -> np.ndarray:
    col = np.zeros(n_rows, dtype=I64)
    for r, v in values.items():
        col[r] = v
    return col


def _row_constants(spec: GraphSpec, plan: ComponentPlan, n_rows: int) -> np.ndarray | None:
    """Each row's constant in a component whose rows carry their own (verifier
    topology.power_pattern: the node's, the largest on padding rows); None where it has one."""
    if not plan.instance.variable:
        return None
    k = np.full(n_rows, plan.instance.constant, dtype=I64)
    for seg in plan.segments:
        k[seg.start : seg.start + seg.rows] = spec.constant_of(seg.node)
    return k


def _layout(spec: GraphSpec, graph: Any, plan: ComponentPlan, fan: dict[int, np.ndarray], values: dict[int, np.ndarray] | None) -> Rows:
    comp = plan.component
    n_rows = 1 << comp.log_size
    n_in = comp.n_inputs
    bases = node_bases(spec)
    z = lambda: np.zeros(n_rows, dtype=I64)  # noqa: E731
    topo = {name: z() for name in comp.topology_columns()}
    op = spec.nodes[plan.nodes[0]].op
    lanes = getattr(comp, "lanes", 1) if op in CONTRACT else 1
    shape = (lanes, n_rows) if op in CONTRACT else (n_rows,)
    rows = Rows(topo, [np.zeros(shape, dtype=I64) for _ in range(n_in)], [])
    rows.constant = _row_constants(spec, plan, n_rows)
    if rows.constant is not None:
        topo["pow"][:] = 1 << rows.constant
    reduce = op in GROUPED
    if reduce:
        rows.is_first = _dense(comp.sparse_columns["first"], n_rows)
        rows.is_last = _dense(comp.sparse_columns["last"], n_rows)
    for seg in plan.segments:
        node = graph.node(seg.node)
        sl = slice(seg.start, seg.start + seg.rows)
        local = np.arange(seg.rows, dtype=I64)
        rows.node_rows.append((seg.node, seg.start, seg.rows))
        topo["is_real"][sl] = 1
        if "q" in topo:  # a merged kind's selector: 1 on its second kind's rows (statement.MERGED_KINDS)
            topo["q"][sl] = int(spec.nodes[seg.node].op == MERGED_KINDS[plan.kind][1])
        base = bases[seg.node]
        if reduce:
            length = plan_graph(spec).row_view(seg.node, 0).sizes[-1]
            groups = local // length
            last = local % length == length - 1
            topo["addr"][sl] = base + groups
            topo["mult"][sl] = np.where(last, fan[seg.node][groups], 0)
        else:
            topo["addr"][sl] = base + local
            topo["mult"][sl] = fan[seg.node]
        if op == "Gather":
            _gather_rows(rows, seg, node, bases, values)
            continue
        if op in CONTRACT and len(node.srcs) == 3:
            _bias_rows(spec, rows, seg, node, base_of=bases, values=values, n_rows=n_rows)
        for k, (src, view) in enumerate(node.srcs[:n_in]):
            v = plan_graph(spec).row_view(seg.node, k)
            offset, valid = _affine_rows(v, seg.rows)
            src_idx = view.src_indices() if not reduce else view.src_indices()[_reduce_order(view, node.axis)]
            step = dot_lane_stride(spec, seg.node, k) if op in CONTRACT else 0
            lane_offsets = offset[None, :] + step * np.arange(lanes, dtype=I64)[:, None]
            # twin check: the verifier's affine form of the view against the ShapeTracker's indices
            if not np.array_equal(np.where(valid, lane_offsets, -1), src_idx.reshape(seg.rows, lanes).T):
                raise TraceError(f"node {seg.node} input {k}: the affine view disagrees with the view's indices")
            topo[f"in{k}_addr"][sl] = bases[src.id] + offset
            if f"in{k}_real" in topo:  # (a Dot's direct weights have none: never padded)
                topo[f"in{k}_real"][sl] = valid
            if f"in{k}_step" in topo:
                topo[f"in{k}_step"][sl] = step
            if values is not None:
                got = np.where(valid, values[src.id][np.where(valid, lane_offsets, 0)], 0)
                rows.values_in[k][..., sl] = got if op in CONTRACT else got[0]
    return rows


def _gather_rows(rows: Rows, seg: Any, node: Any, bases: list[int], values: dict[int, np.ndarray] | None) -> None:
    """A private-id Gather's rows (verifier GatherComponent): element (t, j) reads ids[t] and the
    table's element (0, j), shifted by the id times the width."""
    (table, _), (ids, _) = node.srcs
    v, d = table.shape
    local = np.arange(seg.rows, dtype=I64)
    t, j = local // d, local % d
    sl, topo = slice(seg.start, seg.start + seg.rows), rows.topology
    topo["in0_addr"][sl], topo["in1_addr"][sl] = bases[table.id] + j, bases[ids.id] + t
    topo["in0_real"][sl] = topo["in1_real"][sl] = 1
    topo["width"][sl], topo["top"][sl] = d, v - 1
    if values is not None:
        rows.values_in[1][sl] = idv = values[ids.id][t]
        rows.values_in[0][sl] = values[table.id][idv * d + j]


def _bias_rows(spec: GraphSpec, rows: Rows, seg: Any, node: Any, base_of: list[int], values: dict[int, np.ndarray] | None, n_rows: int) -> None:
    """A Dot's bias: its address and value on every row of each output element's group (twin of
    topology.bias_view against the ShapeTracker's indices)."""
    src, view = node.srcs[2]
    idx = view.src_indices()
    offset, valid = _affine_rows(bias_view(spec, seg.node), node.numel)
    if not (valid.all() and np.array_equal(offset, idx)):
        raise TraceError(f"node {seg.node} bias: the affine view disagrees with the view's indices")
    length = seg.rows // node.numel
    sl = slice(seg.start, seg.start + seg.rows)
    rows.topology["in2_addr"][sl] = np.repeat(base_of[src.id] + idx, length)
    if values is not None:
        if rows.bias is None:
            rows.bias = np.zeros(n_rows, dtype=I64)
        rows.bias[sl] = np.repeat(values[src.id][idx], length)


def _check_topology(plan: ComponentPlan, topo: dict[str, np.ndarray]) -> None:
    """Twin check: the prover's topology columns satisfy the verifier's difference constraints."""
    comp = plan.component
    n = 1 << comp.log_size
    for col, kind in comp.topology_kinds().items():
        c = topo[col] % P
        s = comp.stride
        if kind == "affine":
            diff = (c - 2 * np.roll(c, s) + np.roll(c, 2 * s)) % P
        else:
            diff = (c - np.roll(c, s)) % P
        anchors = ([comp.anchors[col]] if s == 1
                   else [comp.sparse_columns[f"a.{col}"].get(i, 0) for i in range(s)])
        if not np.array_equal(diff, _dense(comp.sparse_columns[f"d.{col}"], n) % P) or list(c[:s]) != anchors:
            raise TraceError(f"{comp.name}.{col}: the trace's topology disagrees with the verifier's")


def _known_columns(spec: GraphSpec, plan: ComponentPlan, fan: dict[int, np.ndarray], values: dict[int, np.ndarray]) -> dict[str, np.ndarray]:
    n_rows = 1 << plan.component.log_size
    bases = node_bases(spec)
    chunks = chunk_fanouts(spec)
    cols = {"addr": np.zeros(n_rows, dtype=I64), "is_real": np.zeros(n_rows, dtype=I64), "cm": np.zeros(n_rows, dtype=I64)}
    lanes = np.zeros((KNOWN_LANES, n_rows), dtype=I64)
    mults = np.zeros((KNOWN_LANES, n_rows), dtype=I64)
    for seg in plan.segments:
        sl = slice(seg.start, seg.start + seg.rows)
        cols["addr"][sl] = bases[seg.node] + KNOWN_LANES * np.arange(seg.rows, dtype=I64)
        cols["is_real"][sl] = 1
        size = KNOWN_LANES * seg.rows
        vals = np.zeros(size, dtype=I64)
        vals[: values[seg.node].size] = values[seg.node]
        counts = np.zeros(size, dtype=I64)
        counts[: fan[seg.node].size] = fan[seg.node]
        lanes[:, sl] = vals.reshape(seg.rows, KNOWN_LANES).T
        mults[:, sl] = counts.reshape(seg.rows, KNOWN_LANES).T
        if seg.node in chunks:
            cols["cm"][sl] = chunks[seg.node]
    for j in range(KNOWN_LANES):
        cols[f"v{j}"], cols[f"m{j}"] = lanes[j], mults[j]
    return cols


# --- main trace ------------------------------------------------------------------------------------


def _lane_reads(
    view: AffineView, step: int, lanes: int, rows: int, src_idx: np.ndarray, what: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row offsets, row validity, (lanes, rows) offsets) of lanes read at offset + j step over an
    affine view, twin-checked against the ShapeTracker's indices in the same order (-1: nothing)."""
    offset, valid = _affine_rows(view, rows)
    lane_offsets = offset[None, :] + step * np.arange(lanes, dtype=I64)[:, None]
    if not np.array_equal(np.where(valid, lane_offsets, -1), src_idx.reshape(rows, lanes).T):
        raise TraceError(f"{what}: the affine view disagrees with the view's indices")
    return offset, valid, lane_offsets


def _limb_lanes(cols: dict[str, np.ndarray], prefix: str, vals: np.ndarray, n_rows: int) -> None:
    """Each lane's values (lanes, rows) as 8-bit limbs lo + 256 hi, padded to n_rows with zeros."""
    for j, v in enumerate(vals):
        lo, hi = np.zeros(n_rows, dtype=I64), np.zeros(n_rows, dtype=I64)
        lo[: v.size], hi[: v.size] = v & 255, v >> 8
        cols[f"{prefix}lo{j}"], cols[f"{prefix}hi{j}"] = lo, hi


def _mat_reads(spec: GraphSpec, graph: Any, nid: int, values: dict[int, np.ndarray] | None) -> tuple[Any, ...]:
    """(source, row offsets, row validity, A (lanes, rows) or None) of a MatIn's reads."""
    mp = plan_graph(spec).matmuls[nid]
    node = graph.node(nid)
    src, view = node.srcs[mp.a_input]
    offset, valid, lane_offsets = _lane_reads(
        mp.a_view, mp.a_step, mp.lanes, mp.in_rows, _mat_a_indices(mp, view, node.axis, padded=True),
        f"node {nid} input {mp.a_input}")
    a = None
    if values is not None:
        a = np.where(valid, values[src.id][np.where(valid, lane_offsets, 0)], 0)
    return src, offset, valid, a


def _interleaved(plan: ComponentPlan, per_node: list[tuple[dict[str, np.ndarray], dict[str, np.ndarray]]]
                 ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(topology, main columns) of an interleaved component from each node's own (over its n_local
    rows): node i's row l is row l S + i; empty slots hold zeros."""
    s = plan.component.stride
    n_rows = 1 << plan.component.log_size
    out: list[dict[str, np.ndarray]] = [{}, {}]
    for part in (0, 1):
        for name in per_node[0][part]:
            col = np.zeros(n_rows, dtype=I64)
            for i, cols in enumerate(per_node):
                col[i::s] = cols[part][name]
            out[part][name] = col
    return out[0], out[1]


def _mat_in_columns(
    spec: GraphSpec, graph: Any, plan: ComponentPlan, values: dict[int, np.ndarray] | None
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(topology, main columns) of a MatIn component (verifier/graph/matmul.py); main columns only
    with values."""
    n_local = (1 << plan.component.log_size) // plan.component.stride
    per_node = []
    for nid in plan.nodes:
        mp = plan_graph(spec).matmuls[nid]
        topo = {name: np.zeros(n_local, dtype=I64) for name in plan.component.topology_columns()}
        rows = mp.in_rows
        src, offset, valid, a = _mat_reads(spec, graph, nid, values)
        topo["is_real"][:rows] = 1
        topo["in0_addr"][:rows] = node_bases(spec)[src.id] + offset
        topo["in0_real"][:rows] = valid
        topo["in0_step"][:rows] = mp.a_step
        cols: dict[str, np.ndarray] = {}
        if a is not None:
            _limb_lanes(cols, "", a, n_local)
        per_node.append((topo, cols))
    return _interleaved(plan, per_node)


def _pair_reads(spec: GraphSpec, graph: Any, nid: int, values: dict[int, np.ndarray] | None) -> list[tuple[Any, ...]]:
    """Per operand of a MatPair: (source, row offsets, lane step, its values (lanes, rows) or None)."""
    pp = plan_graph(spec).pairs[nid]
    node = graph.node(nid)
    out = []
    for k, (view_a, step, lanes) in enumerate(((pp.a_view, pp.a_step, pp.la), (pp.b_view, pp.b_step, pp.lb))):
        src, view = node.srcs[k]
        offset, _, lane_offsets = _lane_reads(
            view_a, step, lanes, pp.pair_rows, _pair_indices(pp, view, node.axis, k), f"node {nid} input {k}")
        out.append((src, offset, step, values[src.id][lane_offsets] if values is not None else None))
    return out


def _pair_columns(
    spec: GraphSpec, graph: Any, plan: ComponentPlan, values: dict[int, np.ndarray] | None
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(topology, main columns) of a MatPair component; main columns only with values."""
    n_local = (1 << plan.component.log_size) // plan.component.stride
    bases = node_bases(spec)
    per_node = []
    for nid in plan.nodes:
        pp = plan_graph(spec).pairs[nid]
        topo = {name: np.zeros(n_local, dtype=I64) for name in plan.component.topology_columns()}
        cols: dict[str, np.ndarray] = {}
        topo["is_real"][: pp.pair_rows] = 1
        for k, (src, offset, step, vals) in enumerate(_pair_reads(spec, graph, nid, values)):
            topo[f"in{k}_addr"][: pp.pair_rows] = bases[src.id] + offset
            topo[f"in{k}_real"][: pp.pair_rows] = 1
            topo[f"in{k}_step"][: pp.pair_rows] = step
            if vals is not None:
                _limb_lanes(cols, "ab"[k], vals, n_local)
        per_node.append((topo, cols))
    return _interleaved(plan, per_node)


def _product_operands(spec: GraphSpec, graph: Any, nid: int, values: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """A (batch, M, K) and W (batch, K, N) of a checked product, in MatOut row order, from the
    values its MatIn or MatPair holds."""
    if nid in plan_graph(spec).pairs:
        pp = plan_graph(spec).pairs[nid]
        (_, _, _, a), (_, _, _, b) = _pair_reads(spec, graph, nid, values)  # rows (k, b, t) x lanes
        return (a.T.reshape(pp.k, pp.bn, pp.m_size).transpose(1, 2, 0),
                b.T.reshape(pp.k, pp.bn, pp.n).transpose(1, 0, 2))
    mp = plan_graph(spec).matmuls[nid]
    a = _mat_reads(spec, graph, nid, values)[3]
    # row t < K / L of group m holds k = tL + j (the rest of the group reads nothing)
    a3 = a.T.reshape(mp.m, 1 << mp.period_log, mp.lanes)[:, : mp.k // mp.lanes].reshape(1, mp.m, mp.k)
    return a3, _mat_weights(spec, mp, values)[None]


def _mat_out_columns(
    spec: GraphSpec, graph: Any, plan: ComponentPlan, fan: dict[int, np.ndarray], values: dict[int, np.ndarray] | None,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(topology, main columns) of a MatOut (main columns only with values): per node's rows the
    exact limb sums of A (batch, M, K) and W (batch, K, N), then the total and one rounding."""
    comp = plan.component
    n_rows = 1 << comp.log_size
    bases = node_bases(spec)
    shifts = _row_constants(spec, plan, n_rows)
    s = plan.instance.constant if shifts is None else shifts  # the products' rounding shift (each row's)
    z = lambda: np.zeros(n_rows, dtype=I64)  # noqa: E731
    topo = {name: z() for name in comp.topology_columns()}
    if shifts is not None:
        topo["pow"][:] = 1 << shifts
    split_w = comp.split_w
    names = ("sll", "shl", "slh", "shh") if split_w else ("slo", "shi")
    cols = {name: z() for name in names}
    bias = z() if comp.bias else None
    outs = []
    for seg in plan.segments:
        nid, r0, rows = seg.node, seg.start, seg.rows
        mp = plan_graph(spec).matmuls.get(nid) or plan_graph(spec).pairs[nid]
        here = slice(r0, r0 + rows)
        out_offset, _ = _affine_rows(mp.out_view, rows)
        outs.append(out_offset)
        topo["is_real"][here] = 1
        topo["addr"][here] = bases[nid] + out_offset
        topo["mult"][here] = fan[nid][out_offset]
        if mp.bias is not None:  # (a MatOut with a bias may hold products without one: bias 0)
            bsrc, bview = graph.node(nid).srcs[2]
            b_offset, _ = _affine_rows(mp.bias, rows)
            if not np.array_equal(b_offset, bview.src_indices()[out_offset]):
                raise TraceError(f"node {nid} bias: the affine view disagrees with the view's indices")
            topo["in0_addr"][here] = bases[bsrc.id] + b_offset
            topo["in0_real"][here] = 1
            if values is not None:
                bias[here] = values[bsrc.id][b_offset]
        if values is None:
            continue
        a3, w = _product_operands(spec, graph, nid, values)
        a_lo, a_hi = a3 & 255, a3 >> 8
        if split_w and mp.w_public:  # both operands in 8-bit limbs: four exact sums (|.| < K 2^16)
            w_lo, w_hi = w & 255, w >> 8
            sums = {"sll": a_lo @ w_lo, "shl": a_hi @ w_lo, "slh": a_lo @ w_hi, "shh": a_hi @ w_hi}
        elif split_w:  # whole weights in a MatOut of limb sums: the W-high sums stay 0
            sums = {"sll": a_lo @ w, "shl": a_hi @ w}
        else:
            sums = {"slo": a_lo @ w, "shi": a_hi @ w}  # exact: |.| < K 2^8 2^15
        for name, v in sums.items():
            cols[name][here] = v.reshape(-1)
    if values is None:
        return topo, {}
    if split_w:
        cols["t1"] = 256 * cols["shh"] + cols["shl"] + cols["slh"]
        tot = 256 * cols["t1"] + cols["sll"]
        checks = [("low", cols["sll"], DOT_ACC_BOUND), ("mixed", cols["shl"], DOT_ACC_BOUND),
                  ("mixed", cols["slh"], DOT_ACC_BOUND), ("high", cols["shh"], HI_BOUND), ("high", cols["t1"], HI_BOUND)]
    else:
        tot = cols["slo"] + 256 * cols["shi"]
        checks = [("low", cols["slo"], DOT_ACC_BOUND), ("high", cols["shi"], HI_BOUND)]
    for what, v, bound in checks + [("total", tot, DOT_ACC_BOUND)]:
        if np.any((v < -bound) | (v >= bound)):
            r = int(np.flatnonzero((v < -bound) | (v >= bound))[0])
            seg_i = next(i for i, seg in enumerate(plan.segments) if r < seg.start + seg.rows)
            seg = plan.segments[seg_i]
            raise TraceError(f"MatMul node {seg.node}, element {int(outs[seg_i][r - seg.start])}: the {what} "
                             f"accumulator {int(v[r])} leaves its range [-{bound}, {bound})")
    half = 1 << (s - 1)
    rounded = (tot + half) >> s
    out = rounded + (bias if bias is not None else 0)
    rem = tot + half - (rounded << s)
    for seg, out_offset in zip(plan.segments, outs):
        _check_product(seg.node, out[seg.start : seg.start + seg.rows], values[seg.node][out_offset])
    cols.update(out=out, rem=rem)
    if bias is not None:
        cols["bias"] = bias
    for name in names:
        high = name in ("shi", "shh")
        range_value(cols, name, HI_BITS if high else S_BITS, cols[name] + (HI_BOUND if high else DOT_ACC_BOUND))
    if split_w:
        range_value(cols, "t1", HI_BITS, cols["t1"] + HI_BOUND)
    range_value(cols, "tot", S_BITS, tot + DOT_ACC_BOUND)
    range_value(cols, "out", 16, out + HALF)
    range_value(cols, "rem", comp.s, rem)
    if shifts is not None:
        range_value(cols, "gap", comp.s, (1 << shifts) - 1 - rem)
    return topo, cols


_MAT_KINDS = ("MatIn", "MatPair", "MatOut")


def _mat_kind_columns(
    spec: GraphSpec, graph: Any, plan: ComponentPlan, fan: dict[int, np.ndarray], values: dict[int, np.ndarray] | None
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    if plan.kind == "MatOut":
        return _mat_out_columns(spec, graph, plan, fan, values)
    return (_mat_in_columns if plan.kind == "MatIn" else _pair_columns)(spec, graph, plan, values)


def _mat_weights(spec: GraphSpec, mp: Any, values: dict[int, np.ndarray]) -> np.ndarray:
    """W[k, n] (N axes in MatOut row order) of a Freivalds-checked product, from the constant's
    values or the public input's (the verifier's weight_rows, as an array)."""
    from ...verifier.graph.matmul import weight_rows

    w_node = spec.nodes[mp.node].srcs[1 - mp.a_input][0]
    src = values[w_node] if mp.w_public or mp.w_committed else spec.nodes[w_node].values  # (the run holds a constant too)
    return np.array(weight_rows(spec, mp, [int(x) for x in np.asarray(src).reshape(-1)]), dtype=I64)


def main_columns(
    graph: Any,
    plans: list[ComponentPlan],
    values: dict[int, np.ndarray],
    air: Any,
    pre: dict[str, np.ndarray],
    spec: GraphSpec | None = None,
) -> list[dict[str, np.ndarray]]:
    """Main trace of every AIR component (topology and op columns, then the lookup tables)."""
    spec = spec if spec is not None else build_spec(graph)
    fan = fanouts(graph, spec)
    known_fan = gather_reads(graph, values, fan)  # (counted once: every known component reads it)
    s = graph.numeric_format.scale_bits
    out: list[dict[str, np.ndarray]] = []
    for plan in plans:
        if plan.kind in KNOWN_KINDS:
            cols = _known_columns(spec, plan, known_fan, values)
            out.append({k: v for k, v in cols.items() if k in plan.component.main_columns})
            continue
        if plan.kind in ("MatW", "CommittedOutput", "BoundaryOutput"):  # statement trees' values: no main column
            out.append({})
            continue
        if plan.kind in _MAT_KINDS:
            out.append(split_limbs(_mat_kind_columns(spec, graph, plan, fan, values)[1], plan.component))
            continue
        rows = _layout(spec, graph, plan, fan, values)
        if plan.kind in ("Committed", "CommittedInput", "BoundaryInput"):  # the value is a statement tree's column, looked up as it is
            cols = {}
        elif plan.kind in ("PrivateInput", "PrivateIndex"):
            v = np.zeros(1 << plan.component.log_size, dtype=I64)
            for nid, r0, count in rows.node_rows:
                v[r0 : r0 + count] = values[nid]
            cols = {"v": v}
            if plan.kind == "PrivateInput":
                range_value(cols, "v", 16, v + HALF)
        else:
            cols = op_columns(plan, rows, plan.instance.constant if rows.constant is None else rows.constant)
            _check_outputs(plan, rows, cols, values)
        out.append(split_limbs(cols, plan.component))
    out += table_multiplicities(air, plans, out, pre, s)
    return out


def topology_columns(graph: Any, plans: list[ComponentPlan], spec: GraphSpec) -> dict[str, np.ndarray]:
    """Every topology column ("<component>.<column>", row order): addresses, flags and
    fan-outs, independent of the inputs, each checked against the verifier's own derivation."""
    fan = fanouts(graph, spec)
    out: dict[str, np.ndarray] = {}
    for plan in plans:
        if plan.kind == "MatW":
            continue  # no topology columns: its group starts are a sparse column
        if plan.kind in ("CommittedOutput", "BoundaryOutput"):
            topo = committed_output_topology(plan, spec)
            _check_topology(plan, topo)
            out.update({f"{plan.component.name}.{col}": topo[col] for col in plan.component.topology_columns()})
            continue
        if plan.kind in KNOWN_KINDS:
            zero = {n: np.zeros(graph.node(n).numel, dtype=I64) for n in plan.nodes}
            topo = _known_columns(spec, plan, fan, zero)
        elif plan.kind in _MAT_KINDS:
            topo = _mat_kind_columns(spec, graph, plan, fan, None)[0]
        else:
            topo = _layout(spec, graph, plan, fan, None).topology
        _check_topology(plan, topo)
        name = plan.component.name
        out.update({f"{name}.{col}": topo[col] for col in plan.component.topology_columns()})
    for table in range_tables([p.component for p in plans]):  # "range<bits>": value[r] = r (RangeTableComponent)
        out[f"table.{table}.value"] = np.arange(1 << int(table[len("range"):]), dtype=I64)
    return out


def is_range(rel: str) -> bool:
    """Relations whose tables hold 0..rows - 1 (range8, range16, range<b>)."""
    return rel.startswith("range")


def _check_product(nid: int, got: np.ndarray, expect: np.ndarray) -> None:
    """A checked product's outputs must be the executor's exact values (a twin check)."""
    if not np.array_equal(got, expect):
        raise TraceError(f"MatMul node {nid}: trace disagrees with the fixed-point executor")


def _check_outputs(plan: ComponentPlan, rows: Rows, cols: dict[str, np.ndarray], values: dict[int, np.ndarray]) -> None:
    """The AIR's computation must reproduce the executor's exact values (a twin check)."""
    kind = "Dot" if plan.kind.startswith("Dot") else plan.kind
    key = {"Add": "out", "Mul": "out", "Mod": "r", "Recip": "out", "Sqrt": "out", "RecipSqrt": "out", "ExpErf": "y", "SumMaxReduce": "m", "Exp2": "y", "Log2": "y",
           "Sin": "y", "Contiguous": "v", "SumReduce": "acc", "MaxReduce": "m", "LessThan": "lt", "Dot": "out", "Relu": "out", "Exp": "y",
           "Erf": "y", "Gather": "out"}[kind]
    for nid, r0, count in rows.node_rows:
        got = cols[key][r0 : r0 + count]
        if plan.kind == "LessThan":
            got = got << plan.component.s
        if kind in ("SumReduce", "MaxReduce", "SumMaxReduce", "Dot"):
            got = got[rows.is_last[r0 : r0 + count].astype(bool)]
        if not np.array_equal(got, values[nid]):
            raise TraceError(f"{plan.kind} node {nid}: trace disagrees with the fixed-point executor")


def table_multiplicities(
    air: Any,
    plans: list[ComponentPlan],
    mains: list[dict[str, np.ndarray]],
    pre: dict[str, np.ndarray],
    s: int,
    strict: bool = True,
) -> list[dict[str, np.ndarray]]:
    """Count every range8 / function-table lookup made by the op components' LogUp entries.
    strict=False drops lookups of values that are not in a table instead of failing (what a
    dishonest prover would do; used to build forgery tests)."""
    counts: dict[str, np.ndarray] = {}
    for table_comp in air.components[len(plans):]:
        counts[table_comp.name] = np.zeros(1 << table_comp.log_size, dtype=I64)
    starts = {name: table_start(name[len("table."):], s) for name in counts if not is_range(name[len("table."):])}
    for plan, cols in zip(plans, mains):
        comp = plan.component
        n = comp.log_size

        # Counting needs no domain order: every column in row order, a mask `offset` rows away
        # as the column rotated (row r reads row r + offset, cyclically).
        def source(kind: str, key: str, offset: int, cols=cols, n=n, comp=comp) -> np.ndarray:
            if kind == "main":
                col = cols[key]
            elif kind == "pre":
                col = pre[key]
            elif kind == "sparse":
                col = _dense(comp.sparse_columns[key], 1 << n)
            elif kind == "selector":
                col = _dense({int(key): 1}, 1 << n)
            else:
                raise AssertionError(kind)
            rows = (np.asarray(col, dtype=I64) % P).astype(np.uint64)
            return np.roll(rows, -offset) if offset else rows

        ev = DomainEvaluator(comp, 1 << n, source)
        comp.evaluate(ev)
        for rel, mult, vals in ev.entries:
            if rel in (DATA, KNOWN, WEIGHTS, CHUNKS):
                continue
            m = mult.a.astype(I64) if isinstance(mult, BV) else np.full(1 << n, int(mult), dtype=I64)
            if is_range(rel):
                size = len(counts["table." + rel])
                v = vals[0].a.astype(I64)
                bad = (v >= size) & (m != 0)
                if strict and np.any(bad):
                    raise TraceError(f"{comp.name}: a range-checked value is out of range")
                keep = (m != 0) & ~bad
                counts["table." + rel] += np.bincount(v[keep], weights=m[keep], minlength=size).astype(I64)
            else:
                x = vals[0].a.astype(I64)
                x = np.where(x > P // 2, x - P, x) - starts[rel]
                inside = (x >= 0) & (x < len(counts[rel]))
                if strict and np.any(~inside & (m != 0)):
                    raise TraceError(f"{comp.name}: a looked-up input is outside the table")
                keep = inside & (m != 0)
                counts[rel] += np.bincount(x[keep], weights=m[keep], minlength=len(counts[rel])).astype(I64)
    return [{"multiplicity": counts[c.name]} for c in air.components[len(plans):]]


def table_columns(air: Any) -> list[dict[str, np.ndarray]]:
    """Row-order columns of each function table (the trees whose values the verifier knows, in the
    AIR's tree order), from the verifier's own definition."""
    return [
        {k: np.array(v, dtype=I64) for k, v in tree.known_values().items()}
        for tree in air.preprocessed
        if tree.known_values is not None
    ]


__all__ = ["build_spec", "main_columns", "topology_columns", "table_columns", "fanouts", "build_graph_air", "TraceError"]
