"""A graph as egglog text for the search compiler: one ``(union (Of id) term)`` per node (a let
would make a table per node), and the facts the rules'
side conditions need (search_rules.py), computed here from the numbers and views."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from luminair.prover.graph import Graph, GroupOp, Node, Op, ShapeTracker
from luminair.prover.graph.errors import BoundsError
from luminair.prover.graph.execute import constant_raw
from luminair.prover.graph.hl_math import LOG2_E
from luminair.verifier.graph.topology import ViewError, affine_view, is_affine

UNARY = {Op.LOG2, Op.EXP2, Op.SIN, Op.SQRT, Op.RECIP, Op.CONTIGUOUS, Op.RELU, Op.EXP}
BINARY = {Op.ADD, Op.MUL, Op.MOD, Op.LESS_THAN}
REDUCE = {Op.SUM_REDUCE: "Sum", Op.MAX_REDUCE: "Max"}
OP_OF_NAME = {op.value: op for op in UNARY | BINARY} | {name: op for op, name in REDUCE.items()}


@dataclass
class NewConstant:
    """A constant a rule creates (a folded mask): float values and exact raw values."""

    value: np.ndarray
    raw: np.ndarray


@dataclass
class Encoding:
    text: str
    views: list[ShapeTracker | None]  # view id -> view (0: the identity)
    constants: dict[int, NewConstant] = field(default_factory=dict)  # leaf id >= len(graph) -> constant
    terms: dict[int, tuple] = field(default_factory=dict)  # node id -> its e-node, in source node ids


class _Views:
    def __init__(self) -> None:
        self.table: list[ShapeTracker | None] = [None]
        self.ids: dict[tuple, int] = {}

    def id(self, view: ShapeTracker) -> int:
        if not view.steps or view.is_identity():
            return 0
        key = view.key()
        if key not in self.ids:
            self.ids[key] = len(self.table)
            self.table.append(view)
        return self.ids[key]


def raw_or_none(node: Node, fmt) -> np.ndarray | None:
    """A constant's raw values; None where it has none in this format (out of range, or folded at
    another scale): the bounds pass reports that, naming the node, when the graph runs."""
    try:
        return constant_raw(node, fmt)
    except BoundsError:
        return None


def _pad_free(view: ShapeTracker) -> bool:
    try:
        return not affine_view(view.src_shape, view.steps).masked()
    except ViewError:
        return not view.reads_padding()


def _uniform(node: Node, fmt) -> tuple[float, int] | None:
    """(value, raw) of a constant whose elements are all one value; else None."""
    raw = raw_or_none(node, fmt) if node.op is Op.CONSTANT and node.numel else None
    if raw is None:
        return None
    value = node.value.reshape(-1)
    if np.all(raw == raw[0]) and np.all(value == value[0]):
        return float(value[0]), int(raw[0])
    return None


def _mask(node: Node, fmt) -> np.ndarray | None:
    """A constant of 0s and 1.0s (exactly, in float and in fixed point): its raw values; else None."""
    raw = raw_or_none(node, fmt) if node.op is Op.CONSTANT and node.numel else None
    if raw is None:
        return None
    value = node.value.reshape(-1)
    ones = raw == fmt.one
    if np.all(ones | (raw == 0)) and np.array_equal(value == 1.0, ones) and np.all((value == 0.0) | (value == 1.0)):
        return raw
    return None


def encode(graph: Graph) -> Encoding:
    """The graph as egglog lets and facts (views interned, constants made for the mask rule)."""
    fmt = graph.numeric_format
    views = _Views()
    lines: list[str] = []
    facts: list[str] = []
    enc = Encoding("", views.table)
    nodes = graph.nodes()

    def edge(src: Node, view: ShapeTracker) -> str:
        return f"(V (Of {src.id}) {views.id(view)})"

    for n in nodes:
        srcs = [(s.id, views.id(v)) for s, v in n.srcs]
        if n.op in GroupOp.SOURCE | GroupOp.OPAQUE:
            term, sig = f"(Leaf {n.id})", ("Leaf", n.id)
        elif n.op in UNARY:
            term, sig = f'(Un "{n.op.value}" {edge(*n.srcs[0])})', ("Un", n.op.value, *srcs)
        elif n.op in BINARY:
            term, sig = f'(Bin "{n.op.value}" {edge(*n.srcs[0])} {edge(*n.srcs[1])})', ("Bin", n.op.value, *srcs)
        elif n.op in REDUCE:
            term, sig = f'(Red "{REDUCE[n.op]}" {edge(*n.srcs[0])} {n.axis})', ("Red", REDUCE[n.op], *srcs, n.axis)
        elif n.op is Op.DOT:
            kind = "Dot" if len(n.srcs) == 2 else "DotB"
            term = f"({kind} {' '.join(edge(s, v) for s, v in n.srcs)} {n.axis})"
            sig = (kind, *srcs, n.axis)
        else:  # pragma: no cover - every op of ops.Op is listed above
            raise AssertionError(n.op)
        lines.append(f"(union (Of {n.id}) {term})")
        enc.terms[n.id] = sig
        if n.op is Op.CONSTANT:
            raw = raw_or_none(n, fmt)
            if raw is not None and not np.any(raw) and not np.any(n.value):
                facts.append(f"(Zero (Of {n.id}))")
            if np.all(n.value == LOG2_E - 1.0):
                facts.append(f"(Log2eM1 (Of {n.id}))")

    _dot_facts(nodes, views, facts)
    _bias_facts(nodes, views, facts)
    _mask_facts(graph, nodes, enc, facts)
    for w, view in enumerate(views.table):
        facts.append(f"(ViewId {w})")
        if view is None or _pad_free(view):
            facts.append(f"(PadFree {w})")
    enc.text = "\n".join(lines + facts) + "\n"
    return enc


def _dot_facts(nodes: list[Node], views: _Views, facts: list[str]) -> None:
    """Composed(u, w, r): a sum read through w of a product whose operands are read through u."""
    for n in nodes:
        if n.op is not Op.SUM_REDUCE:
            continue
        (mul, w), = n.srcs
        if mul.op is not Op.MUL or views.id(w) == 0:
            continue
        for _, u in mul.srcs:
            r = u.compose(w)
            if is_affine(r.src_shape, r.steps):
                facts.append(f"(Composed {views.id(u)} {views.id(w)} {views.id(r)})")


def _bias_facts(nodes: list[Node], views: _Views, facts: list[str]) -> None:
    """BiasView(w, vc, vb): an Add reads a value through w (only reshapes) and a bias through vc;
    vb reads that bias in the shape before w, without padding."""
    for n in nodes:
        if n.op is not Op.ADD:
            continue
        for k in (0, 1):
            (_, w), (_, vc) = n.srcs[k], n.srcs[1 - k]
            if not all(kind == "reshape" for kind, _ in w.steps):
                continue
            vb = vc.reshape(w.src_shape)
            if _pad_free(vb) and is_affine(vb.src_shape, vb.steps):
                facts.append(f"(BiasView {views.id(w)} {views.id(vc)} {views.id(vb)})")


def _mask_facts(graph: Graph, nodes: list[Node], enc: Encoding, facts: list[str]) -> None:
    """MaskScale(c, m, k): c is one value, m a 0/1 mask read by a product of a product by c; leaf
    k is the constant m scaled by c's value (exact: raw m is 0 or 2^s)."""
    fmt = graph.numeric_format
    made: dict[tuple[int, int], int] = {}
    for n in nodes:
        if n.op is not Op.MUL:
            continue
        for k in (0, 1):
            (p, vp), (m, _) = n.srcs[k], n.srcs[1 - k]
            if p.op is not Op.MUL or vp.steps or (m_raw := _mask(m, fmt)) is None:
                continue
            for c, _ in p.srcs:
                u = _uniform(c, fmt)
                if u is None or (c.id, m.id) in made:
                    continue
                value, raw = u
                leaf = len(nodes) + len(enc.constants)
                scaled_raw = (m_raw // fmt.one) * raw
                scaled = m.value * value
                enc.constants[leaf] = NewConstant(scaled, scaled_raw.reshape(m.shape))
                made[(c.id, m.id)] = leaf
                facts.append(f"(MaskScale (Of {c.id}) (Of {m.id}) {leaf})")
