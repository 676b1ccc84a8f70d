"""DEEP quotients at the queried points (docs/protocol.md "12. DEEP quotients").

Every committed column f sampled at a QM31 point z with claimed value v contributes
    alpha^k * (c * f(P) - (a * P.y + b)) / D_z(P)
to the quotient column of its committed log size, where a = conj(v) - v, c = conj(z).y - z.y,
b = v*c - a*z.y (the line through (z.y, v) and (conj(z).y, conj(v)) is (a*y + b)/c) and
D_z(P) = (Re z.x - P.x) * Im z.y - (Re z.y - P.y) * Im z.x  (CM31-valued, z = Re + u*Im) vanishes
at z and conj(z). k counts the samples of that log size in commitment order (tree, column, mask).
The quotient is a polynomial of the column's degree exactly when every claimed value is right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .circle import QPoint, domain_point
from .errors import FormatError
from .formats import Decommitment
from .merkle import verify_decommitment
from .fields import (
    P,
    QM31,
    cm_inv,
    cm_mul,
    q_add,
    q_conj,
    q_mul,
    q_sub,
)


@dataclass(frozen=True)
class Sample:
    """Column `col` of tree `tree` sampled at `point` with claimed `value`."""

    tree: int
    col: int
    point: QPoint
    value: QM31


@dataclass
class _PointGroup:
    point: QPoint
    gammas: list[tuple[QM31, int, int]]  # (alpha^k * c_k, tree, col)
    a_sum: QM31
    b_sum: QM31


def _groups(samples: list[Sample], alpha: QM31) -> list[_PointGroup]:
    groups: dict[QPoint, _PointGroup] = {}
    power: QM31 = (1, 0, 0, 0)
    for s in samples:
        z = s.point
        v = s.value
        a = q_sub(q_conj(v), v)
        c = q_sub(q_conj(z[1]), z[1])
        b = q_sub(q_mul(v, c), q_mul(a, z[1]))
        g = groups.get(z)
        if g is None:
            g = groups[z] = _PointGroup(z, [], (0, 0, 0, 0), (0, 0, 0, 0))
        g.gammas.append((q_mul(power, c), s.tree, s.col))
        g.a_sum = q_add(g.a_sum, q_mul(power, a))
        g.b_sum = q_add(g.b_sum, q_mul(power, b))
        power = q_mul(power, alpha)
    return list(groups.values())


def _denominator_inverse(z: QPoint, px: int, py: int) -> tuple[int, int]:
    zx, zy = z
    # z.x = (zx0 + zx1 i) + (zx2 + zx3 i) u: real part (zx0, zx1), imaginary part (zx2, zx3)
    rx0, rx1, ix0, ix1 = zx
    ry0, ry1, iy0, iy1 = zy
    ax0, ax1 = (rx0 - px) % P, rx1
    ay0, ay1 = (ry0 - py) % P, ry1
    # (ax * iy) - (ay * ix) in CM31
    d0 = (ax0 * iy0 - ax1 * iy1 - (ay0 * ix0 - ay1 * ix1)) % P
    d1 = (ax0 * iy1 + ax1 * iy0 - (ay0 * ix1 + ay1 * ix0)) % P
    return cm_inv((d0, d1))


def _mul_cm(q: QM31, c: tuple[int, int]) -> QM31:
    """A QM31 times a CM31: each CM31 half of q times c."""
    return (*cm_mul((q[0], q[1]), c), *cm_mul((q[2], q[3]), c))


def quotient_values(
    log_size: int,
    positions: list[int],
    samples: list[Sample],
    opened: dict[tuple[int, int], dict[int, int]],
    alpha: QM31,
) -> dict[int, QM31]:
    """The quotient column of committed log size `log_size` at storage `positions`, from the
    opened values of every sampled column of that size."""
    groups = _groups(samples, alpha)
    out: dict[int, QM31] = {}
    for pos in positions:
        px, py = domain_point(pos, log_size)
        acc = (0, 0, 0, 0)
        for g in groups:
            s0 = s1 = s2 = s3 = 0
            for gamma, tree, col in g.gammas:
                f = opened[(tree, col)][pos]
                s0 += gamma[0] * f
                s1 += gamma[1] * f
                s2 += gamma[2] * f
                s3 += gamma[3] * f
            a = g.a_sum
            b = g.b_sum
            num = (
                (s0 - a[0] * py - b[0]) % P,
                (s1 - a[1] * py - b[1]) % P,
                (s2 - a[2] * py - b[2]) % P,
                (s3 - a[3] * py - b[3]) % P,
            )
            acc = q_add(acc, _mul_cm(num, _denominator_inverse(g.point, px, py)))
        out[pos] = acc
    return out


# --- trace trees: a leaf holds one position of every column of its size -----------------------


def open_trace_tree(
    tree: str,
    root: bytes,
    log_sizes: list[int],
    positions: dict[int, list[int]],
    queried_values: Sequence[Sequence[int]],
    decommitment: Decommitment,
) -> list[dict[int, int]]:
    """Check the openings of one trace tree and return, per column, position -> value at the
    query positions of its size. Only those positions are opened: the DEEP quotient is needed
    there alone (FRI's first layer commits the quotient, whose fold siblings it opens), so a
    leaf per position opens one value a column a query where a leaf per fold pair opened two."""
    for c, s in enumerate(log_sizes):
        if len(queried_values[c]) != len(positions[s]):
            raise FormatError(
                f"proof.bin: {tree} tree column {c} opens {len(queried_values[c])} values, "
                f"expected {len(positions[s])}"
            )
    verify_decommitment(
        tree,
        root,
        log_sizes,
        {s: positions[s] for s in set(log_sizes)},
        queried_values,
        decommitment.hash_witness,
        decommitment.column_witness,
    )
    return [dict(zip(positions[s], queried_values[c])) for c, s in enumerate(log_sizes)]
