"""The verifier's evaluator: every mask value is a QM31 sampled at (a shift of) the OODS point, and
the composition is rebuilt from those values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..circle import QPoint, qpoint_add_m31, index_to_point, subgroup_gen_index
from ..fields import (
    QM31,
    QZERO,
    from_partial_evals,
    q_add,
    q_from_m31,
    q_inv,
    q_mul,
    q_neg,
    q_pow,
    q_sub,
)
from ..circle import q_double_x
from ..poly import coset_vanishing, row_selector, sparse_columns_at
from .framework import (
    COMPOSITION_SPLIT,
    LOG_EXPAND,
    Air,
    Component,
    Layout,
    RelationElements,
    logup_constraints,
)


class PV:
    """A QM31 value with arithmetic operators (ints are lifted)."""

    __slots__ = ("v",)

    def __init__(self, v: QM31) -> None:
        self.v = v

    @staticmethod
    def _q(o: Any) -> QM31:
        if isinstance(o, PV):
            return o.v
        return q_from_m31(o)

    def __add__(self, o: Any) -> "PV":
        return PV(q_add(self.v, self._q(o)))

    __radd__ = __add__

    def __sub__(self, o: Any) -> "PV":
        return PV(q_sub(self.v, self._q(o)))

    def __rsub__(self, o: Any) -> "PV":
        return PV(q_sub(self._q(o), self.v))

    def __mul__(self, o: Any) -> "PV":
        return PV(q_mul(self.v, self._q(o)))

    __rmul__ = __mul__

    def __neg__(self) -> "PV":
        return PV(q_neg(self.v))


def shifted_point(oods: QPoint, offset: int, log_size: int) -> QPoint:
    """oods + offset * G_N: the point where a mask at `offset` rows is sampled."""
    if offset == 0:
        return oods
    return qpoint_add_m31(oods, index_to_point(offset * subgroup_gen_index(log_size)))


class PointEvaluator:
    def __init__(
        self,
        comp_index: int,
        component: Component,
        layout: Layout,
        sampled: Sequence[Sequence[Sequence[QM31]]],
        oods: QPoint,
        alpha: QM31,
        challenges: dict[str, QM31] | None = None,
    ) -> None:
        self.ci = comp_index
        self.challenges = challenges or {}
        self.terms: list[PV] = []
        self._periodic: dict[str, QM31] | None = None
        self.component = component
        self.layout = layout
        self.sampled = sampled
        self.oods = oods
        self.alpha = alpha
        self.acc = QZERO
        self.entries: list[tuple[str, Any, list[Any]]] = []
        self._main_index = {name: i for i, name in enumerate(component.main_columns)}
        self._sparse: dict[str, QM31] | None = None

    def _value(self, tree: int, col: int, offset: int) -> QM31:
        slot = self.layout.columns[tree][col]
        return self.sampled[tree][col][slot.masks.index(offset)]

    def main(self, name: str, offset: int = 0) -> PV:
        col = self.layout.main_offset[self.ci] + self._main_index[name]
        return PV(self._value(self.layout.main_tree, col, offset))

    def pre(self, key: str, offset: int = 0) -> PV:
        tree, col = self.layout.pre_index[key]
        return PV(self._value(tree, col, offset))

    def selector(self, row: Any, offset: int = 0) -> PV:
        n = self.component.log_size
        return PV(row_selector(shifted_point(self.oods, offset, n), self.component.selector_row(row), n))

    def sparse(self, key: str) -> PV:
        if self._sparse is None:
            comp = self.component
            self._sparse = sparse_columns_at(self.oods, comp.sparse_columns, comp.log_size)
        return PV(self._sparse[key])

    def challenge(self, name: str) -> PV:
        return PV(self.challenges[name])

    def periodic(self, key: str) -> PV:
        if self._periodic is None:
            self._periodic = periodic_at(self.oods, self.component.periodic_values(self.challenges), self.component.log_size)
        return PV(self._periodic[key])

    def _secure(self, base: int, offset: int) -> PV:
        """The QM31 value of interaction-tree columns base..base+3."""
        tree = self.layout.interaction_tree
        assert tree is not None
        return PV(from_partial_evals([self._value(tree, base + k, offset) for k in range(4)]))

    def aux(self, name: str, offset: int = 0) -> PV:
        base = self.layout.aux_offset[self.ci] + 4 * list(self.component.aux_columns).index(name)
        return self._secure(base, offset)

    def add_to_sum(self, term: Any) -> None:
        self.terms.append(term if isinstance(term, PV) else PV(q_from_m31(term)))

    def interaction(self, batch: int, offset: int) -> PV:
        return self._secure(self.layout.interaction_offset[self.ci] + 4 * batch, offset)

    def secure(self, q: QM31) -> PV:
        return PV(q)

    def add_constraint(self, expr: PV) -> None:
        self.acc = q_add(q_mul(self.acc, self.alpha), expr.v)

    def add_to_relation(self, relation: str, multiplicity: Any, values: list[Any]) -> None:
        self.entries.append((relation, multiplicity, values))


def double_point(p: QPoint, times: int) -> QPoint:
    """pi^times(P): the point doubled `times` times ((x, y) -> (2x^2 - 1, 2xy))."""
    x, y = p
    for _ in range(times):
        x, y = q_double_x(x), q_mul(q_add(x, x), y)
    return x, y


def periodic_at(
    oods: QPoint, columns: dict[str, tuple[int, list[QM31]]], log_size: int
) -> dict[str, QM31]:
    """Each periodic column at the OODS point. Row r of CanonicCoset(n) doubled n - p times is row
    r mod 2^p of CanonicCoset(p) (point index (2r + 1) 2^(30-n), times 2^(n-p)), so a column
    repeating every 2^p rows is g(pi^(n-p)(P)), g the period's own polynomial on CanonicCoset(p):
    a sum of that domain's row selectors, one coordinate at a time."""
    out: dict[str, QM31] = {}
    by_log: dict[int, dict[str, dict[int, int]]] = {}
    for key, (p, values) in columns.items():
        if p == 0:  # a constant column
            out[key] = values[0]
            continue
        cols = by_log.setdefault(p, {})
        for c in range(4):
            cols[f"{key}#{c}"] = {r: v[c] for r, v in enumerate(values) if v[c]}
    for p, cols in by_log.items():
        at = sparse_columns_at(double_point(oods, log_size - p), cols, p)
        for key in {k.rsplit("#", 1)[0] for k in cols}:
            out[key] = from_partial_evals([at[f"{key}#{c}"] for c in range(4)])
    return out


