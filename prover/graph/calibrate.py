"""Calibration of the global fixed-point scale from sample inputs (as EZKL's `calibrate_settings`
chooses its scales): the largest scale 2^s, s in [MIN_SCALE_BITS, MAX_SCALE_BITS], at which every
node's exact fixed-point value over every sample stays within the 16-bit range with `headroom_bits`
to spare (|raw| < 2^(15 - headroom_bits): inputs a little past the samples still fit). A node that
no input reaches (a constant, a mask folded from constants) is the same for every input: it needs
only to fit, with no headroom. A larger scale is a finer resolution: the most accurate format the
samples allow."""

from __future__ import annotations

import math

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from luminair.verifier.numeric import (
    DOT_ACC_BOUND, MAX_NODE_SCALE, MAX_RECIP_EXPONENT, MAX_SCALE_BITS, MAX_SHIFT, MIN_NODE_SCALE, MIN_SCALE_BITS,
    TABLE_OPS, VALUE_BITS, NumericError, NumericFormat,
)

from . import execute as ex
from .errors import BoundsError
from .ops import Op

if TYPE_CHECKING:
    from .graph import Graph

DEFAULT_HEADROOM_BITS = 1


@dataclass(frozen=True)
class Calibration:
    scale_bits: int
    headroom_bits: int
    samples: int
    peak_raw: int  # the largest |raw value| of any node over the samples at the chosen scale
    peak_node: str  # where it is

    def as_dict(self) -> dict[str, Any]:
        return {"scale_bits": self.scale_bits, "headroom_bits": self.headroom_bits, "samples": self.samples,
                "peak_raw": self.peak_raw, "peak_node": self.peak_node}


def _input_dependent(graph: Graph) -> set[int]:
    """Ids of the nodes that some input reaches."""
    reached: set[int] = set()
    for node in graph.nodes():  # topological
        if node.op is Op.INPUT or any(src.id in reached for src, _ in node.srcs):
            reached.add(node.id)
    return reached


def _peak(graph: Graph, samples: Sequence[Mapping[str, Any]], fmt: NumericFormat) -> tuple[int, str]:
    """The largest |raw| of any input-dependent node over the samples at fmt, and the node;
    NumericError where a value leaves the range or an op its domain."""
    best, where = 0, ""
    varying = _input_dependent(graph)
    for sample in samples:
        vals = ex.execute_exact(graph.nodes(), graph._check_inputs(sample), fmt)
        for node in graph.nodes():
            v = vals[node.id]
            if v.size and not node.index and node.id in varying:
                m = int(np.abs(v).max())
                if m > best:
                    best, where = m, node.where()
    return best, where


def calibrate(graph: Graph, samples: Sequence[Mapping[str, Any]], headroom_bits: int = DEFAULT_HEADROOM_BITS) -> Calibration:
    """The largest scale whose exact runs of the samples fit with headroom (see the module
    docstring); sets graph.numeric_format to it. Raises NumericError naming the node, element and
    value (and this calibration) where no scale holds the samples."""
    if not samples:
        raise ValueError("calibrate needs at least one sample input")
    if not 0 <= headroom_bits < VALUE_BITS - 1:
        raise ValueError(f"headroom_bits must be in [0, {VALUE_BITS - 2}], got {headroom_bits}")
    limit = 1 << (VALUE_BITS - 1 - headroom_bits)
    last: Exception | None = None
    for s in range(MAX_SCALE_BITS, MIN_SCALE_BITS - 1, -1):
        fmt = NumericFormat(s)
        try:
            peak, where = _peak(graph, samples, fmt)
        except NumericError as e:
            last = e
            continue
        if peak < limit:
            graph.numeric_format = fmt
            return Calibration(s, headroom_bits, len(samples), peak, where)
        last = NumericError(f"{where}: raw value {peak} leaves less than {headroom_bits} bit(s) of headroom")
    raise NumericError(f"calibration over {len(samples)} sample(s), headroom {headroom_bits} bit(s): no scale "
                       f"2^{MIN_SCALE_BITS}..2^{MAX_SCALE_BITS} holds them; at 2^{MIN_SCALE_BITS}: {last}")


