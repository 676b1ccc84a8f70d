"""Extraction for the search compiler: from the saturated e-graph, the equivalent graph of least
proving cost (search_cost.py), counting every shared tensor once (DAG cost, not tree cost).

It starts from the graph as it was (every e-class on its original e-node; classes that rules
made start on their cheapest e-node as a tree) and moves one e-class at a time to another
e-node while that lowers the cost: a move adds what the new e-node needs that nothing else
uses yet and drops what only the old one needed (reference counts), so a fusion whose intermediate
has other readers costs what it really costs. The first phase lowers the cost per row; the second
the cost with every component padded to powers of two. SearchCompiler keeps the input graph
unless the result's padded cost is lower."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from luminair.prover.graph import Graph, Op
from luminair.prover.graph.shape import prod
from luminair.verifier.graph.topology import KNOWN_LANES

from .search_cost import UNBOUNDED, cells_per_row, dot_lanes, padded_rows
from .search_facts import Encoding, raw_or_none

# An e-node: (kind, op name or None, ((class, view id), ...), axis or leaf id or None)
ENode = tuple[str, Any, tuple[tuple[int, int], ...], Any]

RED_COMPONENT = {"Sum": "SumReduce", "Max": "MaxReduce"}


@dataclass
class EGraphView:
    """The saturated e-graph as plain Python: classes, their e-nodes, the class of every node."""

    enodes: list[list[ENode]]
    class_of_node: dict[int, int]
    shapes: list[tuple[int, ...]] = field(default_factory=list)


def read_egraph(eg: Any, n_nodes: int) -> EGraphView:
    """Every e-node of the frozen egglog e-graph, by class (egglog bindings.EGraph)."""
    functions = eg.freeze().functions  # a fresh dict on every access: read it once
    ids: dict[Any, int] = {}

    def cls(v: Any) -> int:
        if v not in ids:
            ids[v] = len(ids)
        return ids[v]

    edges: dict[Any, tuple[int, int]] = {}
    for row in functions["V"].rows:
        edges[row.output] = (cls(row.inputs[0]), eg.value_to_i64(row.inputs[1]))
    raw: list[tuple[int, ENode]] = []
    for kind in ("Leaf", "Un", "Bin", "Red", "Dot", "DotB", "View"):
        for row in functions[kind].rows:
            if row.subsumed:
                continue
            a = row.inputs
            if kind == "Leaf":
                node: ENode = ("Leaf", None, (), eg.value_to_i64(a[0]))
            elif kind == "Un":
                node = ("Un", eg.value_to_string(a[0]), (edges[a[1]],), None)
            elif kind == "Bin":
                node = ("Bin", eg.value_to_string(a[0]), (edges[a[1]], edges[a[2]]), None)
            elif kind == "Red":
                node = ("Red", eg.value_to_string(a[0]), (edges[a[1]],), eg.value_to_i64(a[2]))
            elif kind == "Dot":
                node = ("Dot", None, (edges[a[0]], edges[a[1]]), eg.value_to_i64(a[2]))
            elif kind == "DotB":
                node = ("DotB", None, (edges[a[0]], edges[a[1]], edges[a[2]]), eg.value_to_i64(a[3]))
            else:
                node = ("View", None, ((cls(a[0]), eg.value_to_i64(a[1])),), None)
            raw.append((cls(row.output), node))
    class_of_node = {eg.value_to_i64(row.inputs[0]): cls(row.output) for row in functions["Of"].rows}
    if len(class_of_node) != n_nodes:  # pragma: no cover - every node was given its Of
        raise RuntimeError(f"search: {len(class_of_node)} of {n_nodes} nodes found in the e-graph")
    enodes: list[list[ENode]] = [[] for _ in range(len(ids))]
    for c, node in raw:
        enodes[c].append(node)
    return EGraphView(enodes, class_of_node)


def _shapes(egv: EGraphView, graph: Graph, enc: Encoding) -> list[tuple[int, ...]]:
    """The shape of every class, from any e-node whose inputs' shapes are known."""
    nodes = graph.nodes()
    shapes: list[tuple[int, ...] | None] = [None] * len(egv.enodes)
    for i, c in egv.class_of_node.items():
        shapes[c] = nodes[i].shape
    changed = True
    while changed:
        changed = False
        for c, ens in enumerate(egv.enodes):
            if shapes[c] is not None:
                continue
            for kind, _, edges, extra in ens:
                if kind == "Leaf":
                    shapes[c] = enc.constants[extra].value.shape if extra in enc.constants else nodes[extra].shape
                else:
                    s = _edge_shape(edges[0], shapes, enc)
                    if s is None:
                        continue
                    shapes[c] = s[:extra] + s[extra + 1:] if kind in ("Red", "Dot", "DotB") else s
                changed = True
                break
    if any(s is None for s in shapes):
        raise RuntimeError("search: an e-class has no e-node of known shape")
    return shapes  # type: ignore[return-value]


