"""The verifier's view semantics replayed step by step on an index list (pure Python): the reference
that verifier/graph/settings.pieces_indices (affine pieces, no materialized source) and the
prover's ShapeTracker are tested against. The verifier itself never replays a view."""

from __future__ import annotations

from math import prod

from luminair.verifier.graph.spec import Step, view_shape


def view_indices(src_shape: tuple[int, ...], steps: tuple[Step, ...]) -> list[int]:
    """The flat source index each element of a view reads (-1: padding), replaying the steps on an
    index list."""
    shape = tuple(src_shape)
    idx = list(range(prod(shape)))
    for kind, arg in steps:
        if kind == "reshape":
            shape = tuple(arg)
            continue
        new_shape = view_shape(shape, ((kind, arg),))
        old_strides = _strides(shape)
        out = []
        for flat in range(prod(new_shape)):
            digits = _unravel(flat, new_shape)
            src = _source_digits(kind, arg, digits, shape)
            out.append(-1 if src is None else idx[sum(d * s for d, s in zip(src, old_strides))])
        idx, shape = out, new_shape
    return idx


def _strides(shape: tuple[int, ...]) -> list[int]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


def _unravel(flat: int, shape: tuple[int, ...]) -> list[int]:
    out = [0] * len(shape)
    for j in range(len(shape) - 1, -1, -1):
        out[j] = flat % shape[j]
        flat //= shape[j]
    return out


def _source_digits(kind: str, arg: tuple, digits: list[int], shape: tuple[int, ...]) -> list[int] | None:
    if kind == "permute":
        src = [0] * len(digits)
        for new_axis, old_axis in enumerate(arg):
            src[old_axis] = digits[new_axis]
        return src
    if kind == "expand":
        return [0 if d == 1 else x for x, d in zip(digits, shape)]
    if kind == "slice":
        return [a + c * x for x, (a, _, c) in zip(digits, arg)]
    if kind == "pad":
        src = [x - a for x, (a, _) in zip(digits, arg)]
        return src if all(0 <= x < d for x, d in zip(src, shape)) else None
    if kind == "window":
        axis, _, stride, dilation = arg
        return digits[:axis] + [digits[axis] * stride + digits[axis + 1] * dilation] + digits[axis + 2 :]
    raise ValueError(f"unknown view step {kind!r}")
