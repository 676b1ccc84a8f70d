"""Reference executors: float64 (the real functions) and fixed point (exactly what the proof attests).

Both walk the nodes in topological order and return one flat row-major array per node id. The
fixed-point executor runs the bounds pass as it goes: every input, constant and node output must be
a 16-bit raw value, and every op must stay in its domain; otherwise a ``BoundsError`` names the
node, the element and the value, and suggests a remedy.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from luminair.verifier.numeric import VALUE_MAX, VALUE_MIN, MIN_SCALE_BITS, NumericError, NumericFormat, node_constant

from .errors import BoundsError, InputError
from .fixed import (
    DomainViolation,
    fx_add,
    fx_dot,
    fx_relu,
    fx_less_than,
    fx_mod,
    fx_mul,
    fx_recip,
    fx_sqrt,
    fx_table,
    out_of_range,
    quantize_floor,
)
from .node import Node
from .shape import prod
from .ops import TABLE_NAME, Op


# -- one node, float64 -------------------------------------------------------------------------

DOT_BLOCK = 1 << 22  # the most view elements a Dot evaluates at once (its temporaries: a few arrays that size)


def dot_value(node: Node, vals: Mapping[int, np.ndarray], kernel: Callable[..., np.ndarray]) -> np.ndarray:
    """A Dot's value, flat: ``kernel(a, b, shape)`` (the operands' products over ``shape`` summed
    over node.axis), in blocks of the view's first other axis (each a slice of both views) where
    the view passes DOT_BLOCK elements, so no view-sized array is made; then the bias. A block's
    DomainViolation names the element of the whole output."""
    (xs, xv), (ws, wv) = node.srcs[:2]
    shape = xv.shape
    split = next((i for i, d in enumerate(shape) if i != node.axis and d > 1), None)
    if split is None or prod(shape) <= DOT_BLOCK:
        out = kernel(xv.gather(vals[xs.id]), wv.gather(vals[ws.id]), shape)
    else:  # (the axes before `split` are 1 or reduced: each block is a run of the output)
        step = max(1, DOT_BLOCK * shape[split] // prod(shape))
        parts, done = [], 0
        for lo in range(0, shape[split], step):
            r = [(lo, min(lo + step, d)) if i == split else (0, d) for i, d in enumerate(shape)]
            a, b = xv.slice(r), wv.slice(r)
            try:
                parts.append(kernel(a.gather(vals[xs.id]), b.gather(vals[ws.id]), a.shape))
            except DomainViolation as v:
                raise DomainViolation(v.index + done, v.raw, v.reason, v.remedy) from None
            done += parts[-1].size
        out = np.concatenate(parts)
    if len(node.srcs) == 3:
        out = out + node.srcs[2][1].gather(vals[node.srcs[2][0].id])
    return out


def float_dot(axis: int) -> Callable[..., np.ndarray]:
    return lambda a, b, shape: (a * b).reshape(shape).sum(axis=axis).reshape(-1)



def eval_float(node: Node, args: list[np.ndarray]) -> np.ndarray:
    """The real function of ``node`` on its (already gathered, flat) float64 inputs."""
    op = node.op
    with np.errstate(all="ignore"):  # the float reference may produce inf/nan; the exact one raises
        if op is Op.LOG2:
            return np.log2(args[0])
        if op is Op.EXP2:
            return np.exp2(args[0])
        if op is Op.SIN:
            return np.sin(args[0])
        if op is Op.SQRT:
            return np.sqrt(args[0])
        if op is Op.RECIP:
            return 1.0 / args[0]
        if op is Op.ADD:
            return args[0] + args[1]
        if op is Op.MUL:
            return args[0] * args[1]
        if op is Op.MOD:
            return np.mod(args[0], args[1])
        if op is Op.LESS_THAN:
            return (args[0] < args[1]).astype(np.float64)
        if op is Op.SUM_REDUCE:
            return args[0].reshape(node.srcs[0][1].shape).sum(axis=node.axis).reshape(-1)
        if op is Op.MAX_REDUCE:
            return args[0].reshape(node.srcs[0][1].shape).max(axis=node.axis).reshape(-1)
        if op is Op.CONTIGUOUS:
            return args[0].copy()
        if op is Op.DOT:
            out = float_dot(node.axis)(args[0], args[1], node.srcs[0][1].shape)
            return out + args[2] if len(args) == 3 else out
        if op is Op.RELU:
            return np.maximum(args[0], 0.0)
        if op is Op.EXP:
            return np.exp(args[0])
        if op is Op.ERF:
            return np.vectorize(math.erf, otypes=[np.float64])(args[0])
        if op is Op.GATHER:
            return gather_rows(node, args[0], args[1])
    raise ValueError(f"{node.where()}: no float kernel for {op}")  # sources are handled by the walker


# -- one node, fixed point ---------------------------------------------------------------------


def eval_exact(node: Node, args: list[np.ndarray], s: int) -> np.ndarray:
    """The exact integer function of ``node`` on raw int64 inputs (may raise DomainViolation); ``s``
    is its constant (numeric.node_constant, ``exact_constant``: a product's rounding shift, a
    reciprocal's exponent, a table's scale)."""
    op = node.op
    if op in TABLE_NAME:
        return fx_table(TABLE_NAME[op], args[0], s)
    if op is Op.SQRT:
        return fx_sqrt(args[0], s)
    if op is Op.RECIP:
        return fx_recip(args[0], s)
    if op is Op.ADD:
        return fx_add(args[0], args[1])
    if op is Op.MUL:
        return fx_mul(args[0], args[1], s)
    if op is Op.MOD:
        return fx_mod(args[0], args[1])
    if op is Op.LESS_THAN:
        return fx_less_than(args[0], args[1], s)
    if op is Op.SUM_REDUCE:
        return args[0].reshape(node.srcs[0][1].shape).sum(axis=node.axis).reshape(-1)
    if op is Op.MAX_REDUCE:
        return args[0].reshape(node.srcs[0][1].shape).max(axis=node.axis).reshape(-1)
    if op is Op.CONTIGUOUS:
        return args[0].copy()
    if op is Op.DOT:  # with a bias: the exact Add of the rounded sum and the bias
        out = fx_dot(args[0], args[1], node.srcs[0][1].shape, node.axis, s)
        return out + args[2] if len(args) == 3 else out
    if op is Op.RELU:
        return fx_relu(args[0])
    if op is Op.GATHER:
        return gather_rows(node, args[0], args[1])
    raise ValueError(f"{node.where()}: no exact kernel for {op}")


def gather_rows(node: Node, table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Rows of a Gather's (V, d) table at its indices, flat (verifier.graph.spec.gather_rows)."""
    src = node.srcs[0][0]
    rows, width = src.shape
    idx = np.asarray(ids).astype(np.int64)
    bad = np.flatnonzero((idx < 0) | (idx >= rows))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{node.where()}: index {int(idx[i])} at element {i} is outside the table "
                          f"{src.name or src.id!r} ({rows} rows): indices are 0 <= index < {rows}")
    return table.reshape(rows, width)[idx].reshape(-1)


