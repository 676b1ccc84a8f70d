"""Polynomials at single points: circle and line polynomial evaluation, vanishing polynomials,
closed-form row selectors, and the single-pair FRI fold formulas (docs/protocol.md, sections 3 and 13).

Basis conventions (shared with the FFTs in tests/reference_fft.py and prover/stark/circle_fft.py):
* circle polynomial of log size n: coefficient k multiplies y^k0 * x^k1 * pi(x)^k2 * ... *
  pi^(n-2)(x)^k(n-1), where k_j is bit j of k and pi(x) = 2x^2 - 1;
* line polynomial of log size m: coefficient k multiplies x^k0 * pi(x)^k1 * ... * pi^(m-1)(x)^k(m-1).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul

from .circle import LOG_ORDER, QPoint, coset_row_index, double_x, index_to_point, point_add, q_double_x
from .fields import (
    P,
    QM31,
    batch_inverse,
    m31_inv,
    q_add,
    q_from_m31,
    q_inv,
    q_mul,
    q_mul_m31,
    q_sub,
)


def _fold_levels(values: list[QM31], factors: list[QM31]) -> QM31:
    """Combine pairs (2i, 2i+1) as v[2i] + f_j * v[2i+1] level by level with factors f_0, f_1, ..."""
    for f in factors:
        values = [q_add(values[i], q_mul(f, values[i + 1])) for i in range(0, len(values), 2)]
    return values[0]


def circle_factors(point: QPoint, log_size: int) -> list[QM31]:
    """[y, x, pi(x), ..., pi^(n-2)(x)] for a circle polynomial of log size n."""
    return [point[1], *line_factors(point[0], log_size - 1)][:log_size]


def eval_circle_poly_m31(coeffs: list[int], point: QPoint) -> QM31:
    """Evaluate a circle polynomial with M31 coefficients at a QM31 point."""
    n = len(coeffs).bit_length() - 1
    if n == 0:
        return q_from_m31(coeffs[0])
    factors = circle_factors(point, n)
    y = factors[0]
    level = [
        q_add(q_from_m31(coeffs[i]), q_mul_m31(y, coeffs[i + 1])) for i in range(0, len(coeffs), 2)
    ]
    return _fold_levels(level, factors[1:])


def line_factors(x: QM31, log_size: int) -> list[QM31]:
    factors = []
    for _ in range(log_size):
        factors.append(x)
        x = q_double_x(x)
    return factors


def eval_line_poly(coeffs: Sequence[QM31], x: QM31) -> QM31:
    """Evaluate a line polynomial with QM31 coefficients at x."""
    n = len(coeffs).bit_length() - 1
    if len(coeffs) != 1 << n:
        raise ValueError("line polynomial size must be a power of two")
    return _fold_levels(list(coeffs), line_factors(x, n))


# --- vanishing polynomials and selectors --------------------------------------------------------


def coset_vanishing(point: QPoint, log_size: int) -> QM31:
    """Z_n(P) = pi^(n-1)(P.x): vanishes exactly on CanonicCoset(n)."""
    x = point[0]
    for _ in range(log_size - 1):
        x = q_double_x(x)
    return x


def _row_constants(row: int, log_size: int, point: tuple[int, int] | None = None) -> tuple[int, int, int]:
    """(x0, y0, k) of a trace row: its point and the normalization k = Z'(x0) * 2 y0."""
    x0, y0 = point if point is not None else index_to_point(coset_row_index(row, log_size))
    # Z'(x0) = prod_{j < n-1} 4 pi^j(x0)  (chain rule through pi(x) = 2x^2 - 1)
    deriv = 1
    xj = x0
    for _ in range(log_size - 1):
        deriv = deriv * 4 * xj % P
        xj = double_x(xj)
    return x0, y0, deriv * 2 * y0 % P


def _row_points(rows: list[int], log_size: int) -> tuple[list[int], list[int]]:
    """The points (xs, ys) of sorted trace rows, each from the previous by one addition (the group
    law inline): boundary rows come in runs of equal gaps, whose multiples of the row step are
    computed once."""
    step_shift = LOG_ORDER - log_size  # row r is the point (2r + 1) << (LOG_ORDER - 1 - n)
    steps: dict[int, tuple[int, int]] = {}
    xs: list[int] = []
    ys: list[int] = []
    prev = rows[0] if rows else 0
    x, y = index_to_point(coset_row_index(prev, log_size))
    for r in rows:
        if r != prev:
            d = steps.get(r - prev)
            if d is None:
                d = steps[r - prev] = index_to_point((r - prev) << step_shift)
            dx, dy = d
            x, y = (x * dx - y * dy) % P, (x * dy + y * dx) % P
            prev = r
        xs.append(x)
        ys.append(y)
    return xs, ys


