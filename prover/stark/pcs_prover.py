"""Polynomial commitments on the prover side: committed trees of low-degree extensions, sampling
at out-of-domain points, and DEEP quotient columns (twins of verifier/pcs.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ...verifier.circle import QPoint
from ...verifier.fields import P, QM31, q_add, q_conj, q_mul, q_sub
from ...verifier.formats import Decommitment
from ...verifier.pcs import Sample
from . import circle_fft as cf
from . import field_vec as fv
from . import kernels
from .backend import U32, U64, Array, xp
from .merkle_tree import MerkleTree

_P = U64(P)


@dataclass
class CommittedTree:
    """Columns as polynomials (coefficients) and as evaluations on their committed domains."""

    coeffs: list[Array]  # per column, natural-order coefficients (size 2^n; uint32 for trace columns)
    evals: list[Array]  # per column, evaluations on the circle domain of log size n + blowup (uint32)
    tree: MerkleTree | None  # None: columns committed inside another tree (prove.commit_preprocessed)

    @property
    def root(self) -> bytes:
        if self.tree is None:
            raise ValueError("these columns are committed inside the main tree; they have no root of their own")
        return self.tree.root

    def decommit(self, positions: dict[int, list[int]]) -> tuple[list[list[int]], Decommitment]:
        """Open every column at its size's positions, in the layout verifier.pcs.open_trace_tree reads."""
        if self.tree is None:
            raise ValueError("these columns are committed inside the main tree; open that tree")
        sizes = {int(e.shape[0]).bit_length() - 1 for e in self.evals}
        return self.tree.decommit({s: positions[s] for s in sizes})


def interpolate_columns(columns: list[Array]) -> list[Array]:
    """Storage-order evaluations on their canonic domains -> coefficients (uint32: kept with the
    tree until the out-of-domain samples), batched by size."""
    out: list[Array | None] = [None] * len(columns)
    by_size: dict[int, list[int]] = {}
    for i, c in enumerate(columns):
        by_size.setdefault(c.shape[0], []).append(i)
    for _, idx in by_size.items():
        co = cf.circle_interpolate([columns[i] for i in idx], dtype=U32)
        for j, i in enumerate(idx):
            out[i] = co[j]
    return out  # type: ignore[return-value]


def extend_columns(coeffs: list[Array], log_blowup: int) -> list[Array]:
    out: list[Array | None] = [None] * len(coeffs)
    by_size: dict[int, list[int]] = {}
    for i, c in enumerate(coeffs):
        by_size.setdefault(c.shape[0], []).append(i)
    for size, idx in by_size.items():
        log = size.bit_length() - 1
        # kept as uint32 (canonical values < P fit): the committed extensions are most of a proof's
        # memory; readers widen a column to uint64 before any arithmetic
        ev = cf.extend([coeffs[i] for i in idx], log + log_blowup, dtype=U32)
        for j, i in enumerate(idx):
            out[i] = ev[j]
    return out  # type: ignore[return-value]


def commit_coeffs(coeffs: list[Array], log_blowup: int, merkle: bool = True) -> CommittedTree:
    evals = extend_columns(coeffs, log_blowup)
    return CommittedTree(coeffs, evals, MerkleTree(evals) if merkle else None)


def commit_columns(columns: list[Array], log_blowup: int, merkle: bool = True) -> CommittedTree:
    """Commit trace columns given in storage order on their trace domains (`merkle=False`: their
    coefficients and extensions only)."""
    return commit_coeffs(interpolate_columns(columns), log_blowup, merkle)


# --- evaluation at out-of-domain points ---------------------------------------------------------


def basis_at(point: QPoint, log_size: int) -> tuple[Array, Array, Array, Array]:
    """B_k(z) = prod_j factor_j^(k_j) for every k < 2^n (QM31 coordinates): sum_k c_k B_k(z) is the
    circle polynomial with coefficients c at z (twin of verifier.poly.eval_circle_poly_m31)."""
    from ...verifier.poly import circle_factors

    factors = circle_factors(point, log_size)
    acc = tuple(xp.array([v], dtype=U64) for v in (1, 0, 0, 0))
    for f in factors:
        fc = tuple(xp.asarray(v, dtype=U64) for v in f)
        prod = fv.q_mul(acc, fc)  # type: ignore[arg-type]
        acc = tuple(xp.concatenate([a, b]) for a, b in zip(acc, prod))
    return acc  # type: ignore[return-value]


