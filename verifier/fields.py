"""M31, CM31 and QM31 arithmetic on plain Python ints and tuples (docs/protocol.md "1. Fields").

* M31 elements are ints in [0, P).
* CM31 = M31[i]/(i^2 + 1): pairs (a, b) meaning a + b*i.
* QM31 = CM31[u]/(u^2 - (2 + i)): 4-tuples (a, b, c, d) meaning (a + b*i) + (c + d*i)*u.

Functions rather than classes keep the verifier fast in CPython and Pyodide; every function returns
canonical values.
"""

from __future__ import annotations

P = (1 << 31) - 1

QM31 = tuple[int, int, int, int]
CM31 = tuple[int, int]

QZERO: QM31 = (0, 0, 0, 0)
QONE: QM31 = (1, 0, 0, 0)


# --- M31 ----------------------------------------------------------------------------------------


def m31_inv(a: int) -> int:
    if a % P == 0:
        raise ZeroDivisionError("inverse of zero in M31")
    return pow(a, P - 2, P)


def batch_inverse(values: list[int]) -> list[int]:
    """Montgomery's trick for M31: one inversion for the whole list."""
    n = len(values)
    if n == 0:
        return []
    prefix = [0] * n
    acc = 1
    for i, v in enumerate(values):
        prefix[i] = acc
        acc = acc * v % P
    inv = m31_inv(acc)
    out = [0] * n
    for i in range(n - 1, -1, -1):
        out[i] = inv * prefix[i] % P
        inv = inv * values[i] % P
    return out


# --- CM31 ---------------------------------------------------------------------------------------


def cm_mul(x: CM31, y: CM31) -> CM31:
    a, b = x
    c, d = y
    return ((a * c - b * d) % P, (a * d + b * c) % P)


def cm_inv(x: CM31) -> CM31:
    a, b = x
    n = (a * a + b * b) % P
    inv = m31_inv(n)
    return (a * inv % P, (P - b) * inv % P)


# --- QM31 ---------------------------------------------------------------------------------------


def qm31(a: int, b: int = 0, c: int = 0, d: int = 0) -> QM31:
    return (a % P, b % P, c % P, d % P)


def q_from_m31(a: int) -> QM31:
    return (a % P, 0, 0, 0)


def q_add(x: QM31, y: QM31) -> QM31:
    return ((x[0] + y[0]) % P, (x[1] + y[1]) % P, (x[2] + y[2]) % P, (x[3] + y[3]) % P)


def q_sub(x: QM31, y: QM31) -> QM31:
    return ((x[0] - y[0]) % P, (x[1] - y[1]) % P, (x[2] - y[2]) % P, (x[3] - y[3]) % P)


def q_neg(x: QM31) -> QM31:
    return ((-x[0]) % P, (-x[1]) % P, (-x[2]) % P, (-x[3]) % P)


def q_mul(x: QM31, y: QM31) -> QM31:
    # (A + B u)(C + D u) = (AC + R BD) + (AD + BC) u with R = 2 + i; A..D in CM31.
    a0, a1, b0, b1 = x
    c0, c1, d0, d1 = y
    ac0 = a0 * c0 - a1 * c1
    ac1 = a0 * c1 + a1 * c0
    bd0 = b0 * d0 - b1 * d1
    bd1 = b0 * d1 + b1 * d0
    # R * (bd0 + bd1 i) = (2 bd0 - bd1) + (bd0 + 2 bd1) i
    r0 = ac0 + 2 * bd0 - bd1
    r1 = ac1 + bd0 + 2 * bd1
    s0 = a0 * d0 - a1 * d1 + b0 * c0 - b1 * c1
    s1 = a0 * d1 + a1 * d0 + b0 * c1 + b1 * c0
    return (r0 % P, r1 % P, s0 % P, s1 % P)


def q_mul_m31(x: QM31, k: int) -> QM31:
    return (x[0] * k % P, x[1] * k % P, x[2] * k % P, x[3] * k % P)


def q_pow(x: QM31, e: int) -> QM31:
    result = QONE
    base = x
    while e:
        if e & 1:
            result = q_mul(result, base)
        base = q_mul(base, base)
        e >>= 1
    return result


def q_inv(x: QM31) -> QM31:
    """(A + B u)^-1 = (A - B u) / (A^2 - R B^2), the denominator in CM31."""
    a = (x[0], x[1])
    b = (x[2], x[3])
    a2 = cm_mul(a, a)
    b2 = cm_mul(b, b)
    rb2 = ((2 * b2[0] - b2[1]) % P, (b2[0] + 2 * b2[1]) % P)
    denom = ((a2[0] - rb2[0]) % P, (a2[1] - rb2[1]) % P)
    if denom == (0, 0):
        raise ZeroDivisionError("inverse of zero in QM31")
    dinv = cm_inv(denom)
    ra = cm_mul(a, dinv)
    rb = cm_mul(((P - b[0]) % P, (P - b[1]) % P), dinv)
    return (ra[0], ra[1], rb[0], rb[1])


def q_conj(x: QM31) -> QM31:
    """The conjugate u -> -u (DEEP pairs a point with it)."""
    return (x[0], x[1], (-x[2]) % P, (-x[3]) % P)


def from_partial_evals(e: list[QM31] | tuple[QM31, ...]) -> QM31:
    """e0 + e1*i + e2*u + e3*i*u: recombines the four M31 coordinate polynomials of a QM31 column."""
    i = (0, 1, 0, 0)
    u = (0, 0, 1, 0)
    iu = (0, 0, 0, 1)
    acc = e[0]
    acc = q_add(acc, q_mul(e[1], i))
    acc = q_add(acc, q_mul(e[2], u))
    acc = q_add(acc, q_mul(e[3], iu))
    return acc