def sparse_columns_at(point: QPoint, columns: dict[str, dict[int, int]], log_size: int) -> dict[str, QM31]:
    """Each column sum_r c_r * selector_r(point) for sparse columns {row: c_r}: dense_columns_at's
    form over the listed rows only, their points each from the previous by one addition
    (_row_points). ZeroDivisionError if the point lies on the trace domain."""
    rows = sorted({r for col in columns.values() for r in col})
    xs, ys = _row_points(rows, log_size)
    g, packed = _inverse_terms(point, xs)
    # row -> its packed terms times (-1)^r / |D_r| (at1: also times y_r)
    at1: dict[int, int] = {}
    at2: dict[int, int] = {}
    for r, gi, y, t in zip(rows, g, ys, packed):
        if r & 1:
            gi = P - gi
        at1[r] = gi * t
        at2[r] = gi * y % P * t
    scale = q_mul_m31(coset_vanishing(point, log_size), m31_inv(_row_constants(0, log_size)[2]))
    return {key: _combine(point, scale, sum(map(mul, col.values(), map(at1.__getitem__, col))),
                          sum(map(mul, col.values(), map(at2.__getitem__, col))))
            for key, col in columns.items()}


# The four M31 terms of a row's 1 / (P.x - x_r) ride in one integer, _SHIFT bits apart: a sum of up
# to 2^24 products of a 31-bit value, a 31-bit weight and a term keeps each coordinate below 2^117.
_SHIFT = 120
_MASK = (1 << _SHIFT) - 1


def _inverse_terms(point: QPoint, xs: list[int]) -> tuple[list[int], list[int]]:
    """1 / (P.x - x_r) = (A_r conj(D_r) - B u conj(D_r)) / |D_r| for P.x = a + B u, A_r = a - x_r,
    D_r = A_r^2 - (2 + i) B^2 in CM31: (1 / |D_r| for every r, one batch inversion; A_r conj(D_r)
    and conj(D_r) packed, their four M31 coordinates _SHIFT bits apart). ZeroDivisionError if some
    x_r is P.x."""
    (a0, a1, b0, b1), _ = point
    c0, c1 = (b0 * b0 - b1 * b1) % P, 2 * b0 * b1 % P  # B^2
    rb0, rb1 = (2 * c0 - c1) % P, (c0 + 2 * c1) % P  # (2 + i) B^2
    k0, k1 = a1 * a1 + rb0, 2 * a1
    packed: list[int] = []
    norms: list[int] = []
    pack, norm, m, s1, s2, s3 = packed.append, norms.append, P, _SHIFT, 2 * _SHIFT, 3 * _SHIFT  # (locals: the hot loop)
    for x in xs:
        ax = a0 - x
        p0 = (ax * ax - k0) % m  # D_r = p0 + p1 i
        p1 = (k1 * ax - rb1) % m
        norm((p0 * p0 + p1 * p1) % m)
        pack((ax * p0 + a1 * p1) % m | (a1 * p0 - ax * p1) % m << s1 | p0 << s2 | (m - p1) << s3)  # (-p1: P - p1)
    if 0 in norms:
        raise ZeroDivisionError("sample point on the trace domain")
    return batch_inverse(norms), packed


def _combine(point: QPoint, scale: QM31, t1: int, t2: int) -> QM31:
    """scale * (P.y S1 + S2) from packed sums t = sum_r w_r A_r conj(D_r) | ... of _inverse_terms:
    S = sum_r w_r / (P.x - x_r) = sum w A conj(D) + u (-B) sum w conj(D)."""
    (_, _, b0, b1), py = point
    sums = []
    for t in (t1, t2):
        s0, s1, e0, e1 = (((t >> (j * _SHIFT)) & _MASK) % P for j in range(4))
        sums.append((s0, s1, (-(b0 * e0 - b1 * e1)) % P, (-(b0 * e1 + b1 * e0)) % P))
    return q_mul(scale, q_add(q_mul(py, sums[0]), sums[1]))


