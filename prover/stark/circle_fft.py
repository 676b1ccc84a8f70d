"""Circle and line FFTs over many columns at once: the compiled kernel (jit/m31.py) and its numpy
twin, both cross-tested against tests/reference_fft.py (kernels.py chooses).

Data is a (C, N) uint64 array (C columns of N = 2^n values). Layer j pairs the indices that differ
in bit j; the twiddle of a pair depends only on the bits above j, so a layer is one reshape to
(C, N / 2^(j+1), 2, 2^j) and a broadcast of the layer's twiddle vector (see the kernel notes
below for the layout and arithmetic tricks). Twiddles come from the
same domains as verifier/circle.py (cross-tested point by point).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Sequence

from ...verifier.circle import GEN, LOG_ORDER, index_to_point
from ...verifier.fields import P
from . import field_vec as fv
from . import kernels
from .backend import U32, U64, Array, xp


def index_dtype(log_size: int) -> type:
    """The narrowest index type for positions below 2^log_size: the cached permutations are
    trace-sized, so int32 halves their memory."""
    return xp.int32 if log_size <= 30 else xp.int64


def bit_reverse_permutation(log_size: int) -> Array:
    """perm[i] = bitrev_n(i), as an index vector (index_dtype): bitrev_(k+1) is 2 bitrev_k followed
    by 2 bitrev_k + 1 (the new low bit of i becomes the top bit), so 2 * 2^n values are written."""
    out = xp.zeros(1, dtype=index_dtype(log_size))
    for _ in range(log_size):
        out = xp.concatenate([out << 1, (out << 1) | 1])
    return out


def coset_points(initial_index: int, step_index: int, log_size: int, bit_reversed: bool = False) -> tuple[Array, Array]:
    """x and y of initial + k*step for k < 2^log_size, in natural order (position k) or bit-reversed
    (position q holds k = bitrev(q)), by repeated doubling of the filled prefix: the prefix moved by
    step * 2^b for b = 0, 1, ... (natural) or b = log_size - 1, ... 0 (bit reversed: the first half
    of a bit-reversed coset is the bit-reversed coset of step 2*step, the second half it moved by
    step). O(2^log_size) vector work, no permutation."""
    x0, y0 = index_to_point(initial_index)
    xs = xp.array([x0], dtype=U64)
    ys = xp.array([y0], dtype=U64)
    for b in range(log_size):
        shift = log_size - 1 - b if bit_reversed else b
        sx, sy = index_to_point((step_index << shift) % (1 << LOG_ORDER))
        nx = fv.sub(fv.mul_scalar(xs, sx), fv.mul_scalar(ys, sy))
        ny = fv.add(fv.mul_scalar(xs, sy), fv.mul_scalar(ys, sx))
        xs = xp.concatenate([xs, nx])
        ys = xp.concatenate([ys, ny])
    return xs, ys


@lru_cache(maxsize=32)
def half_coset(log_size: int) -> tuple[Array, Array]:
    """Points of the half coset of the circle domain of log size n, indices (4k+1) * 2^(30-n) for
    k < 2^(n-1), in bit-reversed order of k: storage position 2q of the domain holds its point
    bitrev(q) and 2q + 1 that point's conjugate (natural positions i and i + 2^(n-1))."""
    shift = LOG_ORDER - 1 - log_size
    return coset_points(1 << shift, 4 << shift, log_size - 1, bit_reversed=True)


def domain_points(log_size: int) -> tuple[Array, Array]:
    """x, y of every storage position of the circle domain of log size n (bit-reversed order).
    Not cached: made from the cached half coset in a few passes; kept, the largest sizes' would
    hold tens of MB through the composition."""
    hx, hy = half_coset(log_size)
    xs = xp.repeat(hx, 2)
    ys = xp.empty_like(xs)
    ys[0::2], ys[1::2] = hy, fv.neg(hy)
    return xs, ys


@lru_cache(maxsize=32)
def line_domain_points(log_size: int) -> Array:
    """x at every storage position of the line domain of log size m (bit-reversed order): the x of
    the half coset of the circle domain of log size m + 1."""
    return half_coset(log_size + 1)[0]


@lru_cache(maxsize=32)
def circle_twiddles(log_size: int) -> tuple[tuple[Array, ...], tuple[Array, ...]]:
    """(twiddles, inverse twiddles) per layer for the circle domain of log size n."""
    layers = [t.copy() for t in _layers("circle", log_size)]
    return tuple(layers), tuple(fv.batch_inverse(t) for t in layers)


