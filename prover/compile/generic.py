"""GenericCompiler: dead-node removal, constant folding, common-subexpression elimination and
arithmetic simplification, run to a fixed point.

Every rewrite preserves both executors' results exactly: folding computes the folded value in
float64 *and* in the exact integer domain (the constant keeps both), and each simplification rule
is an identity of the fixed-point op too (the rule's comment says why).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from luminair.prover.graph import Graph, GroupOp, Node, Op, ShapeTracker
from luminair.prover.graph.errors import BoundsError
from luminair.prover.graph.execute import constant_raw, eval_exact, eval_float, exact_constant
from luminair.prover.graph.fixed import DomainViolation, out_of_range, quantize_floor

from .base import Looped


class RemoveUnused:
    """Dead-node removal: drop nodes that no output needs (inputs stay: they are the interface)."""

    def compile(self, graph: Graph) -> bool:
        return graph.remove_unused()


# -- constant folding --------------------------------------------------------------------------------


class ConstantFold:
    """Replace an op whose sources are all constants by one constant.

    The float value comes from the float64 kernel and the raw value from the exact kernel, so
    ``run()`` and ``run(exact=True)`` give the same results before and after. A fold is skipped when
    the exact kernel fails (the error then still surfaces, naming the original node, at run time)
    or when it would store more constant data than its sources (an expanded scalar stays a scalar)."""

    def compile(self, graph: Graph) -> bool:
        fmt = graph.numeric_format

        def fold(node: Node) -> Any:
            if node.op in GroupOp.SOURCE or not node.srcs:
                return None
            if not all(src.op is Op.CONSTANT for src, _ in node.srcs):
                return None
            if node.numel > sum(src.numel for src, _ in node.srcs):
                return None
            try:
                raw_args = [view.gather(constant_raw(src, fmt)) for src, view in node.srcs]
                raw = eval_exact(node, raw_args, exact_constant(node, fmt))
            except (DomainViolation, BoundsError):
                return None
            if out_of_range(raw).any():
                return None
            value = eval_float(node, [view.gather(src.value.reshape(-1)) for src, view in node.srcs])
            if not np.isfinite(value).all():
                return None
            value = value.reshape(node.shape)
            value.flags.writeable = False
            raw = raw.reshape(node.shape)
            keep_raw = not np.array_equal(quantize_floor(value, fmt.scale_bits), raw)
            if keep_raw:
                raw = raw.copy()
                raw.flags.writeable = False
            const = graph.add_node(
                Op.CONSTANT, (), node.shape, value=value, raw=raw if keep_raw else None,
                raw_scale=fmt.scale_bits if keep_raw else None, origin=node.origin,
            )
            return const, ShapeTracker(node.shape)

        return graph.transform(fold)


# -- common-subexpression elimination ------------------------------------------------------------


def _key(node: Node) -> tuple | None:
    if node.op is Op.INPUT:
        return None  # every input is its own value
    if node.op is Op.CONSTANT:
        raw = None if node.raw is None else (node.raw.tobytes(), node.raw_scale)
        return (Op.CONSTANT, node.shape, node.name, node.value.tobytes(), raw)
    srcs = [(id(src), view.key()) for src, view in node.srcs]
    if node.op in GroupOp.COMMUTATIVE:
        srcs.sort(key=repr)
    return (node.op, node.shape, node.axis, tuple(srcs))


class CSE:
    """Merge nodes that compute the same op on the same sources through the same views (and equal
    constants); sources of commutative ops are compared as a set."""

    def compile(self, graph: Graph) -> bool:
        seen: dict[tuple, Node] = {}

        def merge(node: Node) -> Any:
            key = _key(node)
            if key is None:
                return None
            other = seen.get(key)
            if other is None:
                seen[key] = node
                return None
            return other, ShapeTracker(other.shape)

        return graph.transform(merge)


# -- arithmetic simplification -------------------------------------------------------------------


def _const_view(src: Node, view: ShapeTracker, fmt) -> tuple[np.ndarray, np.ndarray] | None:
    """(float values, raw values) a constant source presents through its view, or None."""
    if src.op is not Op.CONSTANT:
        return None
    try:
        raw = view.gather(constant_raw(src, fmt))
    except BoundsError:
        return None
    return view.gather(src.value.reshape(-1)), raw


def _all(src: Node, view: ShapeTracker, fmt, real: float) -> bool:
    """True if the constant source reads ``real`` everywhere, in float and exactly in fixed point."""
    if src.op is not Op.CONSTANT or not (src.value == real).any():
        return False  # the view reads source elements (and zeros): none is `real`, so False is safe
    cv = _const_view(src, view, fmt)
    if cv is None:
        return False
    value, raw = cv
    return bool((value == real).all() and (raw == int(real * fmt.one)).all())


def _negated(node: Node, fmt) -> tuple[Node, ShapeTracker] | None:
    """If node is Mul(y, -1), return y's (node, view)."""
    if node.op is not Op.MUL:
        return None
    for i in (0, 1):
        if _all(*node.srcs[1 - i], fmt, -1.0):
            return node.srcs[i]
    return None