# -- scales ------------------------------------------------------------------------------------


def node_scale(node: Node, fmt: NumericFormat) -> int:
    """A node's scale: its own, or the graph's."""
    return fmt.scale_bits if node.scale is None else node.scale


def exact_constant(node: Node, fmt: NumericFormat) -> int:
    """numeric.node_constant of a node from its and its inputs' scales; BoundsError naming the node
    where the scales break a rule of the format."""
    try:
        return node_constant(node.op.value, [node_scale(src, fmt) for src, _ in node.srcs], node_scale(node, fmt),
                             fmt.scale_bits)
    except NumericError as e:
        raise BoundsError(f"{node.where()}: {e}") from None


# -- error messages ----------------------------------------------------------------------------


def _element(node_shape: tuple[int, ...], i: int) -> str:
    if len(node_shape) <= 1:
        return f"element {i}"
    return f"element {i} (index {tuple(int(v) for v in np.unravel_index(i, node_shape))})"


def _scale_that_fits(real: float, s: int) -> int | None:
    """The largest scale below ``s`` whose range holds ``real`` (None if none does)."""
    for t in range(s - 1, MIN_SCALE_BITS - 1, -1):
        if VALUE_MIN <= math.floor(real * (1 << t) + 0.5) <= VALUE_MAX:
            return t
    return None