def _layers(kind: str, log_size: int) -> list[Array]:
    """Each layer's twiddles, views of the cached half cosets: the circle domain's layer 0 is the
    y of storage positions 0, 2, 4, ..., every line layer j the x of the line domain of log size
    n - j at its even positions."""
    first = [half_coset(log_size)[1]] if kind == "circle" else []
    return first + [line_domain_points(log_size - j)[0::2] for j in range(len(first), log_size)]


@lru_cache(maxsize=32)
def prefix_twiddles(log_size: int, within: int) -> tuple[tuple[Array, ...], tuple[Array, ...]]:
    """Twiddles of the first 2^log_size storage positions of the circle domain of log size `within`.
    Those positions are the natural positions divisible by 2^(within - log_size): a circle domain
    of its own (a half coset (4k 2^(within - log_size) + 1) 2^(30 - within) and its conjugate),
    disjoint from every smaller canonic domain, on which each layer j pairs the same points as
    layer j of the whole domain: its twiddles are the first 2^(log_size - 1 - j) of those."""
    tw, inv = circle_twiddles(within)
    return (tuple(t[: 1 << (log_size - 1 - j)] for j, t in enumerate(tw[:log_size])),
            tuple(t[: 1 << (log_size - 1 - j)] for j, t in enumerate(inv[:log_size])))


def sub_domain_points(log_size: int, within: int) -> tuple[Array, Array]:
    """x, y of the first 2^log_size storage positions of the circle domain of log size `within`."""
    xs, ys = domain_points(within)
    return xs[: 1 << log_size], ys[: 1 << log_size]


@lru_cache(maxsize=32)
def line_twiddles(log_size: int) -> tuple[tuple[Array, ...], tuple[Array, ...]]:
    layers = [t.copy() for t in _layers("line", log_size)]
    return tuple(layers), tuple(fv.batch_inverse(t) for t in layers)


# --- the transform kernel ------------------------------------------------------------------------
#
# Values travel as uint32 (canonical, < P < 2^31): sums of two values still fit, so additions,
# subtractions and the conditional subtraction `min(x, x - P)` (unsigned wrap-around) run on half
# the memory of uint64 and several times faster. Only the twiddle product is formed in uint64 and
# folded back with 2^31 = 1 (mod P): x = (x & P) + (x >> 31) < 2P for x < P^2.
#
# Numpy is slow when the innermost loop is short, and layer j's contiguous runs are 2^j long. So a
# column of 2^n values is seen as an R x C matrix (C = 2^k, k = n // 2): layers j >= k run on it
# as is (runs of 2^j >= C), layers j < k on its transpose (runs of R), with twiddles transposed to
# match. Scratch buffers are kept per thread and reused, so no layer allocates (page faults were
# about 40% of the time of a version with fresh temporaries).

_P = U64(P)
_P32 = U32(P)


def _kind_twiddles(kind: str, log_size: int, inverse: bool) -> tuple[Array, ...]:
    if kind.startswith("circle<"):  # the first 2^log_size positions of a larger domain
        return prefix_twiddles(log_size, int(kind[len("circle<"):]))[1 if inverse else 0]
    return (circle_twiddles if kind == "circle" else line_twiddles)(log_size)[1 if inverse else 0]


@lru_cache(maxsize=64)
def _flat_twiddles(kind: str, log_size: int, inverse: bool) -> tuple[Array, Array]:
    """The compiled kernel's twiddles: every layer's, concatenated (uint32), and where each starts.
    Built apart from the twins' per-layer uint64 tuples (circle_twiddles: four times the memory,
    about 200 MB for a trace's sizes), which the compiled path never reads: a prefix domain's
    layers are slices of its whole domain's, inverses one batch inversion of the forward ones."""
    if inverse:
        fw, offs = _flat_twiddles(kind, log_size, False)
        return fv.batch_inverse(fw.astype(U64)).astype(U32), offs
    if kind.startswith("circle<"):  # the first 2^log_size positions of a larger domain
        whole, whole_offs = _flat_twiddles("circle", int(kind[len("circle<"):]), False)
        layers = [whole[whole_offs[j] : whole_offs[j] + (1 << (log_size - 1 - j))] for j in range(log_size)]
    else:
        layers = _layers(kind, log_size)
    offs = xp.zeros(log_size + 1, dtype=xp.int64)
    offs[1:] = xp.cumsum([t.shape[0] for t in layers])
    return xp.concatenate(layers).astype(U32) if layers else xp.zeros(0, U32), offs


