"""Matrix products with weights the verifier knows, proven with a Freivalds check.

A Dot node out[m, n] = round(sum_k A[m, k] W[k, n] / 2^s) (+ bias[m, n]) whose second operand is
a constant from settings.bin (every axis of the product read by exactly one operand: the M axes by
A, the N axes by W, the reduced axis K by both) is proven by two components instead of one row per
K / lanes products of every output element:

* MatIn holds each A[m, :] once, L values a row over 2^p rows (K = L 2^p), every value split into
  8-bit limbs a = lo + 256 hi (range-checked);
* MatOut holds each output element once: the exact integer sums S_lo = sum_k lo W and
  S_hi = sum_k hi W, range-checked, and out with S_lo + 256 S_hi + 2^(s-1) + 2^s bias =
  2^s out + rem, 0 <= rem < 2^s (one rounding per output element, as numeric.op_dot).

After the main commitment the verifier draws mu, rho and lambda (shared by the products of one
MatOut, graph/mat_plans.py, whose counter mu^g runs over all their groups) and computes
v_k = sum_n W[k, n] rho^n itself, from settings.bin (K N products). The two components add to
the LogUp running sum the plain terms
    MatIn:    mu^(m+1) sum_k (lo + lambda hi)[m, k] v_k
    MatOut:  -mu^(m+1) rho^n (S_lo + lambda S_hi)[m, n]
(mu^m and rho^n are aux columns pinned by their own constraints, the extra factor mu keeps every
monomial away from the constant one: verifier/air/framework.py; v is a periodic column the
verifier evaluates at the OODS point itself). They cancel, for random challenges, only if
S_lo = A_lo W and S_hi = A_hi W modulo P (Schwartz-Zippel: error (M + N + 1) / |QM31| per
instance), and no other instance's terms can make up for an error: they are polynomials in other
challenges, without constant terms.
The bounds make those congruences equalities over the integers: |S_lo| < 2^28 and
|S_hi| < 2^22 are range-checked, and the verifier accepts the node only if
K 255 max|W| + 2^28 < P and K 128 max|W| + 2^22 < P. The total S_lo + 256 S_hi is range-checked
to |.| < 2^28 too (the accumulator bound of numeric.op_dot), so the rounding relation, every term
below 2^30, holds over the integers.

What it saves: A's values are read once per row m instead of once per output element, and no
row multiplies a weight: about 70 committed cells per output element and 10 per input value,
against about 7 per multiply-add for a Dot. Two components of their own (at least 16 rows each)
cost more than a Dot's few rows for a small product, so a node is checked this way only where
the estimate from its shapes (mat_cells < dot_cells) says it saves cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from operator import mul
from typing import Any, Mapping

from ..fields import QM31, P, q_add, q_mul
from ..numeric import DOT_ACC_BOUND
from .components import HI_BOUND
from .spec import CONTRACT, GraphSpec
from .topology import AffineView, ViewError, affine_view, is_bijection, operand_bound

MAX_MAT_LANES = 64  # values of an operand a MatPair row holds
# values of A a MatIn row holds: every lane costs 8 columns (2 limbs, 3 lookups), each opened at
# every query, so 2 where the MatIn stays within MAT_ROWS rows (narrow rows: smaller proofs at the
# same prove time), wider past it, where cells decide (docs/changelog.md, format 6)
MAT_LANES = 2
MAX_IN_LANES = 8
MAT_ROWS = 1 << 14
# a MatIn of one lane within this many rows: its cells cost nothing measurable, and 8 columns fewer
# are opened at every query
MAT_SMALL_ROWS = 1 << 12
MAX_PERIOD_LOG = 20
MAX_N = 1 << 18  # weight_vector's packed sums stay exact


@dataclass(frozen=True)
class MatPlan:
    """How one Dot node is proven with MatIn / MatOut (all derived from the graph)."""

    node: int
    m_axes: tuple[int, ...]  # axes of the product's broadcast view that only A reads
    n_axes: tuple[int, ...]  # axes only W reads
    k: int  # reduced length
    lanes: int
    period_log: int  # each row m of A takes 2^period_log rows, the first K / lanes of them real
    a_view: AffineView  # A in MatIn row order: (M axes..., K / lanes), lane step = a_step
    a_step: int
    out_view: AffineView  # output elements in MatOut row order: (M axes..., N axes...)
    bias: AffineView | None  # the bias in MatOut row order
    a_input: int = 0  # which of the Dot's operands is A (the other one is W, known to the verifier)
    w_public: bool = False  # W is a public input: split into limbs too (split_w)
    # W is a committed constant (docs/committed-models.md): in the model tree, in a MatW component
    # of this product's own; the proof sends v = W rho (the verifier never reads W)
    w_committed: bool = False

    @property
    def m(self) -> int:
        return prod(self.a_view.sizes[:-1])

    @property
    def n(self) -> int:
        return prod(self.out_view.sizes[len(self.m_axes):])

    @property
    def in_rows(self) -> int:
        return self.m << self.period_log

    @property
    def out_rows(self) -> int:
        return self.m * self.n


def _split(k: int, m: int) -> tuple[int, int] | None:
    """(lanes, p) of a MatIn over m rows of A: L lanes dividing k over 2^p >= k / L rows (rows past
    k / L read nothing). Every lane costs 8 columns, each opened at every query, so rows are as
    narrow as MAT_LANES allows (one lane within MAT_SMALL_ROWS rows); a MatIn past MAT_ROWS rows goes wider (up to MAX_IN_LANES), since
    there cells decide the prover's time and a wider row costs fewer cells per value."""
    p1 = max(0, (k - 1).bit_length())
    if m << p1 <= MAT_SMALL_ROWS:
        return 1, p1
    lanes = [d for d in range(1, MAX_IN_LANES + 1) if k % d == 0]
    choice = None
    for d in lanes:
        if d < max(x for x in lanes if x <= MAT_LANES):
            continue
        p = max(0, (k // d - 1).bit_length())
        choice = (d, p)
        if m << p <= MAT_ROWS:
            break
    return choice if choice is not None and choice[1] <= MAX_PERIOD_LOG else None


def _known_operand(spec: GraphSpec, node_index: int) -> tuple[int, bool] | None:
    """(which operand the verifier knows, whether it is a public input) of a Dot: a constant with
    values (operand 1 first), else a public input (its values come with each proof)."""
    node = spec.nodes[node_index]
    for public in (False, True):
        for k in (1, 0):
            src = spec.nodes[node.srcs[k][0]]
            if not public and src.op == "Constant" and (src.values or src.committed):
                return k, False
            if public and src.op == "Input" and not src.private:
                return k, True
    return None


def known_weights_fit(k: int, max_w: int) -> bool:
    """Whether K products of 8-bit limbs with weights of at most max_w sum exactly below P."""
    return k * 255 * max_w + DOT_ACC_BOUND < P and k * 128 * max_w + HI_BOUND < P


def mat_plan(spec: GraphSpec, index: int, dot_lanes: int) -> MatPlan | None:
    """The MatIn / MatOut plan of a Dot node, or None if it is proven as a Dot (of `dot_lanes`
    lanes, whose cells the check must beat)."""
    node = spec.nodes[index]
    if node.op not in CONTRACT:
        return None
    known = _known_operand(spec, index)
    if known is None:
        return None
    w_idx, public = known
    a_idx = 1 - w_idx
    try:
        av = affine_view(node.srcs[a_idx][1], node.srcs[a_idx][2])
        wv = affine_view(node.srcs[w_idx][1], node.srcs[w_idx][2])
    except ViewError:
        return None
    axis = node.axis if node.axis is not None else 0
    k = av.sizes[axis]
    if wv.masked() or av.masks[axis] != (0, k):
        return None
    m_axes, n_axes = [], []
    for d, size in enumerate(av.sizes):
        if d == axis or size == 1:
            continue
        if wv.strides[d] == 0:
            m_axes.append(d)
        elif av.strides[d] == 0:
            n_axes.append(d)
        else:
            return None  # a batched product with weights that differ along the batch
    m = prod([av.sizes[d] for d in m_axes])
    split = _split(k, m)
    if split is None:
        return None
    lanes, p = split
    n = prod([av.sizes[d] for d in n_axes])
    if n > MAX_N:
        return None
    if public:  # values unknown until the proof: both operands split into 8-bit limbs
        if k * 255 * 255 + DOT_ACC_BOUND >= P:
            return None
    else:
        w_node = node.srcs[w_idx][0]
        if spec.nodes[w_node].committed and not committed_fits(spec, w_node, wv, axis, n_axes):
            return None
        if not known_weights_fit(k, operand_bound(spec, w_node)):
            return None
    if not freivalds_pays(m, n, k, dot_lanes, public):
        return None
    a_view = AffineView(
        [av.sizes[d] for d in m_axes] + [1 << p],
        [av.strides[d] for d in m_axes] + [av.strides[axis] * lanes],
        av.offset,
        [av.masks[d] for d in m_axes] + [(0, k // lanes)],
    )
    views = _output_views(node, av.sizes, axis, m_axes + n_axes)
    if views is None:
        return None
    out_view, bias = views
    committed = spec.nodes[node.srcs[w_idx][0]].committed
    return MatPlan(index, tuple(m_axes), tuple(n_axes), k, lanes, p, a_view, av.strides[axis], out_view, bias,
                   a_idx, public, committed)


MAT_W_LANES = 16  # weights a MatW row holds at most (each lane a model-tree column and a range check)


def mat_w_lanes(n: int) -> int:
    """Lanes of a MatW row for N columns of W: a power of two, at most MAT_W_LANES."""
    return min(MAT_W_LANES, 1 << max(0, (n - 1).bit_length()))


def committed_fits(spec: GraphSpec, w_node: int, wv: AffineView, axis: int, n_axes: list[int]) -> bool:
    """Whether a committed constant can be a Freivalds product's W held in a MatW: its one reader
    is this product and W[k, n] reads each of its elements exactly once, so the model tree holds
    every weight once (two copies of a weight could differ: docs/committed-models.md)."""
    readers = reader_counts(spec).get(w_node, 0)
    dims = [axis, *n_axes]
    view = AffineView([wv.sizes[d] for d in dims], [wv.strides[d] for d in dims], wv.offset,
                      [wv.masks[d] for d in dims])
    return readers == 1 and is_bijection(view, spec.nodes[w_node].numel)


def reader_counts(spec: GraphSpec) -> dict[int, int]:
    """node -> how many node inputs and outputs read it (a derived cache, like the plan: one pass)."""
    got = spec.__dict__.get("_readers")
    if got is None:
        got = spec.__dict__["_readers"] = {}
        for nd in spec.nodes:
            for src, _, _ in nd.srcs:
                got[src] = got.get(src, 0) + 1
        for out in spec.outputs:
            got[out.node] = got.get(out.node, 0) + 1
    return got


def _padded(rows: int) -> int:
    return max(16, 1 << max(0, (rows - 1).bit_length()))


def mat_cells(m: int, n: int, lanes: int, p: int, split_w: bool = False) -> int:
    """Committed cells of a MatIn (2 main and 3 LogUp entries a lane) and a MatOut (about 72 a row,
    about 110 with four limb sums)."""
    return _padded(m << p) * (8 * lanes + 12) + _padded(m * n) * (110 if split_w else 72)


# Cells the check may cost beyond a Dot's: products of one kind share their components, so a Dot
# kind that no node needs any more leaves the proof with all its columns (the transformer's
# layer-norm means: 140 columns), while a few thousand cells cost milliseconds
MAT_CELL_ALLOWANCE = 1 << 15


def freivalds_pays(m: int, n: int, k: int, dot_lanes: int, split_w: bool = False) -> bool:
    """Whether the check commits at most MAT_CELL_ALLOWANCE more cells for (M, K) x (K, N) than a
    Dot of dot_lanes lanes."""
    split = _split(k, m)
    return split is not None and (
        mat_cells(m, n, *split, split_w) < dot_cells(m * n * k, dot_lanes) + MAT_CELL_ALLOWANCE)


def dot_cells(products: int, lanes: int) -> int:
    """Committed cells of a Dot (about 7 a lane and 40 more a row: 150 a row of 16 lanes, 50 of one)."""
    return -(-products // lanes) * (7 * lanes + 40)


def _output_views(node: Any, sizes: list[int], axis: int, order: list[int]) -> tuple[AffineView, AffineView | None] | None:
    """The output (and its bias, a third input) as affine views in MatOut row order: the
    product's axes but the reduced one, taken in `order`; None if the bias has no such view."""
    out_axes = [d for d in range(len(sizes)) if d != axis]  # the output's axes, in order
    out_strides = {}
    stride = 1
    for d in reversed(out_axes):
        out_strides[d] = stride
        stride *= sizes[d]
    out_view = AffineView([sizes[d] for d in order], [out_strides[d] for d in order], 0, [(0, sizes[d]) for d in order])
    if len(node.srcs) < 3:
        return out_view, None
    try:
        bv = affine_view(node.srcs[2][1], node.srcs[2][2])
    except ViewError:
        return None
    if bv.masked():
        return None
    pos = {d: j for j, d in enumerate(out_axes)}
    return out_view, bv.permute(tuple(pos[d] for d in order))


def mat_plans(spec: GraphSpec, lanes: Mapping[int, int]) -> dict[int, MatPlan]:
    """Dot node -> its MatPlan, for the Dots the check serves (`lanes`: every Dot's lanes)."""
    plans = {i: mat_plan(spec, i, n) for i, n in lanes.items()}
    return {i: plan for i, plan in plans.items() if plan is not None}


def weight_rows(spec: GraphSpec, plan: MatPlan, values: list[int]) -> list[list[int]]:
    """W[k][n] as signed integers (N axes in MatOut row order) from the known operand's values."""
    node = spec.nodes[plan.node]
    w_idx = 1 - plan.a_input
    wv = affine_view(node.srcs[w_idx][1], node.srcs[w_idx][2])
    axis = node.axis if node.axis is not None else 0
    n_offsets = [wv.offset]
    for d in plan.n_axes:
        n_offsets = [b + i * wv.strides[d] for b in n_offsets for i in range(wv.sizes[d])]
    ks = [k * wv.strides[axis] for k in range(plan.k)]
    step = n_offsets[1] - n_offsets[0] if len(n_offsets) > 1 else 1
    inside = bool(ks) and min(ks) + n_offsets[0] >= 0 and max(ks) + n_offsets[-1] < len(values)
    if inside and step > 0 and n_offsets == list(range(n_offsets[0], n_offsets[-1] + 1, step)):  # a slice a row
        return [values[b + n_offsets[0] : b + n_offsets[-1] + 1 : step] for b in ks]
    return [[values[b + o] for o in n_offsets] for b in ks]


def weight_vector(rows: list[list[int]], n: int, rho: QM31, lam2: QM31 | None = None) -> list[QM31]:
    """v_k = sum_n W[k, n] rho^n (with lam2, public weights split into limbs:
    sum_n (W_lo + lam2 W_hi)[k, n] rho^n): K N products, four coordinates at once in one big integer
    (as graph/statement._Combiner)."""
    shift, mask = 80, (1 << 80) - 1
    packed = []
    cur = (1, 0, 0, 0)
    for _ in range(n):
        packed.append(cur[0] | (cur[1] << shift) | (cur[2] << 2 * shift) | (cur[3] << 3 * shift))
        cur = q_mul(cur, rho)

    def combine(ws: list[int]) -> QM31:
        t = sum(map(mul, map(P.__rmod__, ws), packed))  # (P.__rmod__(w) = w mod P)
        return ((t & mask) % P, ((t >> shift) & mask) % P, ((t >> 2 * shift) & mask) % P, (t >> 3 * shift) % P)

    if lam2 is None:
        return [combine(row) for row in rows]
    return [q_add(combine([w & 255 for w in row]), q_mul(lam2, combine([w >> 8 for w in row]))) for row in rows]


# --- products of two computed operands (attention) -------------------------------------------------


@dataclass(frozen=True)
class PairPlan:
    """A Dot whose operands are both computed, S[b, m, n] = sum_k A[b, m, k] B[b, k, n] (b: batch
    axes both read, one M axis only A reads, one N axis only B reads), proven by MatPair and a
    MatOut of four limb sums. MatPair's rows run over (k, b..., t), t < R: row t of group (b, k)
    holds A[b, t la + j, k] and B[b, k, t lb + j] (M = la R, N = lb R), both split into 8-bit
    limbs, and two running sums over the group's rows:
        X = sum_m mu^(b M + m) (A_lo + lambda A_hi)[b, m, k]     Y = sum_n rho^n (B_lo + lambda2 B_hi)[b, k, n]
    (mu^(b M + t la) is a run of mu^la over each k's rows; rho^(t lb) a run of rho^lb over each
    group). Each group's last row adds X Y to the running sum; MatOut adds
    -mu^(b M + m) rho^n (S_ll + lambda S_hl + lambda2 S_lh + lambda lambda2 S_hh) per output
    element. They cancel only if every limb sum is right (degree B M + N in mu and rho)."""

    node: int
    b_axes: tuple[int, ...]
    k: int
    groups_rows: int  # R
    la: int
    lb: int
    a_view: AffineView  # (K, b..., R), lane step a_step
    a_step: int
    b_view: AffineView  # (K, b..., R), lane step b_step
    b_step: int
    out_view: AffineView  # (b..., m, n)
    bias: AffineView | None
    bn: int
    m_size: int
    n: int
    m_axis: int = 0  # the broadcast view's axes (the reduced one included)
    n_axis: int = 0
    w_public: bool = True  # (MatOut's four limb sums)
    a_input: int = 0

    @property
    def pair_rows(self) -> int:
        return self.k * self.bn * self.groups_rows

    @property
    def out_rows(self) -> int:
        return self.bn * self.m_size * self.n

    @property
    def m(self) -> int:  # MatOut's groups (one per (b, m))
        return self.bn * self.m_size


MIN_PAIR_LANES = 2  # la + lb: fewer rows of wider width until both operands fill this many lanes (narrow: as MatIn)


def pair_cells(plan_rows: int, la: int, lb: int, out_rows: int) -> int:
    return _padded(plan_rows) * (8 * (la + lb) + 30) + _padded(out_rows) * 110


def pair_plan(spec: GraphSpec, index: int, dot_lanes: int) -> PairPlan | None:
    """The MatPair / MatOut plan of a Dot of two computed operands, or None (a Dot of `dot_lanes`)."""
    node = spec.nodes[index]
    if node.op not in CONTRACT:
        return None
    try:
        av = affine_view(node.srcs[0][1], node.srcs[0][2])
        bv = affine_view(node.srcs[1][1], node.srcs[1][2])
    except ViewError:
        return None
    if av.masked() or bv.masked():
        return None
    axis = node.axis if node.axis is not None else 0
    k = av.sizes[axis]
    b_axes, m_axes, n_axes = [], [], []
    for d, size in enumerate(av.sizes):
        if d == axis or size == 1:
            continue
        if av.strides[d] and bv.strides[d]:
            b_axes.append(d)
        elif av.strides[d]:
            m_axes.append(d)
        elif bv.strides[d]:
            n_axes.append(d)
        else:
            return None
    if len(m_axes) != 1 or len(n_axes) != 1 or k * 255 * 255 + DOT_ACC_BOUND >= P:
        return None
    (ma,), (na,) = m_axes, n_axes
    m, n = av.sizes[ma], av.sizes[na]
    r = 1
    while m % (2 * r) == 0 and n % (2 * r) == 0 and (m + n) // (2 * r) >= MIN_PAIR_LANES:
        r *= 2
    la, lb = m // r, n // r
    if la > MAX_MAT_LANES or lb > MAX_MAT_LANES or n > MAX_N:
        return None
    bn = prod([av.sizes[d] for d in b_axes])
    if pair_cells(k * bn * r, la, lb, bn * m * n) >= dot_cells(bn * m * n * k, dot_lanes):
        return None
    a_view = AffineView([k] + [av.sizes[d] for d in b_axes] + [r],
                        [av.strides[axis]] + [av.strides[d] for d in b_axes] + [av.strides[ma] * la],
                        av.offset, [(0, k)] + [(0, av.sizes[d]) for d in b_axes] + [(0, r)])
    b_view = AffineView([k] + [bv.sizes[d] for d in b_axes] + [r],
                        [bv.strides[axis]] + [bv.strides[d] for d in b_axes] + [bv.strides[na] * lb],
                        bv.offset, [(0, k)] + [(0, bv.sizes[d]) for d in b_axes] + [(0, r)])
    views = _output_views(node, av.sizes, axis, b_axes + [ma, na])
    if views is None:
        return None
    out_view, bias = views
    return PairPlan(index, tuple(b_axes), k, r, la, lb, a_view, av.strides[ma], b_view, bv.strides[na], out_view,
                    bias, bn, m, n, ma, na)


def pair_plans(spec: GraphSpec, lanes: Mapping[int, int], matmuls: set[int]) -> dict[int, PairPlan]:
    """Dot node -> its PairPlan, for the Dots not checked against a known operand (`matmuls`)."""
    plans = {i: pair_plan(spec, i, n) for i, n in lanes.items() if i not in matmuls}
    return {i: plan for i, plan in plans.items() if plan is not None}