def dot_mod(mat: Array, vec: Array) -> Array:
    """(C, N) @ (N,) mod P exactly: split vec into 16-bit halves and sum in blocks of 2^15 so no
    uint64 partial sum can overflow."""
    lo = vec & U64(0xFFFF)
    hi = vec >> U64(16)
    out = xp.zeros(mat.shape[0], dtype=U64)
    block = 1 << 15
    for s in range(0, mat.shape[1], block):
        m = mat[:, s : s + block]
        a = (m @ lo[s : s + block]) % _P
        b = (m @ hi[s : s + block]) % _P
        out = (out + a + (b << U64(16)) % _P) % _P
    return out


def eval_at_point(coeffs: list[Array], point: QPoint) -> list[QM31]:
    """Every polynomial of `coeffs` (same size) at a QM31 point."""
    if not coeffs:
        return []
    log = coeffs[0].shape[0].bit_length() - 1
    basis = basis_at(point, log)
    mat = xp.stack(coeffs)
    if kernels.loaded() and kernels.mode() != "numpy" and mat.shape[1] >= 1 << 12 and len(coeffs) <= 1 << 20:
        coords = xp.empty((4, len(coeffs)), dtype=U64)  # the four coordinates in one pass (jit/m31.dot_rows)
        step = max(1, len(coeffs) // (2 * kernels.threads()))
        kernels.run_parallel(lambda lo: kernels.m31().dot_rows(mat, *basis, coords, lo, min(len(coeffs), lo + step)),
                             range(0, len(coeffs), step))
    else:
        coords = [dot_mod(mat, b) for b in basis]
    return [tuple(int(coords[k][i]) for k in range(4)) for i in range(len(coeffs))]  # type: ignore[misc]


# --- DEEP quotients ------------------------------------------------------------------------------


_BLOCK = 1 << 15  # domain points per block of the float64 products
_TERMS = 64  # columns per exact float64 dot product: 64 * 2^16 * 2^31 < 2^53


def _lincomb_compiled(coefs: list[QM31], cols: list[Array]) -> tuple[Array, Array, Array, Array]:
    """secure_lincomb by the compiled kernel (jit/deep.lincomb_block); columns must be canonical."""
    n = cols[0].shape[0]
    held = [xp.ascontiguousarray(c, dtype=U64) for c in cols]  # alive until the kernel has run
    if any(c.shape != (n,) for c in held):
        raise ValueError("secure_lincomb: columns of different lengths")
    addrs = xp.array([c.ctypes.data for c in held], dtype=xp.int64)
    k = xp.array([[v % P for v in q] for q in coefs], dtype=U64).reshape(-1, 4)
    out = xp.empty((4, n), dtype=U64)
    step = max(1 << 12, n // (2 * kernels.threads()))
    kernels.run_parallel(lambda lo: kernels.deep().lincomb_block(lo, min(n, lo + step), n, addrs, k, out), range(0, n, step))
    del held
    return out[0], out[1], out[2], out[3]


def secure_lincomb(coefs: list[QM31], cols: list[Array]) -> tuple[Array, Array, Array, Array]:
    """sum_k coefs[k] * cols[k] for QM31 coefficients and base columns, exactly: each coordinate
    of each coefficient is split in 16-bit halves so that float64 matrix products (BLAS) of up to
    64 terms stay below 2^53; partial sums are reduced mod P."""
    n = cols[0].shape[0]
    if kernels.loaded() and kernels.mode() != "numpy" and n >= 1 << 12:
        return _lincomb_compiled(coefs, cols)
    c = xp.array(coefs, dtype=xp.int64).T  # (4, K)
    halves = xp.concatenate([c & 0xFFFF, c >> 16]).astype(xp.float64)  # (8, K)
    out = xp.zeros((8, n), dtype=U64)
    for k0 in range(0, len(cols), _TERMS):
        part = halves[:, k0 : k0 + _TERMS]
        chunk = cols[k0 : k0 + _TERMS]
        for s0 in range(0, n, _BLOCK):
            mat = xp.stack([col[s0 : s0 + _BLOCK] for col in chunk]).astype(xp.float64)
            prod = (part @ mat).astype(U64) % _P
            out[:, s0 : s0 + _BLOCK] = (out[:, s0 : s0 + _BLOCK] + prod) % _P
    lo, hi = out[:4], out[4:]
    return tuple((lo[k] + (hi[k] << U64(16)) % _P) % _P for k in range(4))  # type: ignore[return-value]


_NUMPY_CELL_NS = 3  # the numpy twin's cost of a column value (kernels.use_compiled)


def _quotient_groups(samples: list[Sample], alpha: QM31) -> tuple[dict[QPoint, list[tuple[QM31, int, int]]], dict[QPoint, list[QM31]]]:
    """Per sample point: (gamma, tree, column) of each sampled column, and the sums (a, b) of
    verifier.pcs's groups (the samples' alpha powers in order)."""
    groups: dict[QPoint, list[tuple[QM31, int, int]]] = {}
    sums: dict[QPoint, list[QM31]] = {}
    power: QM31 = (1, 0, 0, 0)
    for s in samples:
        z, v = s.point, s.value
        a = q_sub(q_conj(v), v)
        c = q_sub(q_conj(z[1]), z[1])
        b = q_sub(q_mul(v, c), q_mul(a, z[1]))
        groups.setdefault(z, []).append((q_mul(power, c), s.tree, s.col))
        ab = sums.setdefault(z, [(0, 0, 0, 0), (0, 0, 0, 0)])
        ab[0] = q_add(ab[0], q_mul(power, a))
        ab[1] = q_add(ab[1], q_mul(power, b))
        power = q_mul(power, alpha)
    return groups, sums


def _quotient_compiled(
    log_size: int,
    groups: dict[QPoint, list[tuple[QM31, int, int]]],
    sums: dict[QPoint, list[QM31]],
    evals: dict[tuple[int, int], Array],
) -> tuple[Array, Array, Array, Array]:
    """quotient_column by the compiled kernel (jit/deep.py), blocks of points over threads."""
    deep = kernels.deep()
    xs, ys = (c.astype(U32) for c in cf.domain_points(log_size))
    n = xs.shape[0]
    cols = [xp.ascontiguousarray(evals[(t, c)], dtype=U32) for g in groups.values() for _, t, c in g]
    if any(col.shape[0] != n for col in cols):
        raise ValueError(f"a column sampled on the domain of log size {log_size} has another length")
    addrs = xp.array([col.ctypes.data for col in cols], dtype=xp.int64)
    gammas = xp.array([gamma for g in groups.values() for gamma, _, _ in g], dtype=U32).reshape(-1, 4)
    starts = xp.cumsum([0] + [len(g) for g in groups.values()]).astype(xp.int64)
    ab = xp.array([[*sums[z][0], *sums[z][1]] for z in groups], dtype=U32).reshape(-1, 8)
    zs = xp.array([[*z[0], *z[1]] for z in groups], dtype=U32).reshape(-1, 8)
    out = xp.empty((4, n), dtype=U64)
    step = max(1 << 12, n // (4 * kernels.threads()))
    kernels.run_parallel(lambda lo: deep.quotient_block(lo, min(n, lo + step), xs, ys, addrs, gammas, starts, ab, zs, out),
                         range(0, n, step))
    del cols  # the addresses were read: the columns may go
    return out[0], out[1], out[2], out[3]


def quotient_column(
    log_size: int,
    samples: list[Sample],
    evals: dict[tuple[int, int], Array],
    alpha: QM31,
) -> tuple[Array, Array, Array, Array]:
    """The DEEP quotient column of committed log size `log_size` over its whole domain (twin of
    verifier.pcs.quotient_values)."""
    groups, sums = _quotient_groups(samples, alpha)
    n_cols = sum(len(g) for g in groups.values())
    if kernels.use_compiled(n_cols * (1 << log_size) * _NUMPY_CELL_NS * 1e-9):
        return _quotient_compiled(log_size, groups, sums, evals)
    xs, ys = cf.domain_points(log_size)
    n = xs.shape[0]
    acc = fv.secure_zeros(n)
    for z, gammas in groups.items():
        cols = [evals[(t, c)] for _, t, c in gammas]
        num = []
        a_sum, b_sum = sums[z]
        lins = secure_lincomb([g for g, _, _ in gammas], cols)
        for k in range(4):
            lin = fv.sub(lins[k], fv.mul_scalar(ys, a_sum[k]))
            num.append(fv.sub(lin, xp.full(n, b_sum[k], dtype=U64)))
        zx, zy = z
        ax0 = fv.sub(xp.full(n, zx[0], dtype=U64), xs)
        ax1 = xp.full(n, zx[1], dtype=U64)
        ay0 = fv.sub(xp.full(n, zy[0], dtype=U64), ys)
        ay1 = xp.full(n, zy[1], dtype=U64)
        p0, p1 = fv.cm_mul(ax0, ax1, xp.full(n, zy[2], dtype=U64), xp.full(n, zy[3], dtype=U64))
        r0, r1 = fv.cm_mul(ay0, ay1, xp.full(n, zx[2], dtype=U64), xp.full(n, zx[3], dtype=U64))
        d0, d1 = fv.cm_inv(fv.sub(p0, r0), fv.sub(p1, r1))
        a_re = fv.cm_mul(num[0], num[1], d0, d1)
        a_im = fv.cm_mul(num[2], num[3], d0, d1)
        acc = fv.q_add(acc, (a_re[0], a_re[1], a_im[0], a_im[1]))
    return acc
