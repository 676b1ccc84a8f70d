"""The prover's evaluators: the same component code as the verifier's PointEvaluator, but every
mask value is a whole column over a domain (numpy), in storage order.

* `DomainEvaluator` on the trace domain collects LogUp entries row by row (interaction trace) and
  can report which constraint fails on which row (`failing_constraints`);
* on the constraint-evaluation domain (log size n + LOG_EXPAND) it accumulates the random combination of
  all constraints, in the verifier's order, for the composition polynomial.
"""

from __future__ import annotations

from typing import Any, Callable

from ...verifier.air.framework import LOGUP_BATCH, Component, RelationElements, logup_constraints
from ...verifier.fields import P, QM31, q_inv, q_mul, q_pow
from . import field_vec as fv
from . import logup_batches
from .backend import U64, Array, xp

_P = U64(P)
BASE_BLOCK = 16  # base-field constraints combined per matrix product (16 columns of the domain held at once)


class BV:
    """A base-field column (uint64, canonical)."""

    __slots__ = ("a",)

    def __init__(self, a: Array) -> None:
        self.a = a

    def __add__(self, o: Any) -> Any:
        if isinstance(o, SV):
            return o + self
        if isinstance(o, BV):
            return BV(fv.add(self.a, o.a))
        return BV(fv.add(self.a, U64(o % P)))

    __radd__ = __add__

    def __sub__(self, o: Any) -> Any:
        if isinstance(o, SV):
            return (-o) + self
        if isinstance(o, BV):
            return BV(fv.sub(self.a, o.a))
        return BV(fv.sub(self.a, U64(o % P)))

    def __rsub__(self, o: Any) -> Any:
        return (-self) + o

    def __mul__(self, o: Any) -> Any:
        if isinstance(o, SV):
            return o * self
        if isinstance(o, BV):
            return BV(fv.mul(self.a, o.a))
        return BV(fv.mul_scalar(self.a, o))

    __rmul__ = __mul__

    def __neg__(self) -> "BV":
        return BV(fv.neg(self.a))


class SV:
    """A QM31 column (4 coordinate arrays; constants use 0-d arrays and broadcast)."""

    __slots__ = ("c",)

    def __init__(self, c: tuple[Array, Array, Array, Array]) -> None:
        self.c = c

    @staticmethod
    def const(q: QM31) -> "SV":
        return SV(tuple(xp.asarray(v, dtype=U64) for v in q))  # type: ignore[arg-type]

    def _lift(self, o: Any) -> "SV":
        if isinstance(o, SV):
            return o
        if isinstance(o, BV):
            z = xp.zeros((), dtype=U64)
            return SV((o.a, z, z, z))
        return SV.const((o % P, 0, 0, 0))

    def __add__(self, o: Any) -> "SV":
        o = self._lift(o)
        return SV(tuple(fv.add(a, b) for a, b in zip(self.c, o.c)))  # type: ignore[arg-type]

    __radd__ = __add__

    def __sub__(self, o: Any) -> "SV":
        o = self._lift(o)
        return SV(tuple(fv.sub(a, b) for a, b in zip(self.c, o.c)))  # type: ignore[arg-type]

    def __rsub__(self, o: Any) -> "SV":
        return self._lift(o) - self

    def __mul__(self, o: Any) -> "SV":
        if isinstance(o, BV):
            return SV(tuple(fv.mul(a, o.a) for a in self.c))  # type: ignore[arg-type]
        if isinstance(o, int):
            if o % P == 1:  # most LogUp numerators
                return self
            return SV(tuple(fv.mul_scalar(a, o) for a in self.c))  # type: ignore[arg-type]
        return SV(fv.q_mul(self.c, o.c))  # type: ignore[arg-type]

    __rmul__ = __mul__

    def __neg__(self) -> "SV":
        return SV(tuple(fv.neg(a) for a in self.c))  # type: ignore[arg-type]


