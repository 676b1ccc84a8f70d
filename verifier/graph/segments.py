"""A graph cut into segments (docs/segments.md): the statement of each part of a segmented proof,
derived by the verifier itself from the whole settings.bin and the cut points, never read from a
file. Verifier side, no numpy; the prover cuts its own graph to the same specs (prover/segments.py).

Cut points c_1 < ... < c_(n-1) split the node order: segment k owns the computing nodes with
index in [c_k, c_(k+1)) (c_0 = 0, c_n = the node count). A graph input belongs to the first segment
that reads it (the last one if none does); constants are copied into every segment that reads
them. A node read by a later segment than its owner is a boundary tensor: its owner commits it as a
boundary output, every later reader as a boundary input (both fingerprinted: components.py
FingerprintMixin). The graph's outputs are the outputs of the segments that own their nodes (a
constant's: the last segment)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import FormatError
from .spec import GraphSpec, InputSpec, NodeSpec, OutputSpec
from .training import is_training

MAX_SEGMENTS = 64


@dataclass
class Segment:
    index: int
    spec: GraphSpec
    nodes: list[int]  # the whole graph's node of each of the segment's nodes
    reads: list[int] = field(default_factory=list)  # whole nodes it reads from earlier segments (boundary inputs)
    writes: list[int] = field(default_factory=list)  # whole nodes later segments read (boundary outputs)


def check_segmentable(spec: GraphSpec) -> None:
    """FormatError unless `spec` can be cut (a concrete graph of public weights, values and outputs)."""
    if spec.is_template:
        raise FormatError("a segmented proof is of a concrete graph, not of a symbolic one")
    if spec.committed or spec.committed_inputs or any(out.committed for out in spec.outputs):
        raise FormatError("a segmented proof of committed weights, inputs or outputs is not supported")
    if is_training(spec):
        raise FormatError("a training step is proven whole, not in segments")


def cut_graph(spec: GraphSpec, cuts: list[int]) -> list[Segment]:
    """The segments of `spec` at `cuts` (FormatError naming the cut that does not fit)."""
    check_segmentable(spec)
    n_nodes, n = len(spec.nodes), len(cuts) + 1
    if n > MAX_SEGMENTS:
        raise FormatError(f"{n} segments: at most {MAX_SEGMENTS}")
    bounds = [0, *cuts, n_nodes]
    for k in range(n):
        if not bounds[k] < bounds[k + 1]:
            raise FormatError(f"cut points {cuts}: cut {k} at node {bounds[k + 1]} does not follow {bounds[k]} "
                              f"(strictly increasing, within the {n_nodes} nodes)")
    owner = [-1] * n_nodes  # -1: a constant (copied where read)
    for k in range(n):
        for i in range(bounds[k], bounds[k + 1]):
            if spec.nodes[i].op not in ("Input", "Constant"):
                owner[i] = k
    for k in range(n):
        if all(owner[i] != k for i in range(bounds[k], bounds[k + 1])):
            raise FormatError(f"cut points {cuts}: segment {k} (nodes {bounds[k]}..{bounds[k + 1] - 1}) computes nothing")
    for i, node in enumerate(spec.nodes):
        if node.op == "Input":
            readers = [owner[j] for j, other in enumerate(spec.nodes) if any(s == i for s, _, _ in other.srcs)]
            owner[i] = min(readers, default=n - 1)
    out_seg = [owner[out.node] if owner[out.node] >= 0 else n - 1 for out in spec.outputs]
    read_by: list[set[int]] = [set() for _ in range(n_nodes)]  # segments other than the owner reading a node
    for j, node in enumerate(spec.nodes):
        for s, _, _ in node.srcs:
            if owner[s] >= 0 and owner[s] != owner[j]:
                read_by[s].add(owner[j])
    return [_segment(spec, k, owner, read_by, out_seg) for k in range(n)]


def _segment(spec: GraphSpec, k: int, owner: list[int], read_by: list[set[int]], out_seg: list[int]) -> Segment:
    mine = {i for i, o in enumerate(owner) if o == k}
    used = set(mine)
    for i in mine:
        used.update(s for s, _, _ in spec.nodes[i].srcs)
    used.update(out.node for out, seg in zip(spec.outputs, out_seg) if seg == k)
    members = sorted(used)
    local = {w: i for i, w in enumerate(members)}
    nodes, inputs, reads = [], [], []
    for w in members:
        node = spec.nodes[w]
        if w in mine or node.op == "Constant":
            nodes.append(NodeSpec(node.op, node.shape, [(local[s], shape, steps) for s, shape, steps in node.srcs],
                                  node.axis, node.name, node.private, node.values, node.index, node.scale))
        else:  # a tensor an earlier segment wrote
            nodes.append(NodeSpec("Input", node.shape, [], None, _boundary_name(spec, w), True, None, node.index,
                                  spec.scale_of(w), committed=True, boundary=True))
            reads.append(w)
        if nodes[-1].op == "Input":
            inputs.append(InputSpec(_input_name(spec, w) if w in mine else _boundary_name(spec, w), local[w]))
    outputs = [OutputSpec(out.name, local[out.node], out.steps, out.shape, out.src_indices)
               for out, seg in zip(spec.outputs, out_seg) if seg == k]
    writes = sorted(w for w in mine if any(r > k for r in read_by[w]))
    for w in writes:
        size = spec.nodes[w].numel
        outputs.append(OutputSpec(_boundary_name(spec, w), local[w], (), spec.nodes[w].shape, range(size),  # (not built)
                                  committed=True, boundary=True))
    seg_spec = GraphSpec(spec.scale_bits, nodes, inputs, outputs)
    return Segment(k, seg_spec, members, reads, writes)


def _input_name(spec: GraphSpec, node: int) -> str:
    (name,) = [inp.name for inp in spec.inputs if inp.node == node]
    return name


def _boundary_name(spec: GraphSpec, node: int) -> str:
    """A boundary tensor's name: "node<i>", primed until no input or output of the graph has it."""
    taken = spec.__dict__.get("_names")  # (a derived cache, like the plan)
    if taken is None:
        taken = spec.__dict__["_names"] = {x.name for x in spec.inputs} | {x.name for x in spec.outputs}
    name = f"node{node}"
    while name in taken:
        name += "'"
    return name