def overflow_error(what: str, shape: tuple[int, ...], i: int, raw: float, fmt: NumericFormat,
                   scale: int | None = None) -> BoundsError:
    s = fmt.scale_bits if scale is None else scale
    real = raw / (1 << s)
    fit = _scale_that_fits(real, s) if math.isfinite(real) else None
    remedy = (
        f"use a smaller scale, e.g. Graph(scale_bits={fit}) (range +-{2 ** (15 - fit):g}), or scale "
        f"the inputs/weights down" if fit is not None else
        "scale the inputs/weights down (no scale of the format holds this value)"
    )
    raw_text = f"{int(raw)}" if math.isfinite(raw) and abs(raw) < 2**62 else f"{raw:g}"
    return BoundsError(
        f"{what}: raw value {raw_text} (= {real:g}) at {_element(shape, i)} is outside the 16-bit range "
        f"[{VALUE_MIN}, {VALUE_MAX}] (real [{VALUE_MIN / (1 << s):g}, {VALUE_MAX / (1 << s):g}] at scale 2^{s}). "
        f"Remedy: {remedy}."
    )


def domain_error(node: Node, v: DomainViolation, fmt: NumericFormat) -> BoundsError:
    in_shape = node.srcs[0][1].shape if node.srcs and node.op is not Op.DOT else node.shape  # Dot: per output
    one = 1 << (node_scale(node.srcs[0][0], fmt) if node.srcs else fmt.scale_bits)
    return BoundsError(
        f"{node.where()}: {v.reason}: input raw value {v.raw} (= {v.raw / one:g}) at "
        f"{_element(in_shape, v.index)}. Remedy: {v.remedy}."
    )


def check_range(what: str, shape: tuple[int, ...], raw: np.ndarray, fmt: NumericFormat, scale: int | None = None) -> None:
    bad = out_of_range(raw)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise overflow_error(what, shape, i, float(raw[i]), fmt, scale)


