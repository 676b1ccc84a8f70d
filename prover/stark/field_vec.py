"""Vectorized M31 / CM31 / QM31 arithmetic: the numpy twin of verifier/fields.py.

Base vectors are uint64 arrays holding canonical values (< P); products of two canonical values
fit in 62 bits, so `(a * b) % P` is exact. A secure (QM31) vector is a tuple of four base vectors,
one per coordinate (a + b*i) + (c + d*i)*u. Every function is cross-tested in tests/twins against
the scalar version it names. Once the compiled kernels are loaded (kernels.py), `mul` and `q_mul`
of long, equally shaped vectors run compiled (jit/m31.py: one pass, no temporaries).
"""

from __future__ import annotations

from ...verifier.fields import P, QM31
from . import kernels
from .backend import U64, Array, xp

SecureVec = tuple[Array, Array, Array, Array]

_P = U64(P)


def as_base(values: object) -> Array:
    """Any integer array-like (possibly negative or >= P) -> canonical uint64 vector."""
    arr = xp.asarray(values)
    if arr.dtype.kind == "u":
        return (arr.astype(U64) % _P).astype(U64)
    return (arr.astype(xp.int64) % P).astype(U64)


def add(a: Array, b: Array) -> Array:
    got = _compiled_commuting("add", a, b)
    if got is not None:
        return got
    r = a + b
    if r.ndim == 0:  # constants: plain ints avoid numpy's scalar wrap-around warnings
        return U64(int(r) % P)
    return xp.minimum(r, r - _P)


def sub(a: Array, b: Array) -> Array:
    got = _compiled_binary("sub", a, b)
    if got is not None:
        return got
    if _vector_after_constant(a, b):  # a constant less a column: -b + a, compiled
        return _compiled_binary("add", neg(b), a)  # type: ignore[return-value]
    r = a + (_P - b)
    if r.ndim == 0:
        return U64(int(r) % P)
    return xp.minimum(r, r - _P)


def neg(a: Array) -> Array:
    if isinstance(a, xp.ndarray) and _compiled(a):
        out = xp.empty_like(a)
        kernels.m31().neg_v(a, out)
        return out
    r = _P - a
    if r.ndim == 0:
        return U64(int(r) % P)
    return xp.minimum(r, r - _P)


_COMPILED_MIN = 1 << 12  # shorter vectors stay in numpy (a compiled call costs a few microseconds)


def _compiled(*vecs: Array) -> bool:
    """Whether these vectors take the compiled path: loaded kernels, 1-D contiguous uint64 (one
    compiled specialization each), same length."""
    if not kernels.loaded() or kernels.mode() == "numpy":
        return False
    n = vecs[0].shape
    return len(n) == 1 and n[0] >= _COMPILED_MIN and all(
        isinstance(v, xp.ndarray) and v.shape == n and v.dtype == U64 and v.flags.c_contiguous for v in vecs)


def _compiled_binary(op: str, a: Array, b: Array) -> Array | None:
    """a op b by the compiled kernels (vector op vector, or vector op constant), else None."""
    if not isinstance(a, xp.ndarray) or not _compiled(a):
        return None
    out = xp.empty_like(a)
    if isinstance(b, xp.ndarray) and b.shape == a.shape and b.dtype == U64 and b.flags.c_contiguous:
        getattr(kernels.m31(), f"{op}_vv")(a, b, out)
    elif isinstance(b, (xp.ndarray, xp.generic)) and b.ndim == 0 and b.dtype == U64:
        getattr(kernels.m31(), f"{op}_vs")(a, U64(b), out)
    else:
        return None
    return out


def mul(a: Array, b: Array) -> Array:
    got = _compiled_commuting("mul", a, b)
    if got is not None:
        return got
    return (a * b) % _P


def _vector_after_constant(a: Array, b: Array) -> bool:
    """A 0-d uint64 constant before a vector that takes the compiled path."""
    return (isinstance(a, (xp.ndarray, xp.generic)) and a.ndim == 0 and a.dtype == U64 and isinstance(b, xp.ndarray)
            and _compiled(b))


def _compiled_commuting(op: str, a: Array, b: Array) -> Array | None:
    """_compiled_binary for a commuting op, a constant on either side (numpy's a op b is b op a)."""
    if _vector_after_constant(a, b):
        return _compiled_binary(op, b, a)
    return _compiled_binary(op, a, b)


def mul_scalar(a: Array, k: int) -> Array:
    got = _compiled_binary("mul", a, U64(k % P))
    if got is not None:
        return got
    return (a * U64(k % P)) % _P