def composition_at_oods(
    air: Air,
    sampled: Sequence[Sequence[Sequence[QM31]]],
    oods: QPoint,
    alpha: QM31,
    elements: dict[str, RelationElements],
    claimed_sums: dict[int, QM31],
    challenges: dict[str, QM31] | None = None,
) -> QM31:
    """sum over all constraints of alpha^(N-1-i) * C_i(oods) / Z_component(oods), in global order."""
    total = QZERO
    for ci, (comp, info) in enumerate(zip(air.components, air.infos)):
        ev = PointEvaluator(ci, comp, air.layout, sampled, oods, alpha, challenges)
        comp.evaluate(ev)
        if info.n_batches:
            n_inv = q_inv(q_from_m31(1 << comp.log_size))
            shift = q_mul(claimed_sums[ci], n_inv)
            logup_constraints(ev, ev.entries, elements, info.n_batches, shift, ev.terms)
        z_inv = q_inv(coset_vanishing(oods, comp.log_size))
        total = q_add(q_mul(total, q_pow(alpha, info.n_constraints)), q_mul(ev.acc, z_inv))
    return total


def composition_from_samples(air: Air, sampled: Sequence[Sequence[Sequence[QM31]]], oods: QPoint) -> QM31:
    """Recombine the split composition. Part j holds the coefficients whose index has j in its top
    LOG_EXPAND bits, and bit B-1-t of a circle coefficient index multiplies its basis element by
    pi^(B-2-t)(x) (B = max_n + LOG_EXPAND): with 4 parts,
    C(z) = P0 + pi^(B-3)(x) P1 + pi^(B-2)(x) (P2 + pi^(B-3)(x) P3)."""
    comp_tree = sampled[air.layout.composition_tree]
    parts = [from_partial_evals([comp_tree[4 * j + k][0] for k in range(4)]) for j in range(COMPOSITION_SPLIT)]
    bound = air.max_log_size + LOG_EXPAND
    doublings = [oods[0]]  # pi^t(x) for t < B - 1
    for _ in range(bound - 2):
        doublings.append(q_double_x(doublings[-1]))
    total = QZERO
    for j, value in enumerate(parts):
        for t in range(LOG_EXPAND):  # bit t of j is index bit B - LOG_EXPAND + t
            if j >> t & 1:
                value = q_mul(value, doublings[bound - 1 - LOG_EXPAND + t])
        total = q_add(total, value)
    return total