_NUMPY_NS = 6  # the numpy twin's cost of a butterfly, measured (kernels.use_compiled)


def _batched_compiled(data: Sequence[Array], kind: str, log_size: int, inverse: bool, skip_top: int,
                      dtype: type = U64) -> Array:
    """_batched with the compiled transform: one column a call, columns over threads, each
    transformed in place in its uint32 output row (widened after where `dtype` is uint64)."""
    m31 = kernels.m31()
    rows = len(data)
    out = xp.empty((rows, 1 << log_size), dtype=U32)
    tw, offs = _flat_twiddles(kind, log_size, inverse)
    n_inv = pow(1 << log_size, P - 2, P)
    per = max(1, (1 << 16) >> log_size)  # columns a task: small columns are grouped

    def task(s: int) -> None:
        for r in range(s, min(rows, s + per)):
            src = data[r]
            if src.dtype not in (U32, U64) or not src.flags.c_contiguous:
                src = xp.ascontiguousarray(src, dtype=U64)
            if inverse:
                m31.inverse(src, out[r], tw, offs, log_size, n_inv)
            else:
                m31.forward(src, out[r], tw, offs, log_size, skip_top)

    kernels.run_parallel(task, range(0, rows, per))
    return out if dtype is U32 else out.astype(dtype)


@lru_cache(maxsize=64)
def _plan(kind: str, log_size: int, inverse: bool) -> tuple[int, tuple[Array, ...]]:
    """(k, per-layer twiddles shaped for broadcasting): layer j >= k as (N >> (j+1), 1) against
    the natural layout, layer j < k as (C >> (j+1), 1, R) against the transposed layout."""
    tw = _kind_twiddles(kind, log_size, inverse)
    k = log_size // 2
    r = 1 << (log_size - k)
    shaped = []
    for j, t in enumerate(tw):
        if j >= k:
            shaped.append(t.reshape(-1, 1))
        else:
            shaped.append(xp.ascontiguousarray(t.reshape(r, -1).T).reshape(-1, 1, r))
    return k, tuple(shaped)


_LOCAL = threading.local()


