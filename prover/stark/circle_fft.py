"""Circle and line FFTs over many columns at once: the numpy twin of verifier/fft.py.

Data is a (C, N) uint64 array (C columns of N = 2^n values). Layer j pairs the indices that differ
in bit j; the twiddle of a pair depends only on the bits above j, so a layer is one reshape to
(C, N / 2^(j+1), 2, 2^j) and a broadcast of the layer's twiddle vector. Twiddles come from the
same domains as verifier/circle.py (cross-tested point by point).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Callable

from ...verifier.circle import GEN, LOG_ORDER, index_to_point
from ...verifier.fields import P
from . import field_vec as fv
from .backend import U64, Array, xp


def bit_reverse_permutation(log_size: int) -> Array:
    """perm[i] = bitrev_n(i), as an int64 index vector."""
    idx = xp.arange(1 << log_size, dtype=xp.int64)
    out = xp.zeros_like(idx)
    for b in range(log_size):
        out |= ((idx >> b) & 1) << (log_size - 1 - b)
    return out


def coset_points(initial_index: int, step_index: int, log_size: int) -> tuple[Array, Array]:
    """x and y of initial + k*step for k < 2^log_size (natural order), by repeated doubling of the
    filled prefix: O(2^log_size) vector work."""
    x0, y0 = index_to_point(initial_index)
    xs = xp.array([x0], dtype=U64)
    ys = xp.array([y0], dtype=U64)
    for b in range(log_size):
        sx, sy = index_to_point((step_index << b) % (1 << LOG_ORDER))
        nx = fv.sub(fv.mul_scalar(xs, sx), fv.mul_scalar(ys, sy))
        ny = fv.add(fv.mul_scalar(xs, sy), fv.mul_scalar(ys, sx))
        xs = xp.concatenate([xs, nx])
        ys = xp.concatenate([ys, ny])
    return xs, ys


@lru_cache(maxsize=32)
def half_coset(log_size: int) -> tuple[Array, Array]:
    """Natural-order points of the half coset of the circle domain of log size n:
    indices (4k+1) * 2^(30-n), k < 2^(n-1)."""
    shift = LOG_ORDER - 1 - log_size
    return coset_points(1 << shift, 4 << shift, log_size - 1)


@lru_cache(maxsize=32)
def domain_points(log_size: int) -> tuple[Array, Array]:
    """x, y of every storage position of the circle domain of log size n (bit-reversed order)."""
    hx, hy = half_coset(log_size)
    xs = xp.concatenate([hx, hx])
    ys = xp.concatenate([hy, fv.neg(hy)])
    perm = bit_reverse_permutation(log_size)
    return xs[perm], ys[perm]


def _line_x_natural(circle_log_size: int, line_log_size: int) -> Array:
    """x-coordinates (natural order) of the line domain of log size m, taken from the half coset
    of the circle domain of log size n >= m + 1 doubled n-1-m times."""
    xs = half_coset(circle_log_size)[0][: 1 << line_log_size]
    for _ in range(circle_log_size - 1 - line_log_size):
        xs = fv.sub(fv.mul(fv.add(xs, xs), xs), xp.ones_like(xs))
    return xs


@lru_cache(maxsize=32)
def line_domain_points(log_size: int) -> Array:
    """x at every storage position of the line domain of log size m (bit-reversed order)."""
    return _line_x_natural(log_size + 1, log_size)[bit_reverse_permutation(log_size)]


@lru_cache(maxsize=32)
def circle_twiddles(log_size: int) -> tuple[tuple[Array, ...], tuple[Array, ...]]:
    """(twiddles, inverse twiddles) per layer for the circle domain of log size n."""
    _, ys = domain_points(log_size)
    layers = [ys[0::2].copy()]
    for j in range(1, log_size):
        layers.append(line_domain_points(log_size - j)[0::2].copy())
    inverses = tuple(fv.batch_inverse(t) for t in layers)
    return tuple(layers), inverses


@lru_cache(maxsize=32)
def line_twiddles(log_size: int) -> tuple[tuple[Array, ...], tuple[Array, ...]]:
    layers = [line_domain_points(log_size - j)[0::2].copy() for j in range(log_size)]
    return tuple(layers), tuple(fv.batch_inverse(t) for t in layers)


_P = U64(P)


def _forward(data: Array, twiddles: tuple[Array, ...]) -> Array:
    v = data.copy()
    c, n = v.shape
    for j in range(len(twiddles) - 1, -1, -1):
        view = v.reshape(c, n >> (j + 1), 2, 1 << j)
        a = view[:, :, 0, :]
        b = view[:, :, 1, :] * twiddles[j][None, :, None] % _P
        s = a + b
        d = a + (_P - b)
        view[:, :, 0, :] = xp.minimum(s, s - _P)
        view[:, :, 1, :] = xp.minimum(d, d - _P)
    return v


def _inverse(data: Array, inv_twiddles: tuple[Array, ...]) -> Array:
    v = data.copy()
    c, n = v.shape
    for j in range(len(inv_twiddles)):
        view = v.reshape(c, n >> (j + 1), 2, 1 << j)
        a = view[:, :, 0, :].copy()
        b = view[:, :, 1, :]
        s = a + b
        view[:, :, 0, :] = xp.minimum(s, s - _P)
        d = a + (_P - b)
        view[:, :, 1, :] = xp.minimum(d, d - _P) * inv_twiddles[j][None, :, None] % _P
    n_inv = pow(n, P - 2, P)
    return v * U64(n_inv) % _P


_POOL: ThreadPoolExecutor | None = None
_PARALLEL_MIN = 1 << 16  # values below which one thread is faster


def _threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _batched(fn: Callable[[Array, tuple[Array, ...]], Array], data: Array, twiddles: tuple[Array, ...]) -> Array:
    """Run a transform one column per task in parallel threads (every layer is a handful of large
    numpy operations, which release the GIL). One column at a time keeps the temporaries small:
    grouping columns per thread allocated hundreds of MB per layer and ran about 2x slower, most
    of it in page faults."""
    global _POOL
    n = _threads()
    if n == 1 or data.shape[0] < 2 or data.size < _PARALLEL_MIN:
        return fn(data, twiddles)
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=n, thread_name_prefix="luminair-fft")
    out = xp.empty_like(data)

    def one(i: int) -> None:
        out[i : i + 1] = fn(data[i : i + 1], twiddles)

    list(_POOL.map(one, range(data.shape[0])))
    return out


def _as2d(data: Array) -> tuple[Array, bool]:
    arr = xp.asarray(data, dtype=U64)
    if arr.ndim == 1:
        return arr[None, :], True
    return arr, False


def _transform(data: Array, twiddles: Callable[[int], tuple[tuple[Array, ...], tuple[Array, ...]]], inverse: bool) -> Array:
    arr, flat = _as2d(data)
    n = arr.shape[1].bit_length() - 1
    if n:
        out = _batched(_inverse, arr, twiddles(n)[1]) if inverse else _batched(_forward, arr, twiddles(n)[0])
    else:
        out = arr.copy()
    return out[0] if flat else out


def circle_evaluate(coeffs: Array) -> Array:
    """(C, N) coefficients -> evaluations on the circle domain of log size n (storage order)."""
    return _transform(coeffs, circle_twiddles, inverse=False)


def circle_interpolate(evals: Array) -> Array:
    return _transform(evals, circle_twiddles, inverse=True)


def line_evaluate(coeffs: Array) -> Array:
    return _transform(coeffs, line_twiddles, inverse=False)


def line_interpolate(evals: Array) -> Array:
    return _transform(evals, line_twiddles, inverse=True)


def extend(coeffs: Array, log_size: int) -> Array:
    """Evaluate (C, N) coefficients on the larger circle domain of log size `log_size`."""
    arr, flat = _as2d(coeffs)
    padded = xp.zeros((arr.shape[0], 1 << log_size), dtype=U64)
    padded[:, : arr.shape[1]] = arr
    out = circle_evaluate(padded)
    return out[0] if flat else out


@lru_cache(maxsize=64)
def row_to_storage(log_size: int) -> Array:
    """storage[r] for every trace row r of CanonicCoset(n) (twin of verifier.circle.row_to_storage)."""
    n = 1 << log_size
    rows = xp.arange(n, dtype=xp.int64)
    natural = xp.where(rows % 2 == 0, rows // 2, (2 * n - 1 - rows) // 2)
    return bit_reverse_permutation(log_size)[natural]


@lru_cache(maxsize=64)
def storage_to_row(log_size: int) -> Array:
    perm = row_to_storage(log_size)
    inv = xp.empty_like(perm)
    inv[perm] = xp.arange(perm.shape[0], dtype=xp.int64)
    return inv


@lru_cache(maxsize=128)
def mask_permutation(domain_log_size: int, trace_log_size: int, offset: int) -> Array:
    """For each storage position s of the circle domain of log size m >= n: the storage position of
    the point s + offset * G_(2^n), i.e. the mask `offset` rows away for a trace of log size n."""
    rows = storage_to_row(domain_log_size)
    shifted = (rows + offset * (1 << (domain_log_size - trace_log_size))) % (1 << domain_log_size)
    return row_to_storage(domain_log_size)[shifted]


def _gen_check() -> None:  # pragma: no cover - import-time sanity of the shared generator
    assert GEN == index_to_point(1)


_gen_check()