def pow_vec(a: Array, e: int) -> Array:
    result = xp.ones_like(a)
    base = a.copy()
    while e:
        if e & 1:
            result = mul(result, base)
        base = mul(base, base)
        e >>= 1
    return result


def inv(a: Array) -> Array:
    """Elementwise inverse a^(P-2) (twin of verifier.fields.m31_inv); zeros map to zero."""
    return pow_vec(a, P - 2)


def batch_inverse(a: Array) -> Array:
    """Inverse of every element of a 1-D vector with one exponentiation (Montgomery's trick over a
    product tree, so it stays vectorized). Twin of verifier.fields.batch_inverse."""
    n = a.shape[0]
    if n >= _COMPILED_MIN and _compiled(a):
        out = xp.empty_like(a)
        if kernels.m31().batch_inverse(a, out):
            return out
    if n <= 64:
        return inv(a)
    levels = [a]
    cur = a
    while cur.shape[0] > 1:
        if cur.shape[0] % 2:
            cur = xp.concatenate([cur, xp.ones(1, dtype=U64)])
            levels[-1] = cur
        cur = mul(cur[0::2], cur[1::2])
        levels.append(cur)
    down = inv(cur)
    for lvl in reversed(levels[:-1]):
        down = down[: lvl.shape[0] // 2]  # drop the inverse of a padding 1
        out = xp.empty(lvl.shape[0], dtype=U64)
        out[0::2] = mul(down, lvl[1::2])
        out[1::2] = mul(down, lvl[0::2])
        down = out
    return down[:n]


# --- CM31 ----------------------------------------------------------------------------------------


def cm_mul(a0: Array, a1: Array, b0: Array, b1: Array) -> tuple[Array, Array]:
    if _compiled(a0, a1, b0, b1):  # canonical inputs: the same values in four compiled products
        return sub(mul(a0, b0), mul(a1, b1)), add(mul(a0, b1), mul(a1, b0))
    r0 = (a0 * b0 % _P + (_P - a1 * b1 % _P)) % _P
    r1 = (a0 * b1 + a1 * b0) % _P
    return r0, r1


def cm_inv(a0: Array, a1: Array) -> tuple[Array, Array]:
    n = add(mul(a0, a0), mul(a1, a1)) if _compiled(a0, a1) else (a0 * a0 + a1 * a1) % _P
    ninv = batch_inverse(n)
    return mul(a0, ninv), mul(neg(a1), ninv)


# --- QM31 ----------------------------------------------------------------------------------------


def secure_zeros(n: int) -> SecureVec:
    return tuple(xp.zeros(n, dtype=U64) for _ in range(4))  # type: ignore[return-value]


def secure_const(q: QM31, n: int) -> SecureVec:
    return tuple(xp.full(n, c, dtype=U64) for c in q)  # type: ignore[return-value]


def q_add(x: SecureVec, y: SecureVec) -> SecureVec:
    return (add(x[0], y[0]), add(x[1], y[1]), add(x[2], y[2]), add(x[3], y[3]))


def q_sub(x: SecureVec, y: SecureVec) -> SecureVec:
    return (sub(x[0], y[0]), sub(x[1], y[1]), sub(x[2], y[2]), sub(x[3], y[3]))


def q_neg(x: SecureVec) -> SecureVec:
    return (neg(x[0]), neg(x[1]), neg(x[2]), neg(x[3]))


def _full_width(x: SecureVec) -> SecureVec:
    """With the compiled kernels, a QM31 column whose coordinates mix full vectors and constants
    (a base column lifted to QM31: (a, 0, 0, 0)) gets full-length constants, so it takes the compiled
    path; otherwise x as it is."""
    if not kernels.loaded():
        return x
    full = [c for c in x if isinstance(c, xp.ndarray) and c.ndim == 1]
    if not full or len(full) == 4 or full[0].shape[0] < _COMPILED_MIN:
        return x
    n = full[0].shape[0]
    if not all(c.shape == (n,) for c in full) or not all(
            isinstance(c, (xp.ndarray, xp.generic)) and (c.ndim == 1 or (c.ndim == 0 and c.dtype == U64)) for c in x):
        return x
    return tuple(c if c.ndim == 1 else xp.full(n, c, dtype=U64) for c in x)  # type: ignore[return-value]


def q_mul(x: SecureVec, y: SecureVec) -> SecureVec:
    """Twin of verifier.fields.q_mul: (A + Bu)(C + Du) = (AC + (2+i)BD) + (AD + BC)u. Products are
    only folded below 2^32 (p = (p & P) + (p >> 31) mod P, no division) and each coordinate is
    reduced once: 4 remainders instead of 16 (every partial sum stays below 2^37)."""
    x, y = _full_width(x), _full_width(y)
    if kernels.loaded() and not _compiled(*x) and _compiled(*y):
        x, y = y, x  # a constant times a column: the product commutes
    if _compiled(*x):
        if _compiled(*x, *y):
            out = tuple(xp.empty_like(x[0]) for _ in range(4))
            kernels.m31().q_mul_vec(*x, *y, *out)
            return out  # type: ignore[return-value]
        if all(isinstance(c, (xp.ndarray, xp.generic)) and c.ndim == 0 and c.dtype == U64 and int(c) < P for c in y):
            out = tuple(xp.empty_like(x[0]) for _ in range(4))
            kernels.m31().q_mul_vs(*x, *(U64(c) for c in y), *out)
            return out  # type: ignore[return-value]
    a0, a1, b0, b1 = x
    c0, c1, d0, d1 = y
    m = lambda s, t: _fold(s * t)  # noqa: E731
    p4 = 4 * _P  # above any folded product: keeps differences non-negative
    ac0 = m(a0, c0) + p4 - m(a1, c1)
    ac1 = m(a0, c1) + m(a1, c0)
    bd0 = m(b0, d0) + p4 - m(b1, d1)
    bd1 = m(b0, d1) + m(b1, d0)
    r0 = (ac0 + 2 * bd0 + 2 * p4 - bd1) % _P
    r1 = (ac1 + bd0 + 2 * bd1) % _P
    s0 = (m(a0, d0) + p4 - m(a1, d1) + m(b0, c0) + p4 - m(b1, c1)) % _P
    s1 = (m(a0, d1) + m(a1, d0) + m(b0, c1) + m(b1, c0)) % _P
    return (r0, r1, s0, s1)


_S31 = U64(31)


def _fold(p: Array) -> Array:
    """A product below 2^62 folded below 2^32, congruent mod P (2^31 = 1 mod P)."""
    return (p & _P) + (p >> _S31)


def q_mul_const(x: SecureVec, q: QM31) -> SecureVec:
    """x * q for a QM31 constant q."""
    if _compiled(*x):
        return q_mul(x, tuple(U64(c % P) for c in q))  # type: ignore[arg-type]
    n = x[0].shape[0]
    return q_mul(x, tuple(xp.full(n, c, dtype=U64) for c in q))  # type: ignore[arg-type]


def q_mul_base(x: SecureVec, b: Array) -> SecureVec:
    return (mul(x[0], b), mul(x[1], b), mul(x[2], b), mul(x[3], b))


def base_times_const(b: Array, q: QM31) -> SecureVec:
    """A base vector times a QM31 constant."""
    return tuple(mul_scalar(b, c) for c in q)  # type: ignore[return-value]


def q_inv(x: SecureVec) -> SecureVec:
    """Elementwise QM31 inverse (twin of verifier.fields.q_inv)."""
    a0, a1, b0, b1 = x
    sa0, sa1 = cm_mul(a0, a1, a0, a1)
    sb0, sb1 = cm_mul(b0, b1, b0, b1)
    # R * B^2 with R = 2 + i: (2 sb0 - sb1) + (sb0 + 2 sb1) i
    if _compiled(sb0, sb1):
        r0, r1 = sub(add(sb0, sb0), sb1), add(sb0, add(sb1, sb1))
    else:
        r0 = (2 * sb0 + _P - sb1) % _P
        r1 = (sb0 + 2 * sb1) % _P
    d0, d1 = sub(sa0, r0), sub(sa1, r1)
    i0, i1 = cm_inv(d0, d1)
    ra = cm_mul(a0, a1, i0, i1)
    rb = cm_mul(neg(b0), neg(b1), i0, i1)
    return (ra[0], ra[1], rb[0], rb[1])


def q_from_base(b: Array) -> SecureVec:
    z = xp.zeros_like(b)
    return (b, z, z.copy(), z.copy())


def q_cumsum(x: SecureVec) -> SecureVec:
    """Inclusive prefix sums per coordinate (sums of < 2^31 values fit u64 for < 2^33 terms)."""
    return tuple(xp.cumsum(c, dtype=U64) % _P for c in x)  # type: ignore[return-value]


def q_sum(x: SecureVec) -> QM31:
    return tuple(int(c.sum(dtype=U64) % _P) for c in x)  # type: ignore[return-value]


def q_to_list(x: SecureVec) -> list[QM31]:
    return list(zip(*(c.tolist() for c in x)))


def q_stack(x: SecureVec) -> Array:
    return xp.stack(x)
