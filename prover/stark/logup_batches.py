"""LogUp batches over whole columns by the compiled kernels (jit/logup.py): the interaction trace's
batch fractions (prove.interaction_columns) and the composition's batch constraints
(DomainEvaluator.finalize_logup).

Invariant: every function here returns None (or is not called: `usable`) where the compiled path
does not apply: the twins' mode, columns shorter than field_vec's compiled minimum, a value or a
multiplicity that is not a base column (BV) or an integer, a zero denominator. The caller then
takes the generic path, verifier.air.framework.batch_fraction / logup_constraints over BV / SV
columns, which gives the same field values bit for bit (tests/twins/test_logup_kernels.py).
"""

from __future__ import annotations

from typing import Any

from ...verifier.air.framework import RelationElements
from ...verifier.fields import P, QM31, q_add, q_mul
from . import field_vec as fv
from . import kernels
from .backend import U64, Array, xp

Entry = tuple[str, Any, list[Any]]
Inputs = tuple[list[Array], Array, Array, Array, Array, Array, Array]  # (held columns, kernel arguments)


def usable(n: int) -> bool:
    """Whether columns of n rows take the compiled path."""
    return kernels.loaded() and kernels.mode() != "numpy" and n >= fv._COMPILED_MIN


def _column(v: Any, n: int) -> Array | None:
    """A base column's (constraints.BV: the one evaluator value with an `a`) canonical uint64
    column of n rows, contiguous, or None."""
    a = getattr(v, "a", None)
    if not isinstance(a, xp.ndarray) or a.shape != (n,):
        return None
    return xp.ascontiguousarray(a, dtype=U64)


def inputs(batch: list[Entry], elements: dict[str, RelationElements], n: int) -> Inputs | None:
    """The kernel's arguments for one batch (jit/logup.fractions), or None. Integer values are
    folded into the entry's constant -z + sum alpha^j v_j; integer multiplicities are constants."""
    held: list[Array] = []  # the columns whose addresses are passed: alive until the kernel has run
    vaddr, vcoef, vent, negz, maddr, mconst = [], [], [], [], [], []
    for e, (rel, mult, values) in enumerate(batch):
        el = elements[rel]
        powers = el.powers(len(values))
        z: QM31 = tuple((-c) % P for c in el.z)  # type: ignore[assignment]
        for j, v in enumerate(values):
            if isinstance(v, int):
                z = q_add(z, q_mul(powers[j], (v % P, 0, 0, 0)))
                continue
            col = _column(v, n)
            if col is None:
                return None
            held.append(col)
            vaddr.append(col.ctypes.data)
            vcoef.append(powers[j])
            vent.append(e)
        negz.append(z)
        if isinstance(mult, int):
            maddr.append(0)
            mconst.append(mult % P)
        else:
            col = _column(mult, n)
            if col is None:
                return None
            held.append(col)
            maddr.append(col.ctypes.data)
            mconst.append(0)
    return (held, xp.array(vaddr, dtype=xp.int64), xp.array(vcoef, dtype=U64).reshape(-1, 4),
            xp.array(vent, dtype=xp.int64), xp.array(negz, dtype=U64).reshape(-1, 4),
            xp.array(maddr, dtype=xp.int64), xp.array(mconst, dtype=U64))


def _steps(n: int) -> tuple[int, range]:
    step = max(1 << 12, n // (2 * kernels.threads()))
    return step, range(0, n, step)


def fraction(args: Inputs, n: int) -> tuple[Array, Array]:
    """(num, den) of one batch as (4, n) arrays: sum_e m_e prod_(i != e) d_i and prod_e d_e."""
    held, vaddr, vcoef, vent, negz, maddr, mconst = args
    num, den = xp.empty((4, n), dtype=U64), xp.empty((4, n), dtype=U64)
    step, starts = _steps(n)
    k = kernels.logup()
    kernels.run_parallel(lambda lo: k.fractions(lo, min(n, lo + step), n, vaddr, vcoef, vent, negz, maddr, mconst,
                                                num, den), starts)
    del held
    return num, den


def quotient(batch: list[Entry], elements: dict[str, RelationElements], n: int) -> fv.SecureVec | None:
    """sum_e m_e / d_e of one batch as a QM31 column (the interaction trace), or None."""
    args = inputs(batch, elements, n) if usable(n) else None
    if args is None:
        return None
    num, den = fraction(args, n)
    out = xp.empty((4, n), dtype=U64)
    step, starts = _steps(n)
    ok: list[bool] = []
    kernels.run_parallel(lambda lo: ok.append(kernels.logup().quotients(lo, min(n, lo + step), num, den, out)), starts)
    if not all(ok):  # a zero denominator (probability ~n / 2^124): the generic path decides
        return None
    return out[0], out[1], out[2], out[3]


def contiguous(x: fv.SecureVec, n: int) -> fv.SecureVec:
    """A QM31 column as four contiguous uint64 arrays of n values (constants broadcast)."""
    return tuple(c if isinstance(c, xp.ndarray) and c.shape == (n,) and c.dtype == U64 and c.flags.c_contiguous
                 else xp.ascontiguousarray(xp.broadcast_to(xp.asarray(c, dtype=U64), (n,))) for c in x)  # type: ignore[return-value]


def owned(acc: fv.SecureVec | None, n: int) -> fv.SecureVec:
    """The accumulator as four writable contiguous uint64 arrays (zeros where None)."""
    if acc is None:
        return fv.secure_zeros(n)
    if all(c.flags.c_contiguous and c.flags.writeable and c.dtype == U64 for c in acc):
        return acc
    return tuple(xp.array(xp.broadcast_to(c, (n,)), dtype=U64) for c in acc)  # type: ignore[return-value]


def add_constraint(acc: fv.SecureVec | None, coef: QM31, diff: fv.SecureVec, num: Array, den: Array,
                   n: int) -> fv.SecureVec:
    """acc + coef * (diff * den - num): one batch's LogUp constraint added to an accumulator that
    the caller owns (updated in place; a new one where acc is None)."""
    acc = owned(acc, n)
    f = contiguous(diff, n)
    g = xp.array([c % P for c in coef], dtype=U64)
    step, starts = _steps(n)
    kernels.run_parallel(lambda lo: kernels.logup().constraint(lo, min(n, lo + step), *f, num, den, g, *acc), starts)
    return acc


def add_scaled(acc: fv.SecureVec | None, coef: QM31, x: fv.SecureVec, n: int) -> fv.SecureVec:
    """acc + coef * x for a QM31 column x, in place as add_constraint."""
    acc = owned(acc, n)
    f = contiguous(x, n)
    g = xp.array([c % P for c in coef], dtype=U64)
    step, starts = _steps(n)
    kernels.run_parallel(lambda lo: kernels.logup().add_scaled(lo, min(n, lo + step), *f, g, *acc), starts)
    return acc


def add_into(acc: fv.SecureVec, x: fv.SecureVec) -> None:
    """acc += x in place (both contiguous uint64 columns of one length, acc the caller's own)."""
    for a, b in zip(acc, x):
        kernels.m31().add_vv(a, b, a)