def _edge_shape(edge: tuple[int, int], shapes: list, enc: Encoding) -> tuple[int, ...] | None:
    c, w = edge
    return shapes[c] if w == 0 else enc.views[w].shape  # type: ignore[union-attr]


class CostModel:
    """Own cost (cells) of an e-node in a class of known shape."""

    def __init__(self, graph: Graph, egv: EGraphView, enc: Encoding):
        self.cells = cells_per_row(graph.numeric_format.scale_bits)
        self.nodes = graph.nodes()
        self.enc = enc
        self.shapes = egv.shapes
        self.bound = [UNBOUNDED] * len(egv.enodes)  # |raw| bound of a class holding a constant
        fmt = graph.numeric_format
        for c, ens in enumerate(egv.enodes):
            for kind, _, _, extra in ens:
                if kind != "Leaf":
                    continue
                if extra in enc.constants:
                    raw = enc.constants[extra].raw
                elif self.nodes[extra].op is Op.CONSTANT:
                    raw = raw_or_none(self.nodes[extra], fmt)
                else:
                    raw = None
                if raw is None:
                    continue
                self.bound[c] = int(abs(raw).max()) if raw.size else 0

    def component(self, c: int, node: ENode) -> tuple[str, int] | None:
        """The AIR component an e-node's rows go to, and how many rows (None: a view, no rows)."""
        kind, name, edges, extra = node
        numel = prod(self.shapes[c])
        if kind == "Leaf":
            n = self.nodes[extra] if extra < len(self.nodes) else None
            if n is not None and n.op is Op.INPUT and n.private:
                return "PrivateInput", numel
            return "Known", -(-numel // KNOWN_LANES)
        if kind == "View":
            return None
        if kind in ("Un", "Bin"):
            return name, numel
        in_shape = _edge_shape(edges[0], self.shapes, self.enc)
        if kind == "Red":
            return RED_COMPONENT[name], prod(in_shape)
        lanes = dot_lanes(in_shape[extra], self.bound[edges[0][0]], self.bound[edges[1][0]])
        return f"Dot{lanes}{'B' if kind == 'DotB' else ''}", prod(in_shape) // lanes

    def __call__(self, c: int, node: ENode) -> float:
        comp = self.component(c, node)
        return 0.0 if comp is None else comp[1] * self.cells[comp[0]]


@dataclass
class Extraction:
    chosen: list[int]  # class -> index of its e-node
    active: list[bool]  # class -> needed by the outputs
    cost_before: float
    cost_after: float
    moves: int


def _tree_best(egv: EGraphView, own: list[list[float]]) -> list[int]:
    """The e-node of least tree cost in every class: a worklist from the leaves up (a class is
    revisited only when one of its children got cheaper)."""
    n = len(egv.enodes)
    best = [math.inf] * n
    choice = [0] * n
    parents: list[list[int]] = [[] for _ in range(n)]
    for c, ens in enumerate(egv.enodes):
        for _, _, edges, _ in ens:
            for ch, _ in edges:
                parents[ch].append(c)
    work = deque(c for c, ens in enumerate(egv.enodes) if any(not e[2] for e in ens))
    queued = set(work)
    while work:
        c = work.popleft()
        queued.discard(c)
        for k, (_, _, edges, _) in enumerate(egv.enodes[c]):
            total = own[c][k] + sum(best[ch] for ch, _ in edges)
            if total < best[c]:
                best[c], choice[c] = total, k
                for p in parents[c]:
                    if p not in queued:
                        queued.add(p)
                        work.append(p)
    return choice


def _levels(enodes: list[list[ENode]], chosen: list[int]) -> list[int]:
    """1 + the longest path to a leaf through the chosen e-nodes, for every class (a strict
    topological labelling: every chosen edge goes to a lower level)."""
    level = [-1] * len(enodes)  # -1 unseen, -2 on the current path
    for root in range(len(enodes)):
        if level[root] >= 0:
            continue
        stack = [(root, False)]
        while stack:
            c, done = stack.pop()
            kids = [ch for ch, _ in enodes[c][chosen[c]][2]]
            if done:
                level[c] = 1 + max((level[ch] for ch in kids), default=0)
                continue
            if level[c] >= 0:
                continue
            if level[c] == -2:
                raise RuntimeError("search: the chosen e-nodes form a cycle")
            level[c] = -2
            stack.append((c, True))
            for ch in kids:
                if level[ch] == -2:
                    raise RuntimeError("search: the chosen e-nodes form a cycle")
                if level[ch] == -1:
                    stack.append((ch, False))
    return level


def extract(egv: EGraphView, graph: Graph, enc: Encoding, max_passes: int = 8) -> Extraction:
    """The cheapest graph found by single-class moves from the original graph (module docstring)."""
    egv.shapes = _shapes(egv, graph, enc)
    cost = CostModel(graph, egv, enc)
    enodes = egv.enodes
    own = [[cost(c, e) for e in ens] for c, ens in enumerate(enodes)]
    chosen = _tree_best(egv, own)
    for i, sig in enc.terms.items():  # the original graph: every class on the e-node it came from
        c = egv.class_of_node[i]
        want = sig_enode(sig, egv)
        for k, e in enumerate(enodes[c]):
            if e == want:
                chosen[c] = k
                break
    comp = [[cost.component(c, e) for e in ens] for c, ens in enumerate(enodes)]
    children = lambda c, k: [ch for ch, _ in enodes[c][k][2]]
    ref = [0] * len(enodes)
    rows: dict[str, int] = {}  # component -> rows of the active e-nodes
    roots = [egv.class_of_node[n.id] for n, _ in graph.outputs().values()]
    roots += [egv.class_of_node[n.id] for n in graph.inputs().values()]

    def count(x: int, sign: int) -> float:
        kr = comp[x][chosen[x]]
        if kr is not None:
            rows[kr[0]] = rows.get(kr[0], 0) + sign * kr[1]
        return sign * own[x][chosen[x]]

    def inc(c: int) -> float:
        delta, stack = 0.0, [c]
        while stack:
            x = stack.pop()
            ref[x] += 1
            if ref[x] == 1:
                delta += count(x, 1)
                stack.extend(children(x, chosen[x]))
        return delta

    def dec(c: int) -> float:
        delta, stack = 0.0, [c]
        while stack:
            x = stack.pop()
            ref[x] -= 1
            if ref[x] == 0:
                delta += count(x, -1)
                stack.extend(children(x, chosen[x]))
        return delta

    def padded() -> float:  # the components' cells once each is padded to whole powers of two
        return sum(cost.cells[kind] * padded_rows(n) for kind, n in rows.items() if n)

    total = sum(inc(r) for r in roots)
    before = padded()

    def switch(c: int, k: int) -> float:
        old = chosen[c]
        kr_old, kr_new = comp[c][old], comp[c][k]
        chosen[c] = k
        delta = own[c][k] - own[c][old]
        for kr, sign in ((kr_old, -1), (kr_new, 1)):
            if kr is not None:
                rows[kr[0]] = rows.get(kr[0], 0) + sign * kr[1]
        for ch in children(c, k):
            delta += inc(ch)
        chosen[c] = old  # the old e-node's children are released with the old choice in place
        for ch in children(c, old):
            delta += dec(ch)
        chosen[c] = k
        return delta

    # Two phases of single moves: the first lowers the unpadded cost (each fusion pays for itself
    # there); the second lowers the padded cost, what a proof commits, without raising either
    # (it undoes a move that only pushed a component over a power of two).
    candidates = [c for c, ens in enumerate(enodes) if len(ens) > 1]
    moves = 0
    for padded_phase in (False, True):
        current = padded()
        for _ in range(max_passes):
            improved = False
            # a move may only read classes of a lower level, so the chosen graph stays acyclic (a
            # move keeps the labelling valid; it is recomputed, tighter, every pass)
            level = _levels(enodes, chosen)
            for c in candidates:
                if ref[c] == 0:
                    continue
                for k in range(len(enodes[c])):
                    if k == chosen[c] or any(level[ch] >= level[c] for ch in children(c, k)):
                        continue
                    old = chosen[c]
                    delta = switch(c, k)
                    after = padded()
                    if padded_phase:
                        better = after < current - 0.5 or (after <= current + 0.5 and delta < -1e-9)
                    else:
                        better = delta < -1e-9
                    if better:
                        total += delta
                        current = after
                        moves += 1
                        improved = True
                    else:
                        switch(c, old)
            if not improved:
                break
    return Extraction(chosen, [r > 0 for r in ref], before, current, moves)


def sig_enode(sig: tuple, egv: EGraphView) -> ENode:
    """An original node's signature (search_facts.Encoding.terms) as an e-node of this e-graph."""
    kind = sig[0]
    cls = egv.class_of_node
    if kind == "Leaf":
        return ("Leaf", None, (), sig[1])
    if kind in ("Un", "Bin"):
        return (kind, sig[1], tuple((cls[s], w) for s, w in sig[2:]), None)
    if kind == "Red":
        return ("Red", sig[1], ((cls[sig[2][0]], sig[2][1]),), sig[3])
    return (kind, None, tuple((cls[s], w) for s, w in sig[1:-1]), sig[-1])
