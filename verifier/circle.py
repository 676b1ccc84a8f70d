"""The circle group over M31 and QM31, point indices, cosets, canonic domains and storage orders
(docs/protocol.md "2. The circle group and its domains").

A point of the M31 circle group is written by its *index* k (the point k*G for the generator G of
order 2^31); index arithmetic is mod 2^31. Domains used by the protocol:

* ``CanonicCoset(n)``: the trace domain of 2^n rows; row r is the point of index (2r+1) * 2^(30-n).
* the circle domain of log size n is the same point set, stored in *bit-reversed* order: natural
  index i < N/2 is the half-coset point (4i+1) * 2^(30-n), natural index N/2 + i its conjugate;
  storage position q holds natural index bitrev_n(q).
* the line domain of log size m holds x-coordinates of the half-coset points (4i+1) * 2^(29-m),
  also bit-reversed; storage pairs (2i, 2i+1) are (x, -x); doubling x -> 2x^2-1 maps it onto the
  line domain of log size m-1 with the same position i.
"""

from __future__ import annotations

from functools import lru_cache

from .fields import P, QM31, q_add, q_mul, q_sub, q_inv, q_from_m31, q_mul_m31, QONE

LOG_ORDER = 31
ORDER = 1 << LOG_ORDER
GEN = (2, 1268011823)

Point = tuple[int, int]
QPoint = tuple[QM31, QM31]


def point_add(a: Point, b: Point) -> Point:
    x1, y1 = a
    x2, y2 = b
    return ((x1 * x2 - y1 * y2) % P, (x1 * y2 + y1 * x2) % P)


def _gen_powers() -> list[Point]:
    out = [GEN]
    for _ in range(LOG_ORDER - 1):
        out.append(point_add(out[-1], out[-1]))
    return out


_POW2_GEN = _gen_powers()  # _POW2_GEN[j] = 2^j * G


@lru_cache(maxsize=1 << 16)
def index_to_point(k: int) -> Point:
    """The point k*G, by double-and-add over the 31 precomputed doublings of G."""
    k %= ORDER
    acc = (1, 0)
    j = 0
    while k:
        if k & 1:
            acc = point_add(acc, _POW2_GEN[j])
        k >>= 1
        j += 1
    return acc


def subgroup_gen_index(log_size: int) -> int:
    """Index of G_{2^log_size}, the generator of the subgroup of order 2^log_size."""
    return 1 << (LOG_ORDER - log_size)


def double_x(x: int) -> int:
    return (2 * x * x - 1) % P


def bit_reverse(i: int, log_size: int) -> int:
    r = 0
    for _ in range(log_size):
        r = (r << 1) | (i & 1)
        i >>= 1
    return r


# --- canonic cosets and domains -----------------------------------------------------------------


def coset_row_index(row: int, log_size: int) -> int:
    """Point index of trace row `row` of CanonicCoset(log_size)."""
    return ((2 * row + 1) << (LOG_ORDER - 1 - log_size)) % ORDER


def domain_natural_index(i: int, log_size: int) -> int:
    """Point index of natural position i of the circle domain of log size n."""
    half = 1 << (log_size - 1)
    if i < half:
        return ((4 * i + 1) << (LOG_ORDER - 1 - log_size)) % ORDER
    return (-((4 * (i - half) + 1) << (LOG_ORDER - 1 - log_size))) % ORDER


def domain_storage_index(q: int, log_size: int) -> int:
    """Point index of storage position q (bit-reversed) of the circle domain of log size n."""
    return domain_natural_index(bit_reverse(q, log_size), log_size)


def domain_point(q: int, log_size: int) -> Point:
    return index_to_point(domain_storage_index(q, log_size))


def row_to_natural(row: int, log_size: int) -> int:
    """Natural domain position holding trace row `row` (even rows first, odd rows reversed)."""
    n = 1 << log_size
    if row % 2 == 0:
        return row // 2
    return (2 * n - 1 - row) // 2


def row_to_storage(row: int, log_size: int) -> int:
    return bit_reverse(row_to_natural(row, log_size), log_size)


def line_domain_x(q: int, log_size: int) -> int:
    """x-coordinate at storage position q of the line domain of log size m."""
    k = (4 * bit_reverse(q, log_size) + 1) << (LOG_ORDER - 2 - log_size)
    return index_to_point(k % ORDER)[0]


# --- QM31 points (out-of-domain sampling) -------------------------------------------------------


def qpoint_add_m31(a: QPoint, b: Point) -> QPoint:
    x1, y1 = a
    x2, y2 = b
    return (
        q_sub(q_mul_m31(x1, x2), q_mul_m31(y1, y2)),
        q_add(q_mul_m31(x1, y2), q_mul_m31(y1, x2)),
    )


def qpoint_from_t(t: QM31) -> QPoint:
    """The circle point ((1 - t^2) / (1 + t^2), 2t / (1 + t^2)) (random point from the channel)."""
    t2 = q_mul(t, t)
    denom_inv = q_inv(q_add(QONE, t2))
    x = q_mul(q_sub(QONE, t2), denom_inv)
    y = q_mul(q_add(t, t), denom_inv)
    return (x, y)


def qpoint_from_point(a: Point) -> QPoint:
    return (q_from_m31(a[0]), q_from_m31(a[1]))


def q_double_x(x: QM31) -> QM31:
    """pi(x) = 2x^2 - 1 on QM31."""
    sq = q_mul(x, x)
    return ((2 * sq[0] - 1) % P, 2 * sq[1] % P, 2 * sq[2] % P, 2 * sq[3] % P)
