"""Where a segmented proof cuts its graph (docs/segments.md "How many segments"): segments of
about equal trace rows, each within one verifier's per-trace bounds. The cut itself is the
verifier's (verifier/graph/segments.cut_graph); this module only chooses the cut points."""

from __future__ import annotations

from itertools import pairwise
from math import prod

from ..verifier.graph.planner import plan_graph
from ..verifier.graph.segments import MAX_SEGMENTS, Segment, check_segmentable, cut_graph
from ..verifier.graph.spec import CONTRACT, REDUCE, GraphSpec, view_shape
from ..verifier.graph.topology import MAX_SPARSE_ENTRIES
from .stark.prove import ProverError


def node_cost(spec: GraphSpec, i: int) -> int:
    """About the trace rows node i costs (0 for inputs and constants)."""
    node = spec.nodes[i]
    if node.op in ("Input", "Constant"):
        return 0
    if node.op in REDUCE or node.op in CONTRACT:
        src = node.srcs[0]
        return prod(view_shape(src[1], src[2]))
    return node.numel


def choose_cuts(spec: GraphSpec, n: int) -> list[int]:
    """Cut points that split the computing nodes into `n` segments of about equal trace rows, more
    where a segment's topology would pass the verifier's per-trace bound (fit_cuts)."""
    return fit_cuts(spec, _even_cuts(spec, n))


def _even_cuts(spec: GraphSpec, n: int) -> list[int]:
    check_segmentable(spec)
    ops = [i for i in range(len(spec.nodes)) if node_cost(spec, i)]
    if not 1 <= n <= min(MAX_SEGMENTS, len(ops)):
        raise ProverError(f"{n} segments: this graph has {len(ops)} computing nodes (at most {MAX_SEGMENTS} segments)")
    costs = [node_cost(spec, i) for i in ops]
    total, acc, cuts, k = sum(costs), 0, [], 1
    for j, (i, c) in enumerate(zip(ops, costs)):
        # a cut before op j once the rows so far reach k / n of the total, leaving an op for each later segment
        if k < n and acc >= total * k / n and len(ops) - j >= n - k:
            cuts.append(i)
            k += 1
        acc += c
    while k < n:  # (the last ops: one segment each)
        cuts.append(ops[len(ops) - (n - k)])
        k += 1
    return sorted(set(cuts))


def fit_cuts(spec: GraphSpec, cuts: list[int]) -> list[int]:
    """`cuts` with every segment whose topology passes the verifier's per-trace bound
    (MAX_SPARSE_ENTRIES boundary rows: its AIR would be refused) split at its middle row until each
    fits; ProverError naming a node that alone passes it, or past MAX_SEGMENTS."""
    cuts = sorted(cuts)
    while True:
        bounds = [0, *cuts, len(spec.nodes)]
        over = [k for k, seg in enumerate(cut_graph(spec, cuts)) if plan_graph(seg.spec).boundary_bound > MAX_SPARSE_ENTRIES]
        if not over:
            return cuts
        for k in over:
            ops = [i for i in range(bounds[k], bounds[k + 1]) if node_cost(spec, i)]
            if len(ops) == 1:
                raise ProverError(f"node {ops[0]} ({spec.nodes[ops[0]].op} {spec.nodes[ops[0]].shape}) alone needs more "
                                  f"than {MAX_SPARSE_ENTRIES} boundary rows of topology: no segment can hold it")
            half, before, cut = sum(node_cost(spec, i) for i in ops) / 2, 0, ops[-1]
            for prev, i in pairwise(ops):  # the first op whose rows before it reach half
                before += node_cost(spec, prev)
                if before >= half:
                    cut = i
                    break
            cuts.append(cut)
        cuts.sort()
        if len(cuts) >= MAX_SEGMENTS:
            raise ProverError(f"this graph's topology needs more than {MAX_SEGMENTS} segments to fit the verifier's "
                              f"per-trace bound of {MAX_SPARSE_ENTRIES} boundary rows")


def provisional_segments(spec: GraphSpec) -> list[Segment]:
    """The fewest segments a verifier can build each of (fit_cuts): what gen_settings(whole=False)
    sizes a config for."""
    return cut_graph(spec, fit_cuts(spec, []))