def quantize_checked(what: str, shape: tuple[int, ...], x: np.ndarray, fmt: NumericFormat,
                     scale: int | None = None) -> np.ndarray:
    """Real float64 array -> raw int64 (NumericFormat.quantize, vectorized, with the same checks)."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    finite = np.isfinite(x)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise BoundsError(f"{what}: {float(x[i])!r} at {_element(shape, i)} is not a finite number")
    q = quantize_floor(x, fmt.scale_bits if scale is None else scale)
    bad = (q < VALUE_MIN) | (q > VALUE_MAX)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise overflow_error(what, shape, i, float(q[i]), fmt, scale)
    return q.astype(np.int64)


def constant_raw(node: Node, fmt: NumericFormat) -> np.ndarray:
    """The raw values of a constant at its scale: its folded exact values, or its quantized float values."""
    s = node_scale(node, fmt)
    if node.raw is not None:
        if node.raw_scale != s:
            raise BoundsError(
                f"{node.where()}: this constant was folded in fixed point at scale 2^{node.raw_scale}, "
                f"but it now has scale 2^{s}. Remedy: set the numeric format "
                f"before compiling, or compile again from the uncompiled model."
            )
        return node.raw.reshape(-1)
    return quantize_checked(f"{node.where()} (quantized)", node.shape, node.value, fmt, s)


# -- whole graphs ------------------------------------------------------------------------------


def needed_nodes(nodes: list[Node], roots: Iterable[Node]) -> set[int]:
    """Ids of the nodes that ``roots`` depend on (including the roots)."""
    seen: set[int] = set()
    stack = [r for r in roots]
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        stack.extend(s for s, _ in n.srcs)
    return seen


def node_key(node: Node, exact: bool, src_id: Callable[[Node], int | None] = lambda s: s.id) -> tuple:
    """What an executor reads of a node besides its sources' values: op, sources (src_id, views),
    shape, axis, constant (read-only arrays: by identity), an input's id (its feed value), and for
    an exact run its scale and folded raw value. Names and origins only label errors."""
    key = (node.op, tuple((src_id(src), view) for src, view in node.srcs), node.shape, node.axis, node.index,
           id(node.value), node.id if node.op is Op.INPUT else None)
    return key + (node.scale, id(node.raw), node.raw_scale) if exact else key


class Reuse:
    """The values of an earlier run of the same kind, format and feed, taken again where a node reads
    the same as one of its nodes: the same node_key, its sources' values the same as those of that
    node's sources. A node computed anew whose value (and exact scale) equals an earlier node's
    counts as that node for its consumers (a rewrite's equal result, Dot(x, 1.0) for a sum). The
    earlier nodes must stay alive (their constants' ids are in the keys)."""

    def __init__(self, nodes: Sequence[Node], vals: Mapping[int, np.ndarray], exact: bool, fmt: NumericFormat | None):
        self.exact, self.fmt, self.vals, self.nodes = exact, fmt, vals, nodes
        self.index: dict[tuple, int] = {}
        for n in nodes:
            if n.id in vals:
                self.index.setdefault(node_key(n, exact), n.id)
        self.same: dict[int, int] = {}  # node id of this run -> earlier node id of the same value
        self._by_value: dict[tuple, list[int]] | None = None

    def get(self, node: Node) -> np.ndarray | None:
        if any(s.id not in self.same for s, _ in node.srcs):
            return None
        old = self.index.get(node_key(node, self.exact, lambda s: self.same[s.id]))
        if old is None:
            return None
        self.same[node.id] = old
        return self.vals[old]

    def computed(self, node: Node, value: np.ndarray) -> None:
        if self._by_value is None:
            self._by_value = {}
            for n in self.nodes:
                v = self.vals.get(n.id)
                if v is not None:
                    self._by_value.setdefault(self._value_key(n, v), []).append(n.id)
        for old in self._by_value.get(self._value_key(node, value), ()):
            if self.vals[old].tobytes() == value.tobytes():  # (bit for bit: -0.0 is not 0.0 here)
                self.same[node.id] = old
                return

    def _value_key(self, node: Node, v: np.ndarray) -> tuple:
        s = node_scale(node, self.fmt) if self.exact and self.fmt is not None else None
        return v.dtype.str, v.shape, s, hash(v.tobytes()) if v.size <= 64 else hash(v[:: max(1, v.size // 64)].tobytes())


def execute_float(
    nodes: list[Node], inputs: Mapping[int, np.ndarray], only: set[int] | None = None,
    reuse: Reuse | None = None, into: dict[int, np.ndarray] | None = None,
) -> dict[int, np.ndarray]:
    """float64 value (flat) of every node (or of the node ids in ``only``); ``reuse``: an earlier
    run's values where they are the same; ``into``: the dict to fill (it holds the values computed
    before an error)."""
    vals: dict[int, np.ndarray] = {} if into is None else into
    for node in nodes:
        if only is not None and node.id not in only:
            continue
        got = reuse.get(node) if reuse is not None else None
        if got is not None:
            vals[node.id] = got
            continue
        if node.op is Op.INPUT:
            vals[node.id] = np.asarray(inputs[node.id], dtype=np.float64).reshape(-1)
        elif node.op is Op.CONSTANT:
            vals[node.id] = node.value.reshape(-1)
        elif node.op is Op.DOT:
            with np.errstate(all="ignore"):
                vals[node.id] = dot_value(node, vals, float_dot(node.axis))
        else:
            args = [view.gather(vals[src.id]) for src, view in node.srcs]
            vals[node.id] = eval_float(node, args)
        if reuse is not None:
            reuse.computed(node, vals[node.id])
    return vals


def execute_exact(
    nodes: list[Node], inputs: Mapping[int, np.ndarray], fmt: NumericFormat, only: set[int] | None = None,
    reuse: Reuse | None = None, into: dict[int, np.ndarray] | None = None,
) -> dict[int, np.ndarray]:
    """Raw int64 value (flat) of every node (or of the ids in ``only``), with the bounds pass;
    ``reuse`` and ``into`` as for execute_float (an earlier run's values passed the same checks)."""
    vals: dict[int, np.ndarray] = {} if into is None else into
    for node in nodes:
        if only is not None and node.id not in only:
            continue
        got = reuse.get(node) if reuse is not None else None
        if got is not None:
            vals[node.id] = got
            continue
        s = node_scale(node, fmt)
        if node.op is Op.INPUT and node.index:
            out = np.asarray(inputs[node.id], dtype=np.int64).reshape(-1)  # integers (graph.index_array)
        elif node.op is Op.INPUT:
            out = quantize_checked(f"{node.where()} (quantized)", node.shape, inputs[node.id], fmt, s)
        elif node.op is Op.CONSTANT:
            out = constant_raw(node, fmt)
            check_range(node.where(), node.shape, out, fmt, s)
        else:
            c = exact_constant(node, fmt)
            try:
                if node.op is Op.DOT:
                    out = dot_value(node, vals, lambda a, b, shape, axis=node.axis, c=c: fx_dot(a, b, shape, axis, c))
                else:
                    out = eval_exact(node, [view.gather(vals[src.id]) for src, view in node.srcs], c)
            except DomainViolation as v:
                raise domain_error(node, v, fmt) from None
            check_range(node.where(), node.shape, out, fmt, s)
        vals[node.id] = out
        if reuse is not None:
            reuse.computed(node, out)
    return vals