# -- a scale per tensor -----------------------------------------------------------------------------
#
# calibrate_tensors gives every node its own scale (verifier/numeric.node_constant states the rules):
#  1. a sum whose total needs a coarser scale than its terms becomes a Dot with 1.0 (raw 1 at 2^0),
#     which rounds once (SumReduce keeps one scale: the terms would take the total's);
#  2. the nodes an exact op joins (its inputs and output), and all the function tables' inputs and
#     outputs (one scale, the graph's), form classes of one scale each;
#  3. each class takes the largest scale at which every member's peak |value| over the samples (float64
#     run) fits with `headroom_bits` (constants: without headroom; a comparison's 0/1 at most 2^14);
#  4. the products' rules (a shift in [1, 14], a Dot's accumulator, Recip's and Sqrt's exponents) lower
#     a class by one bit at a time until every node fits them;
#  5. the exact run of every sample is checked at the scales chosen: a value that leaves the range
#     lowers its class too (rounding can exceed the float peak), until all fit.

TENSOR_HEADROOM_BITS = 0.5
_VALUE_LIMIT = 1 << (VALUE_BITS - 1)
VALUE_MAX_REAL = _VALUE_LIMIT - 1


@dataclass(frozen=True)
class TensorCalibration:
    scales: dict[int, int]  # node id -> scale, after calibration
    graph_scale: int  # the function tables' scale (the graph's numeric format)
    headroom_bits: float
    samples: int
    sums_as_dots: int  # SumReduce nodes rewritten into Dots with 1.0 (step 1)

    @property
    def scale_bits(self) -> int:  # (the global calibration's field: the format's scale)
        return self.graph_scale

    def histogram(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for s in self.scales.values():
            out[s] = out.get(s, 0) + 1
        return dict(sorted(out.items()))

    def as_dict(self) -> dict[str, Any]:
        return {"per_tensor": True, "scale_bits": self.graph_scale, "headroom_bits": self.headroom_bits,
                "samples": self.samples, "scales": {str(s): n for s, n in self.histogram().items()},
                "sums_as_dots": self.sums_as_dots}


class _Classes:
    """Union-find over node ids."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _fit_scale(peak: float, headroom: float, cap: int = MAX_NODE_SCALE) -> int:
    """The largest scale s <= cap with round(peak 2^s) below the range's bound 2^(15 - headroom)."""
    limit = math.floor(_VALUE_LIMIT * 2.0 ** -headroom) - 1
    for s in range(cap, MIN_NODE_SCALE - 1, -1):
        if peak * (1 << s) + 0.5 <= limit:
            return s
    return MIN_NODE_SCALE - 1  # (no scale: reported by the caller)


def _peaks(graph: Graph, samples: Sequence[Mapping[str, Any]], dots: bool = True,
           at: dict[int, tuple[int, int]] | None = None) -> tuple[dict[int, float], dict[int, float]]:
    """Per node the largest |float64 value| over the samples (and in `at`: which sample and flat
    element holds it), and (with `dots`) per Dot the largest |partial sum| of its products (what its
    accumulator holds)."""
    peaks: dict[int, float] = {}
    acc: dict[int, float] = {}
    for k, sample in enumerate(samples):
        vals = graph.run_nodes(graph._check_inputs(sample), exact=False)
        for node in graph.nodes():
            v = vals[node.id]
            if node.index:
                continue
            m = float(np.abs(v).max()) if v.size else 0.0
            if not np.isfinite(m):
                raise NumericError(f"calibration: {node.where()} is not finite on a sample ({m})")
            if at is not None and (node.id not in peaks or m > peaks[node.id]):
                at[node.id] = (k, int(np.argmax(np.abs(v))) if v.size else 0)
            peaks[node.id] = max(peaks.get(node.id, 0.0), m)
            if dots and node.op is Op.DOT:
                a, b = (view.gather(vals[src.id]) for src, view in node.srcs[:2])
                prefix = np.abs(np.cumsum((a * b).reshape(node.srcs[0][1].shape), axis=node.axis))
                acc[node.id] = max(acc.get(node.id, 0.0), float(prefix.max()) if prefix.size else 0.0)
    return peaks, acc


def _sums_as_dots(graph: Graph, peaks: Mapping[int, float], headroom: int) -> int:
    """Step 1: each SumReduce whose total fits a coarser scale than its terms becomes Dot(x, 1.0)."""
    from .shape import ShapeTracker

    coarse = {n.id for n in graph.nodes() if n.op is Op.SUM_REDUCE
              and _fit_scale(peaks[n.id], headroom) < _fit_scale(peaks[n.srcs[0][0].id], headroom)}
    if not coarse:
        return 0

    def rewrite(node: Any, old: Any, _mapping: Any) -> Any:
        if old.id not in coarse:
            return None
        (src, view), = node.srcs
        shape = view.shape
        ones = graph.add_node(Op.CONSTANT, (), (1,) * len(shape), value=np.ones((1,) * len(shape)),
                              origin=node.origin)
        dot = graph.add_node(Op.DOT, [(src, view), (ones, ShapeTracker.contiguous(ones.shape).expand(shape))],
                             node.shape, axis=node.axis, name=node.name, origin=node.origin)
        return dot, ShapeTracker(dot.shape)

    graph.transform(rewrite, context=True)
    return len(coarse)


def calibrate_tensors(graph: Graph, samples: Sequence[Mapping[str, Any]],
                      headroom_bits: float = TENSOR_HEADROOM_BITS) -> TensorCalibration:
    """A scale per node from sample inputs (the steps above); sets the graph's scales and its
    numeric format (the tables' scale). Raises NumericError naming the node, element and value (and
    this calibration) where no scale holds the samples."""
    if not samples:
        raise ValueError("calibrate_tensors needs at least one sample input")
    if not 0 <= headroom_bits <= VALUE_BITS - 2:
        raise ValueError(f"headroom_bits must be in [0, {VALUE_BITS - 2}], got {headroom_bits}")
    if any(n.scale is not None for n in graph.nodes()):
        graph.set_scales({n.id: None for n in graph.nodes()})  # (calibrated again from scratch)
    peaks, _ = _peaks(graph, samples, dots=False)
    sums = _sums_as_dots(graph, peaks, headroom_bits)
    at: dict[int, tuple[int, int]] = {}
    peaks, acc = _peaks(graph, samples, at=at)
    nodes = graph.nodes()
    varying = _input_dependent(graph)
    classes = _Classes(len(nodes))
    tables: list[int] = []
    for n in nodes:
        op = n.op.value
        srcs = [s.id for s, _ in n.srcs]
        if op in TABLE_OPS:
            tables += [n.id, srcs[0]]
        elif op == "LessThan":
            classes.union(srcs[0], srcs[1])
        elif op == "Dot":
            if len(srcs) == 3:
                classes.union(n.id, srcs[2])
        elif op == "Gather":
            classes.union(n.id, srcs[0])
        elif op not in ("Input", "Constant", "Mul", "Recip", "Sqrt"):
            for s in srcs:
                classes.union(n.id, s)
    for t in tables[1:]:
        classes.union(tables[0], t)
    table_class = classes.find(tables[0]) if tables else None

    scale: dict[int, int] = {}  # class root -> scale
    for n in nodes:
        if n.index:
            continue
        cap = MAX_SCALE_BITS if n.op is Op.LESS_THAN else MAX_NODE_SCALE
        headroom = headroom_bits if n.id in varying and n.op is not Op.LESS_THAN else 0
        s = _fit_scale(peaks[n.id], headroom, cap)
        root = classes.find(n.id)
        scale[root] = min(scale.get(root, MAX_NODE_SCALE), s)
    if table_class is not None:
        scale[table_class] = min(scale[table_class], MAX_SCALE_BITS)
    for n in nodes:  # a class no scale holds: its largest member named
        root = classes.find(n.id)
        floor = MIN_SCALE_BITS if root == table_class else MIN_NODE_SCALE
        if not n.index and scale[root] < floor and peaks[n.id] == max(
                peaks[m.id] for m in nodes if not m.index and classes.find(m.id) == root):
            where = " (it shares the function tables' scale, at least 2^4)" if root == table_class else ""
            k, i = at[n.id]
            index = tuple(int(d) for d in np.unravel_index(i, n.shape)) if n.shape else ()
            raise NumericError(f"calibration over {len(samples)} sample(s), headroom {headroom_bits:g} bit(s): "
                               f"{n.where()} reaches |value| {peaks[n.id]:g} at element {i} (index {index}) of "
                               f"sample {k}, which no scale of the format holds{where}: the 16-bit range at "
                               f"2^{floor} ends at {VALUE_MAX_REAL >> floor}")

    def lower(node_id: int, why: str) -> None:
        root = classes.find(node_id)
        scale[root] -= 1
        floor = MIN_SCALE_BITS if root == table_class else MIN_NODE_SCALE
        if scale[root] < floor:
            k, i = at.get(node_id, (0, 0))
            raise NumericError(f"calibration over {len(samples)} sample(s), headroom {headroom_bits} bit(s): "
                               f"{nodes[node_id].where()} fits no scale of the format ({why}; peak |value| "
                               f"{peaks.get(node_id, 0.0):g} at element {i} of sample {k})")

    def s_of(i: int) -> int:
        return scale.get(classes.find(i), 0)

    ruled = [n for n in nodes if n.op in _RULED]  # (in node order: the same first violation)

    def settle() -> dict[int, int]:
        """Lower classes until every product rule holds (each step lowers one class: bounded)."""
        for _round in range(64 * len(nodes) + 64):
            bad = _first_violation(ruled, s_of, acc, headroom_bits)
            if bad is None:
                break
            lower(*bad)
        return {n.id: s_of(n.id) for n in nodes}

    assignment = settle()
    graph_scale = scale[table_class] if table_class is not None else max(MIN_SCALE_BITS, min(
        MAX_SCALE_BITS, graph.numeric_format.scale_bits))
    graph.numeric_format = NumericFormat(graph_scale)
    for _round in range(16 * len(nodes) + 16):  # step 5: the exact runs at these scales
        graph.set_scales(assignment)
        try:
            for sample in samples:  # (the last run is kept: gen_trace of a single sample reads it)
                graph.run_nodes(graph._check_inputs(sample), exact=True)
            break
        except BoundsError as e:
            culprit = _culprit(graph, str(e))
            if culprit is None:
                raise NumericError(f"calibration over {len(samples)} sample(s): {e}") from None
            lower(culprit, "its exact value leaves the range")
            assignment = settle()
            if table_class is not None:
                graph.numeric_format = NumericFormat(scale[table_class])
    final = graph.nodes()
    return TensorCalibration({n.id: ex.node_scale(n, graph.numeric_format) for n in final},
                             graph.numeric_format.scale_bits, headroom_bits, len(samples), sums)


_RULED = (Op.MUL, Op.DOT, Op.RECIP, Op.SQRT)  # the ops a product rule constrains (_first_violation)


def _first_violation(nodes: Sequence[Any], s_of: Any, acc: Mapping[int, float], headroom: float) -> tuple[int, str] | None:
    """(the node whose class to lower, why) for the first node whose scales break a product rule: a
    product's finer operand goes coarser (of two alike, a constant: its class is its own). Only
    nodes of the _RULED ops can break one."""
    for n in nodes:
        op = n.op.value
        if op in ("Mul", "Dot"):
            (sa, _), (sb, _) = n.srcs[:2]
            a, b = sa.id, sb.id
            k = s_of(a) + s_of(b) - s_of(n.id)
            wide = a if (s_of(a), sa.op is Op.CONSTANT) > (s_of(b), sb.op is Op.CONSTANT) else b
            if k > MAX_SHIFT:
                return wide, f"{op} shift {k} above {MAX_SHIFT}"
            if k < 1:
                return n.id, f"{op} shift {k} below 1"
            if op == "Dot" and acc[n.id] * (1 << (s_of(a) + s_of(b))) * 2.0 ** headroom >= DOT_ACC_BOUND:
                return wide, "the dot product's accumulator range"
        elif op == "Recip":
            x = n.srcs[0][0].id
            if s_of(x) + s_of(n.id) > MAX_RECIP_EXPONENT:
                return n.id, f"Recip exponent above {MAX_RECIP_EXPONENT}"
        elif op == "Sqrt":
            x = n.srcs[0][0].id
            e = 2 * s_of(n.id) - s_of(x)
            if e > MAX_SHIFT:
                return n.id, f"Sqrt exponent {e} above {MAX_SHIFT}"
            if e < 0:
                return x, f"Sqrt exponent {e} below 0"
    return None


def _culprit(graph: Graph, message: str) -> int | None:
    """The node a BoundsError names ("<Op> node <id> ...")."""
    import re

    m = re.search(r"\b[A-Za-z0-9]+ node (\d+)\b", message)
    return int(m.group(1)) if m else None