class ArithmeticSimplify:
    """Identities that hold in float64 and in the fixed-point semantics of verifier/numeric.py."""

    def compile(self, graph: Graph) -> bool:
        fmt = graph.numeric_format

        def zeros(shape: tuple[int, ...]) -> tuple[Node, ShapeTracker]:
            z = graph.add_node(Op.CONSTANT, (), (), value=_ZERO)
            return z, ShapeTracker(()).reshape((1,) * len(shape)).expand(shape)

        def simplify(node: Node) -> Any:
            op, srcs = node.op, node.srcs
            # x read through Contiguous(y, v) == y read through v composed: drop the copy
            if any(s.op is Op.CONTIGUOUS for s, _ in srcs):
                new = tuple((s.srcs[0][0], s.srcs[0][1].compose(v)) if s.op is Op.CONTIGUOUS else (s, v)
                            for s, v in srcs)
                if op is Op.CONTIGUOUS:
                    return graph.add_node(Op.CONTIGUOUS, new, node.shape, origin=node.origin), \
                        ShapeTracker(node.shape)
                return graph.add_node(op, new, node.shape, axis=node.axis, origin=node.origin), \
                    ShapeTracker(node.shape)
            if op is Op.CONTIGUOUS and srcs[0][1].is_identity():
                return srcs[0]  # copying a whole node in order is the node
            if op is Op.ADD:
                for i in (0, 1):
                    if _all(*srcs[i], fmt, 0.0):
                        return srcs[1 - i]  # x + 0 = x
                for i in (0, 1):
                    y = _negated(srcs[i][0], fmt)
                    if y is not None:
                        inner = y[1].compose(srcs[i][1])
                        if srcs[1 - i][0] is y[0] and srcs[1 - i][1] == inner:
                            return zeros(node.shape)  # x + (-x) = 0 (negation is exact)
            if op is Op.MUL:
                for i in (0, 1):
                    if _all(*srcs[i], fmt, 1.0):
                        return srcs[1 - i]  # x * 1 = x: (a*2^s + 2^(s-1)) >> s = a
                for i in (0, 1):
                    if _all(*srcs[i], fmt, 0.0):
                        return zeros(node.shape)  # x * 0 = 0 (values are finite)
                for i in (0, 1):
                    if _all(*srcs[1 - i], fmt, -1.0):
                        y = _negated(srcs[i][0], fmt)
                        if y is not None:
                            return y[0], y[1].compose(srcs[i][1])  # -(-x) = x (negation is exact)
            if op in GroupOp.REDUCE and srcs[0][1].shape[node.axis] == 1:
                return srcs[0][0], srcs[0][1].reshape(node.shape)  # a reduction of one element is it
            if op is Op.LESS_THAN and srcs[0][0] is srcs[1][0] and srcs[0][1] == srcs[1][1]:
                return zeros(node.shape)  # x < x is false
            return None

        return graph.transform(simplify)


_ZERO = np.zeros(())
_ZERO.flags.writeable = False


class GenericCompiler(Looped):
    """Dead-node removal, constant folding, CSE and arithmetic simplification to a fixed point."""

    def __init__(self, max_rounds: int = 100):
        super().__init__(RemoveUnused(), ConstantFold(), ArithmeticSimplify(), CSE(), RemoveUnused(),
                         max_rounds=max_rounds)

    def __repr__(self) -> str:
        return "GenericCompiler()"