def as_secure(v: Any, n: int) -> tuple[Array, Array, Array, Array]:
    """Any evaluator value -> 4 full-length coordinate arrays."""
    if isinstance(v, BV):
        z = xp.zeros(n, dtype=U64)
        return (v.a, z, z.copy(), z.copy())
    if isinstance(v, SV):
        return tuple(xp.broadcast_to(c, (n,)).astype(U64) for c in v.c)  # type: ignore[return-value]
    return (xp.full(n, v % P, dtype=U64), xp.zeros(n, U64), xp.zeros(n, U64), xp.zeros(n, U64))


ColumnSource = Callable[[str, str, int], Array]


class DomainEvaluator:
    """Evaluates one component over a whole domain. `source(kind, key, offset)` returns the
    storage-order column for kind in {"main", "pre", "selector", "sparse"}; `interaction(batch, offset)`
    returns a QM31 column."""

    def __init__(
        self,
        component: Component,
        size: int,
        source: ColumnSource,
        interaction: Callable[[int, int], tuple[Array, Array, Array, Array]] | None = None,
        alpha: QM31 | None = None,
        n_constraints: int = 0,
        collect: bool = False,
        challenges: dict[str, QM31] | None = None,
        aux: Callable[[str, int], tuple[Array, Array, Array, Array]] | None = None,
        periodic: Callable[[str], tuple[Array, Array, Array, Array]] | None = None,
    ) -> None:
        """Without challenges (counting lookups before they are drawn), challenges, aux and
        periodic columns read as zero: only the LogUp entries are used then."""
        self.component = component
        self.challenges = challenges
        self._aux = aux
        self._periodic = periodic
        self.terms: list[Any] = []
        self.size = size
        self.source = source
        self._interaction = interaction
        self.entries: list[tuple[str, Any, list[Any]]] = []
        self.collect = collect
        self.constraints: list[Any] = []
        self._acc: tuple[Array, Array, Array, Array] | None = None
        self._base: list[tuple[QM31, Array]] = []  # base-field constraints not yet added to acc
        self._coef: QM31 | None = None
        self.alpha = alpha
        if alpha is not None:
            self._coef = q_pow(alpha, n_constraints - 1) if n_constraints else (1, 0, 0, 0)
            self._alpha_inv = q_inv(alpha)

    def main(self, name: str, offset: int = 0) -> BV:
        return BV(self.source("main", name, offset))

    def pre(self, key: str, offset: int = 0) -> BV:
        return BV(self.source("pre", key, offset))

    def selector(self, row: Any, offset: int = 0) -> BV:
        return BV(self.source("selector", str(self.component.selector_row(row)), offset))

    def sparse(self, key: str) -> BV:
        return BV(self.source("sparse", key, 0))

    def interaction(self, batch: int, offset: int) -> SV:
        assert self._interaction is not None
        return SV(self._interaction(batch, offset))

    def secure(self, q: QM31) -> SV:
        return SV.const(q)

    def challenge(self, name: str) -> SV:
        return SV.const(self.challenges[name] if self.challenges is not None else (0, 0, 0, 0))

    def aux(self, name: str, offset: int = 0) -> SV:
        return SV(self._aux(name, offset)) if self._aux is not None else SV.const((0, 0, 0, 0))

    def periodic(self, key: str) -> SV:
        return SV(self._periodic(key)) if self._periodic is not None else SV.const((0, 0, 0, 0))

    def add_to_sum(self, term: Any) -> None:
        self.terms.append(term)

    def add_constraint(self, expr: Any) -> None:
        if self.collect:
            self.constraints.append(expr)
        if self._coef is None:
            return
        coef = self._next_coef()
        if isinstance(expr, BV):  # combined in blocks by one float64 matrix product (secure_lincomb)
            self._base.append((coef, expr.a))
            if len(self._base) == BASE_BLOCK:
                self._flush()
            return
        if isinstance(expr, SV):
            if logup_batches.usable(self.size):  # in place: the accumulator is this evaluator's own
                self._acc = logup_batches.add_scaled(self._acc, coef, expr.c, self.size)
                return
            term = fv.q_mul(as_secure(expr, self.size), tuple(xp.asarray(c, dtype=U64) for c in coef))  # type: ignore[arg-type]
        else:
            term = as_secure(expr, self.size)
            term = fv.q_mul(term, tuple(xp.asarray(c, dtype=U64) for c in coef))  # type: ignore[arg-type]
        self._add(term)

    def _next_coef(self) -> QM31:
        """The next constraint's coefficient: alpha^(n_constraints - 1) down to alpha^0."""
        coef = self._coef
        assert coef is not None
        self._coef = q_mul(coef, self._alpha_inv)
        return coef

    def _add(self, term: tuple[Array, Array, Array, Array]) -> None:
        """Invariant: _acc's arrays are this evaluator's own (fresh results), so they may be updated in place."""
        if self._acc is None:
            self._acc = term
        elif logup_batches.usable(self.size) and all(t.shape == (self.size,) and t.dtype == U64 for t in term):
            self._acc = logup_batches.owned(self._acc, self.size)
            logup_batches.add_into(self._acc, logup_batches.contiguous(term, self.size))
        else:
            self._acc = fv.q_add(self._acc, term)

    def _flush(self) -> None:
        if self._base:
            from .pcs_prover import secure_lincomb

            self._add(secure_lincomb([c for c, _ in self._base], [a for _, a in self._base]))
            self._base = []

    @property
    def acc(self) -> tuple[Array, Array, Array, Array] | None:
        """The random combination of every constraint added so far."""
        self._flush()
        return self._acc

    def add_to_relation(self, relation: str, multiplicity: Any, values: list[Any]) -> None:
        self.entries.append((relation, multiplicity, values))

    def finalize_logup(self, elements: dict[str, RelationElements], n_batches: int, shift: QM31) -> None:
        """logup_constraints (the reference), its fraction batches by the compiled kernels where
        they apply (logup_batches): the same constraints, in the same order, with the same
        coefficients."""
        if not n_batches:
            return
        n_fractions = n_batches - len(self.terms)
        args = None
        if self._coef is not None and not self.collect and logup_batches.usable(self.size):
            args = [logup_batches.inputs(self.entries[LOGUP_BATCH * b : LOGUP_BATCH * (b + 1)], elements, self.size)
                    for b in range(n_fractions)]
        if args is None or any(a is None for a in args):
            logup_constraints(self, self.entries, elements, n_batches, shift, self.terms)
            return
        prev = None
        for b in range(n_batches):
            s = self.interaction(b, 0)
            diff = s if prev is None else s - prev
            if b == n_batches - 1:
                diff = diff - self.interaction(b, -1) + self.secure(shift)
            if b < n_fractions:
                num, den = logup_batches.fraction(args[b], self.size)  # type: ignore[arg-type]
                self._acc = logup_batches.add_constraint(self._acc, self._next_coef(), diff.c, num, den, self.size)
            else:
                self.add_constraint(diff - self.terms[b - n_fractions])
            prev = s


def combine_values(values: list[Any], el: RelationElements, n: int) -> tuple[Array, Array, Array, Array]:
    """sum_j alpha^j v_j - z as a QM31 column (twin of the verifier's combine)."""
    powers = el.powers(len(values))
    acc = as_secure(values[0], n)
    acc = tuple(xp.array(c, dtype=U64) for c in acc)
    for j in range(1, len(values)):
        v = values[j]
        term = fv.base_times_const(v.a, powers[j]) if isinstance(v, BV) else fv.q_mul_const(as_secure(v, n), powers[j])
        acc = fv.q_add(acc, term)  # type: ignore[arg-type]
    zneg = tuple(xp.asarray((-c) % P, dtype=U64) for c in el.z)
    return fv.q_add(acc, zneg)  # type: ignore[arg-type]
