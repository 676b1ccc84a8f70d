"""Which element every trace row holds and reads, derived by the verifier from the graph alone.

Nothing here comes from a root, count or map written by the prover or the publisher. Every graph
element has an address: node n's element i is `base[n] + i`, with bases laid out in node order
(each aligned to KNOWN_LANES so that packed rows never spill into the next node). A component's
rows hold its nodes one after the other (segments, in graph order), then padding rows. The
columns that say which address a row produces and reads (its *topology columns*) are committed by
the prover like any other main column, but each is pinned down completely by a constraint whose
only free part is a sparse column that the verifier computes here:

* an affine column c (an address that steps by a fixed stride along a run of rows) satisfies
  c[r] - 2 c[r-1] + c[r-2] = D2[r], with D2 zero except where a run starts;
* a step column c (a 0/1 flag, or a reduction's output address) satisfies c[r] - c[r-1] = D1[r];
* both also satisfy c[0] = anchor.

On a cyclic trace of N rows (N a power of two, far below p) the only solutions of the homogeneous
recurrences are a + b*r with b*N = 0 mod p, so b = 0, and the anchor fixes a: the column is exactly
the one described here. The verifier evaluates the sparse columns at the out-of-domain point in
closed form (a sum of row selectors, verifier/poly.sparse_columns_at), so its work grows with the
number of runs, never with the number of rows, and no trace-sized column is interpolated.

Views are affine: a view's source address is offset + sum_j digit_j * stride_j over the digits of
the view's multi-index, valid where every digit lies inside its axis's mask (padding reads 0).
A reshape that cannot be written that way over its source is refused here; the prover's compiler
materializes such views first (a Contiguous node).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..errors import FormatError
from ..fields import P
from ..numeric import DOT_ACC_BOUND, VALUE_BITS
from .spec import CONTRACT, GROUPED, GraphSpec, Step, known_gather, view_shape

# elements of a constant or public input held by one row of the known component: each lane costs
# 4 columns (value, fan-out, half a LogUp batch), opened at every query, and a model's known values
# are few (biases, inputs: the weights of checked products are the verifier's own terms), so 4
# lanes rather than 8 (docs/changelog.md, format 7)
KNOWN_LANES = 4
# A Dot reads a known operand in whole known rows only when it has this many rows: its own
# component (fewer LogUp columns a row) must save more work than its extra columns cost the proof.
CHUNK_MIN_ROWS = 1 << 14
MAX_ADDRESS = 1 << 30
# The hard bound on boundary rows the verifier derives and evaluates (each costs about 7 us in
# CPython, derived and evaluated at the out-of-domain point, ~2.5x that in Pyodide), estimated from
# the shapes before any of that work (topology_cost). The default work budget (verifier/budget.py)
# admits about 120,000; a caller's max_work can admit more, up to this bound.
MAX_SPARSE_ENTRIES = 1 << 20


class ViewError(ValueError):
    """A view that is not affine over its source (the compiler must materialize it first)."""


@dataclass
class AffineView:
    """source address = offset + sum_j digit_j * strides[j]; valid iff lo_j <= digit_j < hi_j."""

    sizes: list[int]
    strides: list[int]
    offset: int
    masks: list[tuple[int, int]]

    @classmethod
    def contiguous(cls, shape: tuple[int, ...]) -> "AffineView":
        strides = []
        acc = 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= d
        return cls(list(shape), strides[::-1], 0, [(0, d) for d in shape])

    def masked(self) -> bool:
        return any(m != (0, d) for m, d in zip(self.masks, self.sizes))

    def permute(self, axes: tuple[int, ...]) -> "AffineView":
        return AffineView(
            [self.sizes[a] for a in axes], [self.strides[a] for a in axes], self.offset, [self.masks[a] for a in axes]
        )

    def apply(self, kind: str, arg: tuple) -> "AffineView":
        if kind == "permute":
            return self.permute(arg)
        if kind == "expand":
            sizes, strides, masks = [], [], []
            for d, s, m, new in zip(self.sizes, self.strides, self.masks, arg):
                if d == new:
                    sizes.append(d)
                    strides.append(s)
                    masks.append(m)
                else:  # a size-1 axis repeated: stride 0; valid everywhere or nowhere
                    sizes.append(new)
                    strides.append(0)
                    masks.append((0, new) if m[0] < m[1] else (0, 0))
            return AffineView(sizes, strides, self.offset, masks)
        if kind == "slice":
            sizes, strides, masks = [], [], []
            offset = self.offset
            for d, s, (lo, hi), (a, b, c) in zip(self.sizes, self.strides, self.masks, arg):
                n = len(range(a, b, c))
                offset += a * s
                nlo = min(n, max(0, -(-(lo - a) // c)))
                nhi = min(n, max(0, -(-(hi - a) // c)))
                sizes.append(n)
                strides.append(s * c)
                masks.append((nlo, max(nlo, nhi)))
            return AffineView(sizes, strides, offset, masks)
        if kind == "pad":
            offset = self.offset
            sizes, masks = [], []
            for d, s, (lo, hi), (a, b) in zip(self.sizes, self.strides, self.masks, arg):
                offset -= a * s
                sizes.append(d + a + b)
                masks.append((lo + a, hi + a))
            return AffineView(sizes, list(self.strides), offset, masks)
        if kind == "reshape":
            return self._reshape(tuple(arg))
        if kind == "window":  # axis -> (o, k): [t, j] reads [t stride + j dilation]
            axis, k, stride, dilation = arg
            if self.masks[axis] != (0, self.sizes[axis]):
                raise ViewError("a window over a padded axis")
            o = (self.sizes[axis] - dilation * (k - 1) - 1) // stride + 1
            s = self.strides[axis]
            return AffineView(self.sizes[:axis] + [o, k] + self.sizes[axis + 1 :],
                              self.strides[:axis] + [s * stride, s * dilation] + self.strides[axis + 1 :],
                              self.offset, self.masks[:axis] + [(0, o), (0, k)] + self.masks[axis + 1 :])
        raise ViewError(f"unknown view step {kind!r}")

    def _reshape(self, shape: tuple[int, ...]) -> "AffineView":
        if any(lo >= hi for lo, hi in self.masks):  # reads nothing but padding: any layout will do
            out = AffineView.contiguous(shape)
            return AffineView(out.sizes, [0] * len(shape), 0, [(0, 0)] * len(shape))
        old = [(d, s, m) for d, s, m in zip(self.sizes, self.strides, self.masks) if d != 1]
        new_sizes = list(shape)
        strides = [0] * len(shape)
        masks = [(0, d) for d in shape]
        targets = [j for j, d in enumerate(shape) if d != 1]
        i = j = 0
        while i < len(old) or j < len(targets):
            group_old, group_new = [old[i]], [targets[j]]
            po, pn = old[i][0], shape[targets[j]]
            i, j = i + 1, j + 1
            while po != pn:
                if po < pn:
                    group_old.append(old[i])
                    po *= old[i][0]
                    i += 1
                else:
                    group_new.append(targets[j])
                    pn *= shape[targets[j]]
                    j += 1
            for (d0, s0, _), (d1, s1, _) in zip(group_old, group_old[1:]):
                if s0 != s1 * d1:
                    raise ViewError("a reshape merges axes that are not contiguous in the source")
            if len(group_old) > 1 or len(group_new) > 1:
                if any(m != (0, d) for d, _, m in group_old):
                    raise ViewError("a reshape merges or splits a padded axis")
            stride = group_old[-1][1]
            for t in reversed(group_new):
                strides[t] = stride
                stride *= shape[t]
            if len(group_old) == 1 and len(group_new) == 1:
                masks[group_new[0]] = group_old[0][2]
        return AffineView(new_sizes, strides, self.offset, masks)


def affine_view(src_shape: tuple[int, ...], steps: tuple[Step, ...]) -> AffineView:
    """The affine form of a view; ViewError if it has none (shapes are already validated)."""
    v = AffineView.contiguous(tuple(src_shape))
    for kind, arg in steps:
        v = v.apply(kind, arg)
    return v


def is_affine(src_shape: tuple[int, ...], steps: tuple[Step, ...]) -> bool:
    try:
        affine_view(src_shape, steps)
    except ViewError:
        return False
    return True


def node_bases(spec: GraphSpec) -> list[int]:
    """base[n]: the address of node n's element 0 (aligned, in node order)."""
    bases = []
    addr = KNOWN_LANES
    for node in spec.nodes:
        bases.append(addr)
        addr += -(-node.numel // KNOWN_LANES) * KNOWN_LANES
    if addr > MAX_ADDRESS:
        raise FormatError(f"settings.bin: the graph has {addr} elements, more than the AIR addresses ({MAX_ADDRESS})")
    return bases


# --- rows of one node ------------------------------------------------------------------------------


def row_order_view(spec: GraphSpec, node_index: int, k: int, lanes: int = 1) -> AffineView:
    """Input k of a node as an affine view in the node's row order (reductions: the reduced axis
    moved innermost, so a group of consecutive rows makes one output element; a Dot of `lanes`
    products a row reads one chunk of the reduced axis a row)."""
    node = spec.nodes[node_index]
    _, src_shape, steps = node.srcs[k]
    if node.op == "Gather":  # element (t, j) reads ids[t] and (before the id's shift) table[0, j]
        ids = AffineView.contiguous(node.shape[:-1]).strides if k else [0] * (len(node.shape) - 1)
        return AffineView(list(node.shape), [*ids, 0 if k else 1], 0, [(0, d) for d in node.shape])
    try:
        v = affine_view(src_shape, steps)
    except ViewError as e:
        raise FormatError(f"settings.bin: node {node_index} input {k}: {e}; the AIR needs affine views") from None
    if node.op in GROUPED:
        axis = node.axis if node.axis is not None else 0
        order = tuple(a for a in range(len(v.sizes)) if a != axis) + (axis,)
        v = v.permute(order)
    if node.op in CONTRACT:  # the reduced axis split into (chunks, lanes): a row reads one chunk
        lo, hi = v.masks[-1]
        v = AffineView(
            v.sizes[:-1] + [v.sizes[-1] // lanes], v.strides[:-1] + [v.strides[-1] * lanes], v.offset,
            v.masks[:-1] + [(lo // lanes, hi // lanes)],
        )
    return v


# --- fused dot products ----------------------------------------------------------------------------

DOT_LANE_CHOICES = (16, 8, 4, 2, 1)


def operand_bound(spec: GraphSpec, node_index: int) -> int:
    """max |v| over a Dot operand: a constant's weights (known to the verifier), else the bound of
    every value in the data relation (16-bit signed)."""
    node = spec.nodes[node_index]
    if node.committed and node.op == "Constant":  # range-checked on every proof (CommittedComponent)
        return 1 << (spec.model_bits - 1)
    if node.op == "Constant" and node.values:
        return max(max(node.values), -min(node.values))
    return 1 << (VALUE_BITS - 1)


def dot_lanes(spec: GraphSpec, node_index: int) -> int:
    """Products per Dot row: the most lanes L such that the reduced length and the padding masks
    along it split into whole rows, and L * max|a| * max|b| < P - 2 DOT_ACC_BOUND (so a row's
    accumulator relation, with both accumulators range-checked, holds over the integers)."""
    node = spec.nodes[node_index]
    axis = node.axis if node.axis is not None else 0
    masks = []
    for k, (_, src_shape, steps) in enumerate(node.srcs[:2]):  # the operands (not the bias)
        try:
            v = affine_view(src_shape, steps)
        except ViewError as e:
            raise FormatError(f"settings.bin: node {node_index} input {k}: {e}; the AIR needs affine views") from None
        masks.append(v.masks[axis])
    length = view_shape(node.srcs[0][1], node.srcs[0][2])[axis]
    bound = operand_bound(spec, node.srcs[0][0]) * operand_bound(spec, node.srcs[1][0])
    for lanes in DOT_LANE_CHOICES:
        if length % lanes or lanes * bound >= P - 2 * DOT_ACC_BOUND:
            continue
        if all(lo % lanes == 0 and hi % lanes == 0 for lo, hi in masks):
            return lanes
    return 1


def is_bijection(v: AffineView, numel: int) -> bool:
    """Whether an affine view reads every element of a source of `numel` elements exactly once:
    unmasked, offset 0, and its (size, stride) pairs a mixed radix of the source's flat index."""
    if v.masked() or v.offset != 0:
        return False
    axes = sorted((s, d) for d, s in zip(v.sizes, v.strides) if d != 1)
    expect = 1
    for stride, size in axes:
        if stride != expect:
            return False
        expect *= size
    return expect == numel


def direct_weight_reads(spec: GraphSpec, checked: set[int]) -> dict[int, int]:
    """Dot nodes whose second operand is a constant read by that Dot alone, each element exactly
    once: such a Dot takes its weights straight from the verifier's own terms (one tuple a row, no
    known rows, no per-lane reads), so the verifier's work stays one term per chunk of weights."""
    readers: dict[int, int] = {}
    for node in spec.nodes:
        for src, _, _ in node.srcs:
            readers[src] = readers.get(src, 0) + 1
    for out in spec.outputs:
        readers[out.node] = readers.get(out.node, 0) + 1
    direct = {}
    for i, node in enumerate(spec.nodes):
        if node.op not in CONTRACT or i in checked:  # (a Freivalds-checked product holds no Dot rows)
            continue
        c, src_shape, steps = node.srcs[1]
        if spec.nodes[c].op != "Constant" or spec.nodes[c].committed or readers.get(c) != 1:
            continue
        try:
            v = affine_view(src_shape, steps)
        except ViewError:
            continue
        if is_bijection(v, spec.nodes[c].numel):
            direct[i] = c
    return direct


def rowless_constants(spec: GraphSpec, direct: Mapping[int, int], matmuls: Mapping[int, Any]) -> set[int]:
    """Constants no trace row holds: read directly by one Dot (`direct`), or read only as the
    weights of Freivalds-checked products (`matmuls`, graph/matmul.py) or as tables of Gathers at
    public ids (the verifier uses their values itself)."""
    out = set(direct.values())
    readers: dict[int, list[tuple[int, int]]] = {}
    for i, node in enumerate(spec.nodes):
        for k, (src, _, _) in enumerate(node.srcs):
            readers.setdefault(src, []).append((i, k))
    for out_spec in spec.outputs:
        readers.setdefault(out_spec.node, []).append((-1, 0))
    for c, reads in readers.items():
        if spec.nodes[c].op == "Constant" and all(
            (i in matmuls and k == 1 - matmuls[i].a_input) or (i >= 0 and known_gather(spec, i)) for i, k in reads
        ):
            out.add(c)
    return out


def direct_weight_rows(spec: GraphSpec, node_index: int, rows: int, bases: list[int], lanes: int):  # noqa: ANN201
    """(address, weights mod P) of every row of a Dot that reads its weights directly: row t reads
    the constant at offset(t) + j * lane stride for lane j (the row order of topology columns)."""
    node = spec.nodes[node_index]
    c = node.srcs[1][0]
    values = [x % P for x in spec.nodes[c].values or []]
    v = row_order_view(spec, node_index, 1, lanes)
    step = dot_lane_stride(spec, node_index, 1)
    span = step * (lanes - 1) + 1
    base = bases[c]
    offsets = row_offsets(v)
    if len(offsets) != rows:
        raise FormatError(f"settings.bin: node {node_index}: {len(offsets)} weight rows for {rows} trace rows")
    for off in offsets:
        yield base + off, values[off : off + span : step]


def row_offsets(v: AffineView, base: int = 0) -> list[int]:
    """base + offset + sum digit_j stride_j of every element of an unmasked view, in row-major
    order, axis by axis with ranges (no per-element digit loop)."""
    return _offsets(base + v.offset, v.sizes, v.strides)


def _offsets(offset: int, sizes: list[int], strides: list[int]) -> list[int]:
    cur = [offset]
    for d, s in zip(sizes, strides):
        cur = [b + i * s for b in cur for i in range(d)] if s else [b for b in cur for _ in range(d)]
    return cur


def bias_view(spec: GraphSpec, node_index: int) -> AffineView:
    """A Dot's bias input (unmasked, output-shaped) as an affine view over its source."""
    _, src_shape, steps = spec.nodes[node_index].srcs[2]
    try:
        return affine_view(src_shape, steps)
    except ViewError as e:
        raise FormatError(f"settings.bin: node {node_index} input 2: {e}; the AIR needs affine views") from None


def chunked_reads(
    spec: GraphSpec, lanes: Mapping[int, int], checked: set[int], rowless: set[int], rows_of: Callable[[int], int],
) -> set[tuple[int, int]]:
    """(Dot node, operand) pairs read in whole known rows: a public input or constant (held by the
    known component, KNOWN_LANES to a row) read contiguously, a multiple of KNOWN_LANES lanes a row,
    every row starting on a known row's boundary, in at least CHUNK_MIN_ROWS rows. Such a Dot
    consumes one (address, KNOWN_LANES values) tuple per known row it reads, which the known row
    yields whole, instead of one entry per value."""

    def known(n: int) -> bool:  # held by the known component (planner.node_kind's "Known")
        src = spec.nodes[n]
        return ((src.op == "Constant" and not src.committed and n not in rowless) or (src.op == "Input" and not src.private)
                or known_gather(spec, n))

    out = set()
    for i, node in enumerate(spec.nodes):
        if node.op not in CONTRACT or i in checked or lanes[i] % KNOWN_LANES or rows_of(i) < CHUNK_MIN_ROWS:
            continue
        for k in (0, 1):
            if not known(node.srcs[k][0]) or dot_lane_stride(spec, i, k) != 1:
                continue
            v = row_order_view(spec, i, k, lanes[i])
            if v.offset % KNOWN_LANES == 0 and all(s % KNOWN_LANES == 0 for d, s in zip(v.sizes, v.strides) if d > 1):
                out.add((i, k))
    return out


def dot_lane_stride(spec: GraphSpec, node_index: int, k: int) -> int:
    """Address step from one lane to the next for input k of a Dot node (the reduced axis' stride)."""
    node = spec.nodes[node_index]
    _, src_shape, steps = node.srcs[k]
    return affine_view(src_shape, steps).strides[node.axis if node.axis is not None else 0]


def _valid(v: AffineView, local: int) -> int:
    for j in range(len(v.sizes) - 1, -1, -1):
        local, d = divmod(local, v.sizes[j])
        lo, hi = v.masks[j]
        if not lo <= d < hi:
            return 0
    return 1


def _run_length(v: AffineView) -> int:
    """Rows over which the address stays affine: the innermost axes that merge (stride-wise)."""
    axes = [(d, s) for d, s in zip(v.sizes, v.strides) if d != 1]
    if not axes:
        return 1
    length, inner_stride = axes[-1]
    stride = inner_stride * length
    for d, s in reversed(axes[:-1]):
        if s != stride:
            break
        length *= d
        stride = s * d
    return length


class ViewRuns:
    """Row l holds the address of element l of `view` over a source at `base` or, with `group`, of
    element l // group (its digits wrapping past the view's last element). In closed form: runs of
    `length` rows, run k starting at first[k mod len(first)] and stepping by `step` (0 with a group),
    one value a run instead of a digit loop a row.
    (tests/verifier/reference_topology.py evaluates the definition row by row.)"""

    def __init__(self, view: AffineView, base: int, group: int | None = None) -> None:
        self.view, self.base, self.group = view, base, group
        if group is not None:  # a group's rows hold one element: constant runs, one a group
            self.length, self.step = group, 0
            self.first = row_offsets(view, base)
            return
        # _run_length's run, innermost axes first: size-1 axes join it, a larger one while it
        # continues the run's stride; `split` axes stay outside (their digits number the runs)
        sizes, strides = view.sizes, view.strides
        split, self.length, self.step, expect = len(sizes), 1, 0, None
        while split > 0:
            d, st = sizes[split - 1], strides[split - 1]
            if d != 1:
                if expect is not None and st != expect:
                    break
                self.step = st if expect is None else self.step
                expect, self.length = st * d, self.length * d
            split -= 1
        self.first = _offsets(base + view.offset, sizes[:split], strides[:split])

    def __call__(self, local: int) -> int:
        k, m = divmod(local, self.length)
        return self.first[k % len(self.first)] + m * self.step

    def run_firsts(self, rows: int) -> list[int]:
        """first value of every run that starts in rows 0..rows-1 (repeated where the digits wrap)."""
        n, first = -(-rows // self.length), self.first
        return first[:n] if n <= len(first) else [first[k % len(first)] for k in range(n)]


def _mask_change_count(v: AffineView) -> int:
    """How many rows _mask_changes lists, without listing them (for the work budget)."""
    numel = 1
    for d in v.sizes:
        numel *= d
    count, inner = 1, 1
    for j in range(len(v.sizes) - 1, -1, -1):
        d = v.sizes[j]
        if v.masks[j] != (0, d):
            count += (numel // (d * inner)) * (1 + sum(1 for e in v.masks[j] if 0 < e < d))
        inner *= d
    return count


def topology_cost(spec: GraphSpec, segs: list["Segment"], n_inputs: int, grouped: bool, lanes: Mapping[int, int]) -> int:
    """An upper bound on the boundary rows op_topology will enumerate, computed from the shapes
    alone, so a graph over the verifier's budget is refused before any of that work is done."""
    cost = 0
    for seg in segs:
        cost += 4
        n_lanes = lanes.get(seg.node, 1)
        for k in range(n_inputs):
            v = row_order_view(spec, seg.node, k, n_lanes)
            cost += 2 * (seg.rows // _run_length(v) + 1)
            if v.masked():
                cost += _mask_change_count(v)
        group = max(1, row_order_view(spec, seg.node, 0, n_lanes).sizes[-1]) if grouped else 1
        if grouped:
            cost += 3 * (seg.rows // group + 1)
        if spec.nodes[seg.node].op in CONTRACT:
            cost += 2 * n_inputs
            if len(spec.nodes[seg.node].srcs) == 3:  # the bias address: one candidate a group
                cost += seg.rows // group + 1
    return cost


def _mask_changes(v: AffineView) -> list[int]:
    """Local rows where the validity of a view may change (where a masked digit crosses an edge)."""
    numel = 1
    for d in v.sizes:
        numel *= d
    rows: set[int] = {0}
    inner = 1
    for j in range(len(v.sizes) - 1, -1, -1):
        d = v.sizes[j]
        lo, hi = v.masks[j]
        if (lo, hi) != (0, d):
            block = d * inner
            edges = [e for e in (lo, hi) if 0 < e < d]
            for start in range(0, numel, block):
                for e in edges:
                    rows.add(start + e * inner)
                rows.add(start)
        inner *= d
    return sorted(rows)


# --- topology of a component --------------------------------------------------------------------------


@dataclass
class Segment:
    node: int
    start: int  # first row
    rows: int


class ColumnPattern:
    """Values of one topology column at any row (segments, then zero padding), and the rows where
    its difference may be non-zero."""

    def __init__(self, kind: str, n_rows: int) -> None:
        self.kind = kind  # "affine" (second difference) or "step" (first difference)
        self.n_rows = n_rows
        self.parts: list[tuple[int, int, object]] = []  # (start, rows, value(local) -> int), by start
        self.starts: list[int] = []
        self.candidates: set[int] = {0, 1}
        self.runs: list[tuple[int, int, ViewRuns]] = []  # (start, rows, runs): interior boundaries in closed form

    def add(self, start: int, rows: int, value, breaks=None) -> None:  # noqa: ANN001 - small callables
        """Rows start..start+rows-1 hold value(local); the difference may be non-zero only at the
        breaks (local rows; a ViewRuns' breaks are its run starts, listed by sparse)."""
        self.parts.append((start, rows, value))
        self.starts.append(start)
        if isinstance(value, ViewRuns) and (value.length > 1 if self.kind == "affine" else value.step == 0):
            self.runs.append((start, rows, value))  # its other run starts: sparse, in closed form
            breaks = [0]
        elif isinstance(value, ViewRuns):  # runs of one row (affine), or not constant (step): every row
            breaks = range(rows)
        end = start + rows
        for b in breaks:
            self.candidates.add(start + b)
            if self.kind == "affine":
                self.candidates.add(start + b + 1)
        self.candidates.update((end, end + 1) if self.kind == "affine" else (end,))

    def value(self, row: int) -> int:
        row %= self.n_rows
        i = bisect_right(self.starts, row) - 1
        if i >= 0:
            start, rows, fn = self.parts[i]
            if row < start + rows:
                return fn(row - start)  # type: ignore[operator]
        return 0

    def sparse(self) -> tuple[dict[int, int], int]:
        """(difference column row -> value mod P, anchor value at row 0)."""
        out: dict[int, int] = {}
        seen: dict[int, int] = {}  # candidates come in runs (b, b + 1): each value serves up to 3 rows

        def value(row: int) -> int:
            got = seen.get(row)
            if got is None:
                got = seen[row] = self.value(row)
            return got

        candidates = self.candidates
        ends = [start + rows for start, rows, _ in self.parts] if self.runs else []
        disjoint = all(e <= s for e, s in zip(ends, self.starts[1:]))  # else bisect picks among overlaps
        for start, rows, runs in self.runs:
            if disjoint:
                self._interior(out, start, rows, runs)
            else:  # every run start (and the row after it) read row by row
                candidates.update(range(start, start + rows, runs.length))
                if self.kind == "affine":
                    candidates.update(range(start + 1, start + rows + 1, runs.length))
        for r in sorted(c for c in candidates if c < self.n_rows):
            if self.kind == "affine":
                d = value(r) - 2 * value(r - 1) + value(r - 2)
            else:
                d = value(r) - value(r - 1)
            if d % P:
                out[r] = d % P
        return out, value(0) % P

    def _interior(self, out: dict[int, int], start: int, rows: int, runs: ViewRuns) -> None:
        """The differences at the run starts k L (k >= 1) inside one part, and (affine) at k L + 1,
        from the runs' first values F: the step column's F_k - F_(k-1) - (L-1) s; the affine one's
        F_k - F_(k-1) - L s at k L and its negation at k L + 1 (where k L + 1 is still in the part;
        L >= 2, so rows k L - 2 .. k L + 1 lie in runs k - 1 and k)."""
        L, s, n = runs.length, runs.step, self.n_rows
        first = runs.run_firsts(rows)
        affine = self.kind == "affine"
        gap = L * s if affine else (L - 1) * s
        r = start
        for a, b in zip(first, first[1:]):
            r += L
            d = (b - a - gap) % P
            if d and r < n:
                out[r] = d
                if affine and r + 1 < start + rows and r + 1 < n:
                    out[r + 1] = P - d


def layout_segments(nodes: list[int], rows_of: Callable[[int], int]) -> list[Segment]:
    """The nodes' rows one after another, in the order given."""
    segs, r = [], 0
    for n in nodes:
        count = rows_of(n)
        segs.append(Segment(n, r, count))
        r += count
    return segs


def power_pattern(spec: GraphSpec, segs: list[Segment], n_rows: int, padding: int) -> ColumnPattern:
    """A varying component's `pow` (components.GraphComponent.vary): 2^constant on each node's rows
    (spec.constant_of: numeric.node_constant from the scales), 2^padding on the padding rows."""
    pat = ColumnPattern("step", n_rows)
    for seg in segs:
        pat.add(seg.start, seg.rows, lambda _l, v=1 << spec.constant_of(seg.node): v, [0])
    end = segs[-1].start + segs[-1].rows if segs else 0
    if end < n_rows:
        pat.add(end, n_rows - end, lambda _l, v=1 << padding: v, [0])
    return pat


def op_topology(
    spec: GraphSpec, segs: list[Segment], n_rows: int, n_inputs: int, grouped: bool, lanes: Mapping[int, int],
    steps: bool = False,
) -> dict[str, ColumnPattern]:
    """Topology columns of an op component: addr, is_real, and per input in{k}_addr, in{k}_real
    (and, with `steps`, in{k}_step, the address step between a Dot's lanes). (Grouped ops: also the
    sparse group starts/ends, see reduce_groups.)"""
    bases = node_bases(spec)
    cols = {"addr": ColumnPattern("step" if grouped else "affine", n_rows), "is_real": ColumnPattern("step", n_rows)}
    for k in range(n_inputs):
        cols[f"in{k}_addr"] = ColumnPattern("affine", n_rows)
        cols[f"in{k}_real"] = ColumnPattern("step", n_rows)
        if steps:
            cols[f"in{k}_step"] = ColumnPattern("step", n_rows)
    for seg in segs:
        node = spec.nodes[seg.node]
        base = bases[seg.node]
        cols["is_real"].add(seg.start, seg.rows, lambda _l: 1, [0])
        n_lanes = lanes.get(seg.node, 1)
        if steps:
            for k in range(n_inputs):
                step = dot_lane_stride(spec, seg.node, k)
                cols[f"in{k}_step"].add(seg.start, seg.rows, lambda _l, st=step: st, [0])
            if len(node.srcs) == 3:  # the bias: the address of the group's output element's term
                length = row_order_view(spec, seg.node, 0, n_lanes).sizes[-1]
                vb = bias_view(spec, seg.node)
                bb = bases[node.srcs[2][0]]
                pattern = cols.setdefault("in2_addr", ColumnPattern("step", n_rows))
                pattern.add(seg.start, seg.rows, ViewRuns(vb, bb, group=length))
        if grouped:
            length = row_order_view(spec, seg.node, 0, n_lanes).sizes[-1]
            groups = AffineView.contiguous((-(-seg.rows // length),))
            cols["addr"].add(seg.start, seg.rows, ViewRuns(groups, base, group=length))
        else:
            cols["addr"].add(seg.start, seg.rows, lambda l, b=base: b + l, [0])
        for k in range(n_inputs):
            view_columns(row_order_view(spec, seg.node, k, n_lanes), bases[node.srcs[k][0]], seg.rows, n_rows,
                         seg.start, cols[f"in{k}_addr"], cols[f"in{k}_real"])
    return cols


def view_columns(
    view: AffineView, base: int, rows: int, n_rows: int, start: int = 0,
    addr: ColumnPattern | None = None, real: ColumnPattern | None = None,
) -> tuple[ColumnPattern, ColumnPattern]:
    """The address (affine) and validity (step) columns of a component whose rows start..start+rows-1
    read `view` (over a source at `base`) in row-major order, one element a row (added to `addr`
    and `real` where given: components that hold several nodes' rows)."""
    addr = addr if addr is not None else ColumnPattern("affine", n_rows)
    real = real if real is not None else ColumnPattern("step", n_rows)
    addr.add(start, rows, ViewRuns(view, base))
    if view.masked():
        real.add(start, rows, lambda l, v=view: _valid(v, l), _mask_changes(view))
    else:
        real.add(start, rows, lambda _l: 1, [0])
    return addr, real


def view_cost(view: AffineView, rows: int) -> int:
    """An upper bound on the boundary rows view_columns lists (for the work budget)."""
    return 2 * (rows // _run_length(view) + 1) + (_mask_change_count(view) if view.masked() else 0)


def reduce_groups(
    spec: GraphSpec, segs: list[Segment], n_rows: int, lanes: Mapping[int, int]
) -> tuple[dict[int, int], dict[int, int]]:
    """Sparse is_first / is_last of a reduction component: 1 at the first and last row of every
    group (one output element); the padding rows form one more group, which yields nothing."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for seg in segs:
        length = row_order_view(spec, seg.node, 0, lanes.get(seg.node, 1)).sizes[-1]
        for s in range(seg.start, seg.start + seg.rows, length):
            first[s] = 1
            last[s + length - 1] = 1
    end = segs[-1].start + segs[-1].rows if segs else 0
    if end < n_rows:
        first[end] = 1
    return first, last


def value_topology(spec: GraphSpec, segs: list[Segment], n_rows: int, per_row: int = 1) -> dict[str, ColumnPattern]:
    """Rows that hold `per_row` consecutive elements of their node: private inputs one, known rows
    (constants and public inputs) KNOWN_LANES."""
    bases = node_bases(spec)
    cols = {"addr": ColumnPattern("affine", n_rows), "is_real": ColumnPattern("step", n_rows)}
    for seg in segs:
        cols["addr"].add(seg.start, seg.rows, lambda l, b=bases[seg.node]: b + per_row * l, [0])
        cols["is_real"].add(seg.start, seg.rows, lambda _l: 1, [0])
    return cols
