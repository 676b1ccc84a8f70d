"""Reverse-mode autograd on the graph: the gradient graph is built from the same primitive ops.

``grad(loss, params)`` walks the nodes that ``loss`` depends on in reverse topological order and
adds, for every primitive, the nodes of its vector-Jacobian product; views (reshape, permute,
expand, slice, pad) are undone by their adjoints (the inverse view, a SumReduce over broadcast
axes, a pad for a slice, a slice for a pad). High-level ops (matmul, softmax, log_softmax, ...) are
compositions of primitives, so their gradients come out of the primitive rules.

Conventions where the real function has no derivative: LessThan (and every comparison) has gradient
0; MaxReduce sends the gradient to every element equal to the maximum (a subgradient; ties are
rare in practice); Mod a % b has gradient 1 in a and -floor(a / b) in b.

In fixed point every rule is evaluated with the graph's rounding, so the gradient the proof attests
is the exact fixed-point value of this gradient graph (compare it to the float64 run of the same
graph for the real gradient).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .errors import GraphError
from .node import Node
from .ops import Op
from .shape import ShapeTracker
from .tensor import GraphTensor

LN_2 = math.log(2.0)
LOG2_E = 1.0 / LN_2


def grad(loss: GraphTensor, params: Sequence[GraphTensor], grad_output: Any = 1.0) -> list[GraphTensor]:
    """d(sum(grad_output * loss)) / d(param) for each param, as new tensors of the graph.

    ``params`` are inputs or constants (or any value of the graph read through the identity view);
    ``grad_output`` is the upstream gradient (a number, or a tensor of ``loss``'s shape): a number
    other than 1 scales every gradient (loss scaling). A param that ``loss`` does not depend on gets
    a zero gradient."""
    if not isinstance(loss, GraphTensor):
        raise GraphError(f"grad: loss must be a GraphTensor, got {type(loss).__name__}")
    cx = loss.graph
    targets: list[Node] = []
    for i, p in enumerate(params):
        if not isinstance(p, GraphTensor) or p.graph is not cx:
            raise GraphError(f"grad: parameter {i} is not a tensor of the loss's graph")
        if not p.view.is_identity():
            raise GraphError(f"grad: parameter {i} is a view ({p.view.describe()}); pass the tensor itself")
        targets.append(p.node)
    seed = grad_output if isinstance(grad_output, GraphTensor) else cx.constant(float(grad_output))
    seed = seed.broadcast_to(loss.shape)
    # gradient of the loss's node: the seed pushed back through the loss's own view
    grads: dict[int, GraphTensor] = {}
    _accumulate(grads, loss.node, view_adjoint(seed, loss.view))
    wanted = {n.id for n in targets}
    needed = _between(loss.node, wanted)
    for node in sorted((n for n in needed.values()), key=lambda n: n.id, reverse=True):
        g = grads.get(node.id)
        if g is None or node.op in (Op.INPUT, Op.CONSTANT):
            continue
        if node.op is Op.GATHER:
            raise GraphError(f"grad: {node.where()} is an embedding lookup; gradients through it are not supported")
        for k, (src, view) in enumerate(node.srcs):
            if src.id not in needed:
                continue
            gin = _vjp(cx, node, k, g)
            if gin is None:
                continue
            _accumulate(grads, src, view_adjoint(gin, view))
    out = []
    for p, n in zip(params, targets):
        g = grads.get(n.id)
        out.append(g if g is not None else cx.constant(np.zeros(p.shape)))
    return out


def _between(root: Node, wanted: set[int]) -> dict[int, Node]:
    """Nodes on some path from a wanted node to ``root`` (only they need gradients)."""
    order: list[Node] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        order.append(n)
        stack.extend(s for s, _ in n.srcs)
    reaches: dict[int, bool] = {}
    for n in sorted(order, key=lambda n: n.id):
        reaches[n.id] = n.id in wanted or any(reaches.get(s.id, False) for s, _ in n.srcs)
    return {n.id: n for n in order if reaches[n.id]}


def _accumulate(grads: dict[int, GraphTensor], node: Node, g: GraphTensor) -> None:
    if g.shape != node.shape:  # pragma: no cover - the adjoints keep shapes by construction
        raise GraphError(f"autograd: gradient of shape {g.shape} for {node.where()} of shape {node.shape}")
    prev = grads.get(node.id)
    grads[node.id] = g if prev is None else prev + g


def _operand(cx: Any, node: Node, k: int) -> GraphTensor:
    src, view = node.srcs[k]
    return GraphTensor(cx, src, view)


class _Product:
    """g * other, not yet built: when the operand was broadcast (a matmul's weight), the product is
    built with the broadcast axes last, so that its sum is a Mul read whole by a SumReduce (which
    the compiler fuses into one Dot) instead of a sum over a permuted view."""

    def __init__(self, a: GraphTensor, b: GraphTensor) -> None:
        self.a, self.b, self.shape = a, b, a.shape

    def build(self) -> GraphTensor:
        return self.a * self.b

    def summed(self, axes: tuple[int, ...], keep_shape: tuple[int, ...]) -> GraphTensor:
        kept = tuple(i for i in range(len(self.shape)) if i not in axes)
        n = 1
        for a in axes:
            n *= self.shape[a]
        flat = tuple(self.shape[i] for i in kept) + (n,)
        a = self.a.permute(kept + axes).reshape(flat)
        b = self.b.permute(kept + axes).reshape(flat)
        return (a * b).sum_reduce(len(flat) - 1).reshape(keep_shape)


def _vjp(cx: Any, node: Node, k: int, g: GraphTensor) -> GraphTensor | _Product | None:
    """The gradient with respect to operand k (in the operand's view shape), or None for zero."""
    op = node.op
    y = GraphTensor(cx, node, ShapeTracker(node.shape))
    x = _operand(cx, node, 0)
    if op is Op.ADD or op is Op.CONTIGUOUS:
        return g
    if op is Op.MUL:
        return _Product(g, _operand(cx, node, 1 - k))
    if op is Op.LESS_THAN:
        return None
    if op is Op.LOG2:  # d log2(x) = 1 / (x ln 2)
        return (g * LOG2_E) * x.recip()
    if op is Op.EXP2:  # d 2^x = 2^x ln 2
        return (g * y) * LN_2
    if op is Op.EXP:
        return g * y
    if op is Op.ERF:  # d erf(x) = 2/sqrt(pi) e^(-x^2)
        return (g * (2 / math.sqrt(math.pi))) * (x * x * -1.0).exp()
    if op is Op.SIN:  # d sin x = cos x = sin(x + pi/2)
        return g * (x + math.pi / 2).sin()
    if op is Op.SQRT:  # d sqrt(x) = 1 / (2 sqrt x)
        return (g * 0.5) * y.recip()
    if op is Op.RECIP:  # d (1/x) = -(1/x)^2
        return -(g * y) * y
    if op is Op.RELU:
        return g * (x._lift(0.0) < x)
    if op is Op.MOD:
        if k == 0:
            return g
        b = _operand(cx, node, 1)
        return (g * (y - x)) * b.recip()  # -floor(a / b) = (a % b - a) / b
    if op is Op.SUM_REDUCE:
        in_shape = node.srcs[0][1].shape
        return g.unsqueeze(node.axis).broadcast_to(in_shape)
    if op is Op.MAX_REDUCE:
        in_shape = node.srcs[0][1].shape
        top = y.unsqueeze(node.axis).broadcast_to(in_shape)
        hit = (x < top) < 0.5  # x == max (x <= max always holds)
        return g.unsqueeze(node.axis).broadcast_to(in_shape) * hit
    if op is Op.DOT:
        if k == 2:
            return g
        in_shape = node.srcs[0][1].shape
        return g.unsqueeze(node.axis).broadcast_to(in_shape) * _operand(cx, node, 1 - k)
    raise GraphError(f"autograd: no gradient rule for {node.where()}")


def _view_shapes(view: ShapeTracker) -> list[tuple[int, ...]]:
    """The shape before each step of the view (and the final shape last)."""
    shapes = [view.src_shape]
    t = ShapeTracker(view.src_shape)
    for kind, arg in view.steps:
        t = t.step(kind, arg)
        shapes.append(t.shape)
    return shapes


def view_adjoint(g: GraphTensor | _Product, view: ShapeTracker) -> GraphTensor:
    """The adjoint of reading a source through ``view``: each source element receives the sum of
    the gradients of the view elements that read it (padding receives nothing)."""
    shapes = _view_shapes(view)
    steps = list(zip(reversed(view.steps), reversed(shapes[:-1])))
    if isinstance(g, _Product):
        if steps and steps[0][0][0] == "expand":
            (_, arg), before = steps.pop(0)
            axes = tuple(i for i, (a, b) in enumerate(zip(before, arg)) if a != b)
            g = g.summed(axes, before) if axes else g.build()
        else:
            g = g.build()
    for (kind, arg), before in steps:
        if kind == "reshape":
            g = g.reshape(before)
        elif kind == "permute":
            inv = [0] * len(arg)
            for i, a in enumerate(arg):
                inv[a] = i
            g = g.permute(tuple(inv))
        elif kind == "expand":
            axes = tuple(i for i, (a, b) in enumerate(zip(before, arg)) if a != b)
            g = g.sum(axes, keepdims=True) if axes else g
        elif kind == "pad":
            g = g.slice([(a, d - b) for (a, b), d in zip(arg, g.shape)])
        elif kind == "slice":
            g = _unslice(g, arg, before)
        elif kind == "window":
            g = _unwindow(g, arg, before)
        else:  # pragma: no cover - ShapeTracker makes only these steps
            raise GraphError(f"autograd: unknown view step {kind!r}")
    return g


def _unwindow(g: GraphTensor, arg: tuple, before: tuple[int, ...]) -> GraphTensor:
    """Adjoint of a window step (axis -> (o, k)): window position j is a strided slice of the
    source axis starting at j dilation; the source receives the sum of the k slices' adjoints."""
    axis, k, stride, dilation = arg
    o = g.shape[axis]
    total = None
    for j in range(k):
        rng = [(0, s) for s in g.shape]
        rng[axis + 1] = (j, j + 1)
        gj = g.slice(rng).reshape(g.shape[: axis + 1] + g.shape[axis + 2 :])
        ranges = tuple((0, d, 1) if a != axis else (j * dilation, j * dilation + (o - 1) * stride + 1, stride)
                       for a, d in enumerate(before))
        part = _unslice(gj, ranges, before)
        total = part if total is None else total + part
    assert total is not None  # k >= 1 (window_shape)
    return total


def _unslice(g: GraphTensor, ranges: tuple, before: tuple[int, ...]) -> GraphTensor:
    """Adjoint of a slice: zeros everywhere except the sliced positions (strides through a
    reshape: each element followed by step - 1 zeros)."""
    for axis, ((a, b, c), d) in enumerate(zip(ranges, before)):
        n = g.shape[axis]
        if c > 1 and n > 0:
            # (.., n, ..) -> (.., n, 1, ..) -> pad to (.., n, c, ..) -> (.., n * c, ..)
            g = g.unsqueeze(axis + 1)
            pads = [(0, 0)] * g.ndim
            pads[axis + 1] = (0, c - 1)
            g = g.pad(pads)
            g = g.reshape(g.shape[:axis] + (n * c,) + g.shape[axis + 2 :])
            keep = min(n * c, d - a)
            rng = [(0, s) for s in g.shape]
            rng[axis] = (0, keep)
            g = g.slice(rng)
            n = keep
        pads = [(0, 0)] * g.ndim
        pads[axis] = (a, d - a - n)
        g = g.pad(pads)
    return g
