"""FuseOpCompiler: primitive patterns rewritten into the fused AIR components that prove them with
far fewer trace cells (verifier/graph/components.py).

* Mul then SumReduce over the product (matmul, Gemm, linear, conv, a sum of squares) becomes one
  Dot node: the products are accumulated exactly as integers and rounded once per output element,
  instead of a rounding and a range check per product. This changes the fixed-point result (it is
  the exactly rounded sum, more accurate than the sum of rounded products): `run(exact=True)` after
  compiling gives the values a proof attests, and `verifier/numeric.op_dot` defines them.
* Dot + c (a bias, a residual: any third value of the output's shape) becomes a Dot with a third
  input, added to each rounded sum on its group's last row. Exact: it is the same integer Add.
* A Dot whose reduced length allows few lanes (27 for a 3x3 convolution of RGB input: one product a
  row), unless its weights are a constant the Freivalds check can take (verifier/graph/matmul.py,
  whose rows hold few lanes anyway), reads both operands padded with zeros to a multiple of 16 (a constant is re-laid out, a
  computed operand materialized once without its broadcast axes): exact, and 16 products a row.
* A weight matrix that a Dot reads many times, with its reduced axis strided, is re-laid out so
  that axis is contiguous: the Dot then reads 8 weights per lookup (topology.chunked_reads).
* exp as the high-level op builds it, exp2(x) * exp2(x (log2 e - 1)), becomes one Exp node: one
  lookup in a pinned e^x table (verifier/numeric.exp_entry, correctly rounded) instead of two
  lookups and two products (a rounding each): more accurate, so the fixed-point result changes.
* x * (0 < x) (relu) becomes one Relu node: one sign comparison instead of a LessThan row and a
  Mul row. Exact: the product by 1.0 or 0 is exact in fixed point, so results are unchanged.

A pattern fuses only when its intermediate values have no other reader and are not outputs.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from luminair.prover.graph import Graph, Node, Op, ShapeTracker
from luminair.prover.graph.execute import constant_raw
from luminair.prover.graph.hl_math import LOG2_E
from luminair.prover.graph.shape import prod
from luminair.verifier.fields import P
from luminair.verifier.graph import topology
from luminair.verifier.graph.matmul import freivalds_pays, known_weights_fit
from luminair.verifier.graph.topology import DOT_LANE_CHOICES, ViewError, affine_view
from luminair.verifier.numeric import DOT_ACC_BOUND, VALUE_BITS


def _is_zero(node: Node) -> bool:
    return node.op is Op.CONSTANT and not np.any(node.value) and (node.raw is None or not np.any(node.raw))


def _relu_source(node: Node, private: Callable[[Node], bool]) -> tuple[Node, ShapeTracker] | None:
    """For a Mul computing x * (0 < x), the (source, view) of x; else None."""
    if node.op is not Op.MUL:
        return None
    for k in (0, 1):
        (x, vx), (lt, vlt) = node.srcs[k], node.srcs[1 - k]
        if lt.op is not Op.LESS_THAN or not vlt.is_identity() or not private(lt):
            continue
        (zero, _), (x2, vx2) = lt.srcs
        if _is_zero(zero) and x2 is x and vx2 == vx:
            return x, vx
    return None


def _exp_source(node: Node, private: Callable[[Node], bool]) -> tuple[Node, ShapeTracker] | None:
    """For a Mul computing exp2(x) * exp2(x * (log2 e - 1)) (hl_math.exp), the (source, view) of x."""
    if node.op is not Op.MUL or not all(v.is_identity() for _, v in node.srcs):
        return None
    for k in (0, 1):
        e1, e2 = node.srcs[k][0], node.srcs[1 - k][0]
        if e1.op is not Op.EXP2 or e2.op is not Op.EXP2 or not (private(e1) and private(e2)):
            continue
        (x, vx), = e1.srcs
        (m, vm), = e2.srcs
        if m.op is not Op.MUL or not vm.is_identity() or not private(m):
            continue
        for j in (0, 1):
            (x2, vx2), (c, _) = m.srcs[j], m.srcs[1 - j]
            if x2 is x and vx2 == vx and c.op is Op.CONSTANT and np.all(c.value == LOG2_E - 1.0):
                return x, vx
    return None


def _fusable(graph: Graph) -> set[int]:
    """Ids of the nodes that end a fusable pattern: a SumReduce of a Mul nothing else reads
    (identity view), a Mul computing x * (0 < x) whose comparison nothing else reads, an Add of a
    Dot nothing else reads, and a Dot to pad or whose weights to re-lay out."""
    consumers = graph.consumers()
    outputs = {node.id for node, _ in graph.outputs().values()}

    def private(n: Node) -> bool:  # an intermediate value only its one consumer sees
        return n.id not in outputs and len(consumers[n.id]) == 1

    out = set()
    for node in graph.nodes():
        if node.op is Op.SUM_REDUCE:
            (mul, view), = node.srcs
            if mul.op is Op.MUL and view.is_identity() and private(mul):
                out.add(node.id)
        elif (_relu_source(node, private) is not None or _bias_dot(node, private) is not None
              or _exp_source(node, private) is not None):
            out.add(node.id)
        elif node.op is Op.DOT and (_padded_length(graph, node) is not None or _relayout(node, private)):
            out.add(node.id)
    return out


def _relayout(dot: Node, private: Callable[[Node], bool]) -> bool:
    """Whether a Dot's weights (a constant only it reads, in enough rows for whole-row reads,
    topology.CHUNK_MIN_ROWS) should be re-laid out so that the reduced axis is contiguous: the
    Dot then reads 8 weights per lookup instead of one."""
    w, view = dot.srcs[1]
    if w.op is not Op.CONSTANT or not private(w) or dot.axis != len(view.shape) - 1:
        return False
    try:
        v = affine_view(view.src_shape, view.steps)
    except ViewError:
        return False
    return v.strides[dot.axis] != 1 and not v.masked() and prod(view.shape) // PAD_LANES >= topology.CHUNK_MIN_ROWS


PAD_LANES = 16


def _operand_bound(graph: Graph, node: Node) -> int:
    """max |raw value| of a Dot operand (topology.operand_bound's twin on the prover's graph)."""
    if node.op is Op.CONSTANT:
        raw = constant_raw(node, graph.numeric_format)
        return int(np.abs(raw).max()) if raw.size else 0
    return 1 << (VALUE_BITS - 1)


def _freivalds_serves(graph: Graph, dot: Node, k: int) -> bool:
    """Whether the verifier will prove this Dot, padded, with the Freivalds check (graph/matmul.py:
    constant weights within its bound, fewer cells than a Dot of PAD_LANES lanes)."""
    for w in (1, 0):
        src, view = dot.srcs[w]
        if src.op is not Op.CONSTANT or not known_weights_fit(k, _operand_bound(graph, src)):
            continue
        other = dot.srcs[1 - w][1]
        try:
            wv, av = affine_view(view.src_shape, view.steps), affine_view(other.src_shape, other.steps)
        except ViewError:
            return False
        rest = [d for d in range(len(av.sizes)) if d != dot.axis]
        m = prod([av.sizes[d] for d in rest if wv.strides[d] == 0])
        return freivalds_pays(m, prod([av.sizes[d] for d in rest]) // m, k, PAD_LANES)
    return False


def _padded_length(graph: Graph, dot: Node) -> int | None:
    """The reduced length a Dot should be padded to (a multiple of PAD_LANES) when that at least
    halves its rows and the weights' bound allows PAD_LANES products a row; else None."""
    k = dot.srcs[0][1].shape[dot.axis]
    if k % PAD_LANES == 0 or k <= PAD_LANES // 2:
        return None
    if _freivalds_serves(graph, dot, k):
        return None  # rows of few lanes there (graph/matmul.py): padding would only add a copy
    bound = _operand_bound(graph, dot.srcs[0][0]) * _operand_bound(graph, dot.srcs[1][0])
    if PAD_LANES * bound >= P - 2 * DOT_ACC_BOUND:
        return None
    lanes = next(n for n in DOT_LANE_CHOICES if k % n == 0)
    padded = -(-k // PAD_LANES) * PAD_LANES
    if 2 * (padded // PAD_LANES) > k // lanes:
        return None
    for _, view in dot.srcs[:2]:  # padding already inside the reduced axis would need masks
        try:
            v = affine_view(view.src_shape, view.steps)
        except ViewError:
            return None
        if v.masks[dot.axis] != (0, k):
            return None
    return padded


def _pad_operand(graph: Graph, src: Node, view: ShapeTracker, axis: int, length: int) -> tuple[Node, ShapeTracker]:
    """The operand read with its reduced axis zero-padded to `length`: the view without its
    broadcast axes (cut to one element), padded, as a new constant or a Contiguous node, read back
    through an expand."""
    v = affine_view(view.src_shape, view.steps)
    core = view.slice([(0, 1 if s == 0 and d > 1 and i != axis else d) for i, (d, s) in enumerate(zip(v.sizes, v.strides))])
    pads = [(0, 0)] * len(view.shape)
    pads[axis] = (0, length - view.shape[axis])
    core = core.pad(pads)
    if src.op is Op.CONSTANT:
        fmt = graph.numeric_format
        value = core.gather(src.value.reshape(-1)).reshape(core.shape)
        raw = core.gather(constant_raw(src, fmt)).reshape(core.shape)
        node = graph.add_node(Op.CONSTANT, [], core.shape, value=value, raw=raw, raw_scale=fmt.scale_bits,
                              name=src.name, origin=src.origin)
    else:
        node = graph.add_node(Op.CONTIGUOUS, [(src, core)], core.shape, origin=src.origin)
    full = tuple(length if i == axis else d for i, d in enumerate(view.shape))
    return node, ShapeTracker(core.shape).expand(full)


def _bias_dot(node: Node, private: Callable[[Node], bool]) -> int | None:
    """For an Add of a two-input Dot (read unchanged or only reshaped, nothing else reads it) and a
    value read through an unpadded view, the position (0 or 1) of the Dot among the Add's inputs."""
    if node.op is not Op.ADD:
        return None
    for k in (0, 1):
        (dot, view), (_, bias_view) = node.srcs[k], node.srcs[1 - k]
        if dot.op is not Op.DOT or len(dot.srcs) != 2 or not private(dot):
            continue
        if all(kind == "reshape" for kind, _ in view.steps) and _unpadded(bias_view.reshape(dot.shape)):
            return k
    return None


def _unpadded(view: ShapeTracker) -> bool:
    try:
        return not affine_view(view.src_shape, view.steps).masked()
    except ViewError:
        return False


class FuseOpCompiler:
    """Rewrites primitive patterns into fused ops (see the module docstring); run to a fixed point."""

    def __init__(self, max_rounds: int = 1000):
        self.max_rounds = max_rounds
        self.fused: dict[str, int] = {}

    def compile(self, graph: Graph) -> bool:
        changed = self._composites(graph)
        for _ in range(self.max_rounds):
            if not self._round(graph):
                break
            changed = True
        return changed

    def _composites(self, graph: Graph) -> bool:
        """Marked composites (Graph.mark_composite): the value `out`, a chain of primitives that
        computes erf(x), becomes one Erf node reading x (a correctly rounded table lookup: like Exp,
        more accurate than the chain, so the fixed-point results change)."""
        targets = {}
        for kind, x, out in graph.composites():
            if kind == "Erf" and out.view.is_identity() and tuple(x.shape) == tuple(out.node.shape):
                targets[out.node] = (x, out)
        if not targets:
            return False

        def rewrite(node: Node, old: Node, mapping: dict) -> Any:
            if old not in targets or old.op in (Op.INPUT, Op.CONSTANT):
                return None
            x, out = targets[old]
            xn, xv = mapping[x.node]
            erf = graph.add_node(Op.ERF, [(xn, xv.compose(x.view))], old.shape, name=old.name, origin=old.origin)
            self.fused["Erf"] = self.fused.get("Erf", 0) + 1
            graph.drop_composite(out)
            return erf, ShapeTracker(erf.shape)

        changed = graph.transform(rewrite, context=True)
        graph.remove_unused()
        return changed

    def _round(self, graph: Graph) -> bool:
        fusable = _fusable(graph)
        if not fusable:
            return False
        old = graph.nodes()

        def fuse(node: Node) -> Any:
            # only nodes whose inputs this pass left untouched: the consumer counts are the old graph's
            if node.id not in fusable or node.id >= len(old) or old[node.id] is not node:
                return None
            if node.op is Op.ADD:  # a bias; the consumer check was made by _fusable
                k = _bias_dot(node, lambda _n: True)
                assert k is not None
                dot = node.srcs[k][0]
                bias_src, bias_view = node.srcs[1 - k]
                fused = graph.add_node(  # the bias is read in the Dot's own shape (a conv's is reshaped)
                    Op.DOT, [*dot.srcs, (bias_src, bias_view.reshape(dot.shape))], dot.shape, axis=dot.axis,
                    name=node.name, origin=node.origin,
                )
                self.fused["Dot+bias"] = self.fused.get("Dot+bias", 0) + 1
                return fused, ShapeTracker(fused.shape).reshape(node.shape)
            if node.op is Op.DOT and _padded_length(graph, node) is None:  # weights re-laid out
                w, view = node.srcs[1]
                srcs = [node.srcs[0], _pad_operand(graph, w, view, node.axis, view.shape[node.axis]), *node.srcs[2:]]
                out = graph.add_node(Op.DOT, srcs, node.shape, axis=node.axis, name=node.name, origin=node.origin)
                self.fused["Dot weights re-laid out"] = self.fused.get("Dot weights re-laid out", 0) + 1
                return out, ShapeTracker(out.shape)
            if node.op is Op.DOT:  # a reduced length padded to whole rows of lanes
                length = _padded_length(graph, node)
                assert length is not None
                srcs = [_pad_operand(graph, s, v, node.axis, length) for s, v in node.srcs[:2]] + list(node.srcs[2:])
                padded = graph.add_node(Op.DOT, srcs, node.shape, axis=node.axis, name=node.name, origin=node.origin)
                self.fused["Dot padded"] = self.fused.get("Dot padded", 0) + 1
                return padded, ShapeTracker(padded.shape)
            exp = _exp_source(node, lambda _n: True) if node.op is Op.MUL else None
            if exp is not None:  # exp; the consumer checks were made by _fusable
                fused_exp = graph.add_node(Op.EXP, [exp], node.shape, name=node.name, origin=node.origin)
                self.fused["Exp"] = self.fused.get("Exp", 0) + 1
                return fused_exp, ShapeTracker(fused_exp.shape)
            if node.op is Op.MUL:  # relu; the consumer check was made by _fusable
                x, vx = _relu_source(node, lambda _n: True)  # type: ignore[misc]
                relu = graph.add_node(Op.RELU, [(x, vx)], node.shape, name=node.name, origin=node.origin)
                self.fused["Relu"] = self.fused.get("Relu", 0) + 1
                return relu, ShapeTracker(relu.shape)
            (mul, _), = node.srcs
            srcs = list(mul.srcs)
            if srcs[0][0].op is Op.CONSTANT and srcs[1][0].op is not Op.CONSTANT:
                srcs.reverse()  # weights second: a*b = b*a exactly, in float and in fixed point
            dot = graph.add_node(Op.DOT, srcs, node.shape, axis=node.axis, name=node.name, origin=node.origin)
            self.fused["Dot"] = self.fused.get("Dot", 0) + 1
            return dot, ShapeTracker(dot.shape)

        changed = graph.transform(fuse)
        graph.remove_unused()
        return changed

    def __repr__(self) -> str:
        return "FuseOpCompiler()"