def dense_columns_at(point: QPoint, columns: list[list[int]], log_size: int) -> list[QM31]:
    """Columns given on every trace row of CanonicCoset(n) (row order, canonical values) at a point
    off the coset, the Lagrange form summed over all N rows in O(N) base-field work.

    * Rows r and N-1-r are conjugate points (x_r, +-y_r), and k_r = Z'(x_r) 2 y_r = (-1)^r k_0 with
      k_0 = +-2^n (Z' is 2^(n-1) y(2^(n-1) P) / y(P), and y(2^(n-1) P) = +-1 on the coset), so a
      pair contributes (-1)^r (d_r P.y + s_r y_r) / (k_0 (P.x - x_r)), d = t_r - t_r', s = t_r + t_r'.
    * P.x - x_r = A_r + B u (A_r = a - x_r, a and B in CM31) has inverse (A_r - B u) / D_r with
      D_r = A_r^2 - (2 + i) B^2 in CM31, whose inverse needs one M31 inverse of its norm: all N/2
      of them in one batch (_inverse_terms).
    ZeroDivisionError if the point lies on the coset."""
    n = log_size
    if n < 1 or any(len(c) != 1 << n for c in columns):
        raise ValueError(f"dense columns need 2^{n} values each, n >= 1")
    half = 1 << (n - 1)
    step = index_to_point(1 << (LOG_ORDER - n))
    pt = index_to_point(coset_row_index(0, n))
    xs, ys = [0] * half, [0] * half
    for r in range(half):
        xs[r], ys[r] = pt
        pt = point_add(pt, step)
    g, packed = _inverse_terms(point, xs)
    for r in range(1, half, 2):
        g[r] = P - g[r]  # (-1)^r
    gy = [gi * y % P for gi, y in zip(g, ys)]
    scale = q_mul_m31(coset_vanishing(point, n), m31_inv(_row_constants(0, n)[2]))
    out = []
    for t in columns:
        rev = t[::-1]  # rev[r] = t[N-1-r]
        w1 = [(t[r] - rev[r]) * g[r] % P for r in range(half)]  # (-1)^r d_r / |D_r|
        w2 = [(t[r] + rev[r]) * gy[r] % P for r in range(half)]  # (-1)^r s_r y_r / |D_r|
        out.append(_combine(point, scale, sum(map(int.__mul__, w1, packed)), sum(map(int.__mul__, w2, packed))))
    return out


def row_selector(point: QPoint, row: int, log_size: int) -> QM31:
    """The polynomial that is 1 on trace row `row` of CanonicCoset(n) and 0 on every other row,
    evaluated at a point off the coset:  Z(P) * (P.y + y0) / ((P.x - x0) * Z'(x0) * 2 y0).

    Z(x)/(x - x0) kills every row except the two with x = x0; the factor (y + y0) kills the
    conjugate row. The result has x-degree N/2 - 1, so it is the row's Lagrange polynomial in the
    circle basis of size N, the same polynomial the prover gets by interpolating the 0/1 column."""
    x0, y0, k = _row_constants(row, log_size)
    num = q_mul(coset_vanishing(point, log_size), q_add(point[1], q_from_m31(y0)))
    den = q_mul_m31(q_sub(point[0], q_from_m31(x0)), k)
    return q_mul(num, q_inv(den))


# --- FRI fold formulas (one pair) ---------------------------------------------------------------


def fold_circle_pair(f_p: QM31, f_conj: QM31, y: int, alpha: QM31) -> QM31:
    """Circle -> line fold of the pair (f(p), f(conj p)): (f0 + alpha * f1) with
    f0 = f(p) + f(conj p), f1 = (f(p) - f(conj p)) / p.y  (no 1/2 factor)."""
    f0 = q_add(f_p, f_conj)
    f1 = q_mul_m31(q_sub(f_p, f_conj), pow(y, P - 2, P))
    return q_add(f0, q_mul(alpha, f1))


def fold_line_pair(f_x: QM31, f_negx: QM31, x: int, alpha: QM31) -> QM31:
    """Line fold of the pair (f(x), f(-x)): f0 + alpha * f1, f0 = f(x) + f(-x), f1 = (f(x) - f(-x)) / x."""
    f0 = q_add(f_x, f_negx)
    f1 = q_mul_m31(q_sub(f_x, f_negx), pow(x, P - 2, P))
    return q_add(f0, q_mul(alpha, f1))