def _scratch(rows: int, n: int) -> tuple[Array, Array, Array, Array, Array]:
    """This thread's buffers for `rows` columns of n values: two uint32 work arrays (natural and
    transposed layout) and three half-size temporaries (uint64 product, two uint32)."""
    key = (rows, n)
    got = getattr(_LOCAL, "bufs", None)
    if got is None or got[0] != key:
        h = rows * (n // 2)
        got = (key, (xp.empty((rows, n), U32), xp.empty((rows, n), U32), xp.empty(h, U64), xp.empty(h, U32), xp.empty(h, U32)))
        _LOCAL.bufs = got
    return got[1]


def _mulmod_into(x: Array, w: Array, out: Array, t64: Array, h: Array) -> None:
    """out = x * w mod P (x uint32, w uint64 broadcastable; t64, h scratch shaped like x)."""
    xp.multiply(x, w, out=t64)
    xp.right_shift(t64, 31, out=h, casting="unsafe")
    xp.bitwise_and(t64, _P, out=out, casting="unsafe")
    xp.add(out, h, out=out)
    xp.subtract(out, _P32, out=h)
    xp.minimum(out, h, out=out)


def _butterfly_forward(a: Array, b: Array, w: Array, t64: Array, t: Array, h: Array) -> None:
    """(a, b) <- (a + w b, a - w b)."""
    _mulmod_into(b, w, t, t64, h)
    xp.subtract(a, t, out=h)  # a - t wraps below zero; min(h, h + P) picks the canonical one
    xp.add(h, _P32, out=b)
    xp.minimum(h, b, out=b)
    xp.add(a, t, out=t)
    xp.subtract(t, _P32, out=h)
    xp.minimum(t, h, out=a)


def _butterfly_inverse(a: Array, b: Array, w: Array, t64: Array, t: Array, h: Array) -> None:
    """(a, b) <- (a + b, (a - b) w)."""
    xp.subtract(a, b, out=h)
    xp.add(h, _P32, out=t)
    xp.minimum(h, t, out=t)
    xp.add(a, b, out=h)
    xp.subtract(h, _P32, out=b)
    xp.minimum(h, b, out=a)
    _mulmod_into(t, w, b, t64, h)


def _layer(buf: Array, shape: tuple[int, ...], w: Array, temps: tuple[Array, Array, Array], inverse: bool) -> None:
    """One layer on `buf` seen as shape (rows, groups, 2, ...): pairs are [:, :, 0] and [:, :, 1]."""
    view = buf.reshape(shape)
    a, b = view[:, :, 0], view[:, :, 1]
    t64, t, h = (x.reshape(a.shape) for x in temps)
    (_butterfly_inverse if inverse else _butterfly_forward)(a, b, w, t64, t, h)


def _transform_block(data: Sequence[Array], out: Array, kind: str, log_size: int, inverse: bool, skip_top: int = 0) -> None:
    """Transform the rows of `data` (uint64, 2^(n - skip_top) each) into `out` (rows, 2^n) uint64.
    skip_top > 0 (forward only): data are coefficients zero-padded to 2^n, whose top skip_top
    layers only copy the lower half into the upper one, so the input is tiled instead."""
    rows = len(data)
    n = 1 << log_size
    k, tw = _plan(kind, log_size, inverse)
    c = 1 << k
    r = n >> k
    x, y, *temps = _scratch(rows, n)
    tmp = tuple(temps)
    if not inverse:
        for i, row in enumerate(data):  # row by row: callers pass lists of columns, never stacked
            xp.copyto(x[i].reshape(1 << skip_top, n >> skip_top), row[None, :], casting="unsafe")
        for j in range(log_size - 1 - skip_top, k - 1, -1):
            _layer(x, (rows, n >> (j + 1), 2, 1 << j), tw[j], tmp, False)
        xp.copyto(y.reshape(rows, c, r), x.reshape(rows, r, c).transpose(0, 2, 1))
        for j in range(min(k, log_size - skip_top) - 1, -1, -1):
            _layer(y, (rows, c >> (j + 1), 2, 1 << j, r), tw[j], tmp, False)
        xp.copyto(out.reshape(rows, r, c), y.reshape(rows, c, r).transpose(0, 2, 1))
        return
    for i, row in enumerate(data):
        xp.copyto(y[i].reshape(c, r), row.reshape(r, c).T, casting="unsafe")
    for j in range(k):
        _layer(y, (rows, c >> (j + 1), 2, 1 << j, r), tw[j], tmp, True)
    xp.copyto(x.reshape(rows, r, c), y.reshape(rows, c, r).transpose(0, 2, 1))
    for j in range(k, log_size):
        _layer(x, (rows, n >> (j + 1), 2, 1 << j), tw[j], tmp, True)
    n_inv = U64(pow(n, P - 2, P))
    t64, t, h = (z.reshape(rows, n // 2) for z in temps)
    for half in (slice(0, n // 2), slice(n // 2, n)):
        _mulmod_into(x[:, half], n_inv, t, t64, h)
        out[:, half] = t


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
_PARALLEL_MIN = 1 << 16  # values below which one thread is faster
_TASK_VALUES = 1 << 15  # values per task: small columns are grouped so numpy calls stay long


def _threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _batched(data: Sequence[Array], kind: str, log_size: int, inverse: bool, skip_top: int = 0,
             dtype: type = U64) -> Array:
    """Transform every row of `data`; groups of rows run as tasks in parallel threads (numpy
    releases the GIL inside each large operation)."""
    global _POOL
    rows = len(data)
    if kernels.use_compiled(rows * (log_size - skip_top) * (1 << (log_size - 1)) * _NUMPY_NS * 1e-9):
        return _batched_compiled(data, kind, log_size, inverse, skip_top, dtype)
    if dtype is not U64:
        return _batched(data, kind, log_size, inverse, skip_top).astype(dtype)
    out = xp.empty((rows, 1 << log_size), dtype=U64)
    per = max(1, _TASK_VALUES >> log_size)
    if _threads() == 1 or rows <= per or out.size < _PARALLEL_MIN:
        for s in range(0, rows, per):
            _transform_block(data[s : s + per], out[s : s + per], kind, log_size, inverse, skip_top)
        return out
    with _POOL_LOCK:  # callers may themselves run in threads (the composition's components)
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=_threads(), thread_name_prefix="luminair-fft")

    def one(s: int) -> None:
        _transform_block(data[s : s + per], out[s : s + per], kind, log_size, inverse, skip_top)

    list(_POOL.map(one, range(0, rows, per)))
    return out


def _as_rows(data: Array | Sequence[Array]) -> tuple[Sequence[Array], bool]:
    """A (C, N) array, a list of C vectors of equal length, or one vector -> (rows, was a vector)."""
    if isinstance(data, (list, tuple)):  # uint32 rows (kept coefficients) are read as they are
        return [r if isinstance(r, xp.ndarray) and r.dtype == U32 else xp.asarray(r, dtype=U64) for r in data], False
    arr = xp.asarray(data, dtype=U64)
    if arr.ndim == 1:
        return arr[None, :], True
    return arr, False


def _transform(data: Array | Sequence[Array], kind: str, inverse: bool, dtype: type = U64) -> Array:
    rows, flat = _as_rows(data)
    n = rows[0].shape[0].bit_length() - 1
    out = _batched(rows, kind, n, inverse, dtype=dtype) if n else xp.array(rows, dtype=dtype).reshape(len(rows), 1)
    return out[0] if flat else out


def circle_evaluate(coeffs: Array | Sequence[Array]) -> Array:
    """(C, N) coefficients -> evaluations on the circle domain of log size n (storage order)."""
    return _transform(coeffs, "circle", inverse=False)


def circle_interpolate(evals: Array | Sequence[Array], within: int | None = None, dtype: type = U64) -> Array:
    """Coefficients (canonical, as `dtype`) from evaluations on the circle domain of log size n, or
    (`within`) on the first 2^n storage positions of the one of log size `within` (prefix_twiddles)."""
    return _transform(evals, _circle_kind(evals, within), inverse=True, dtype=dtype)


def _circle_kind(data: Array | Sequence[Array], within: int | None) -> str:
    if within is None:
        return "circle"
    n = (data[0] if isinstance(data, (list, tuple)) else data).shape[-1].bit_length() - 1
    return "circle" if within == n else f"circle<{within}"


def line_evaluate(coeffs: Array | Sequence[Array]) -> Array:
    return _transform(coeffs, "line", inverse=False)


def line_interpolate(evals: Array | Sequence[Array]) -> Array:
    return _transform(evals, "line", inverse=True)


def extend(coeffs: Array | Sequence[Array], log_size: int, within: int | None = None, dtype: type = U64) -> Array:
    """Evaluate (C, N) coefficients (or a list of C coefficient vectors) on the larger circle
    domain of log size `log_size`, or (`within`) on the first 2^log_size storage positions of the
    one of log size `within` (prefix_twiddles); values (canonical) as `dtype`."""
    rows, flat = _as_rows(coeffs)
    n = rows[0].shape[0].bit_length() - 1
    kind = "circle" if within is None or within == log_size else f"circle<{within}"
    if log_size == 0:
        out = xp.array(rows, dtype=dtype).reshape(len(rows), 1)
    else:
        out = _batched(rows, kind, log_size, inverse=False, skip_top=log_size - n, dtype=dtype)
    return out[0] if flat else out


@lru_cache(maxsize=64)
def row_to_storage(log_size: int) -> Array:
    """storage[r] for every trace row r of CanonicCoset(n) (twin of verifier.circle.row_to_storage)."""
    n = 1 << log_size
    rows = xp.arange(n, dtype=xp.int64)
    natural = xp.where(rows % 2 == 0, rows // 2, (2 * n - 1 - rows) // 2)
    return bit_reverse_permutation(log_size)[natural]  # index_dtype


@lru_cache(maxsize=64)
def storage_to_row(log_size: int) -> Array:
    perm = row_to_storage(log_size)
    inv = xp.empty_like(perm)
    inv[perm] = xp.arange(perm.shape[0], dtype=perm.dtype)
    return inv


@lru_cache(maxsize=128)
def mask_permutation(domain_log_size: int, trace_log_size: int, offset: int) -> Array:
    """For each storage position s of the circle domain of log size m >= n: the storage position of
    the point s + offset * G_(2^n), i.e. the mask `offset` rows away for a trace of log size n."""
    rows = storage_to_row(domain_log_size)
    shift = (offset << (domain_log_size - trace_log_size)) % (1 << domain_log_size)
    shifted = rows + rows.dtype.type(shift)  # < 2^(m+1): fits the index type
    shifted[shifted >= 1 << domain_log_size] -= 1 << domain_log_size
    return row_to_storage(domain_log_size)[shifted]


def _gen_check() -> None:  # pragma: no cover - import-time sanity of the shared generator
    assert GEN == index_to_point(1)


_gen_check()
