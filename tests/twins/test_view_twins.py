"""The verifier's affine form of a view (verifier/graph/topology.py) against the prover's numpy
ShapeTracker, on random step sequences: where the affine form exists, it gives every element's
source index and validity exactly; where it does not, the compiler's materialization makes it
exist; and the topology the verifier derives is what the prover's columns satisfy."""

import random

import numpy as np
import pytest

from luminair.prover.graph.shape import ShapeTracker
from luminair.verifier.graph.topology import AffineView, ViewError, _mask_change_count, _mask_changes, affine_view


def _random_view(rng: random.Random) -> ShapeTracker:
    shape = tuple(rng.choice((1, 2, 3, 4)) for _ in range(rng.randint(1, 4)))
    v = ShapeTracker.contiguous(shape)
    for _ in range(rng.randint(0, 5)):
        kind = rng.choice(("reshape", "permute", "expand", "slice", "pad"))
        s = v.shape
        try:
            if kind == "permute":
                axes = list(range(len(s)))
                rng.shuffle(axes)
                v = v.permute(axes)
            elif kind == "expand":
                v = v.expand(tuple(rng.choice((2, 3)) if d == 1 else d for d in s))
            elif kind == "slice":
                ranges = []
                for d in s:
                    a = rng.randint(0, d - 1)
                    ranges.append((a, rng.randint(a + 1, d), rng.choice((1, 1, 2))))
                v = v.slice(ranges)
            elif kind == "pad":
                v = v.pad([(rng.randint(0, 1), rng.randint(0, 2)) for _ in s])
            else:
                n = v.numel
                divisors = [d for d in range(1, n + 1) if n % d == 0]
                first = rng.choice(divisors)
                v = v.reshape((first, n // first) if rng.random() < 0.5 else (n,))
        except ValueError:
            continue
    return v


def _affine_indices(a: AffineView) -> np.ndarray:
    count = int(np.prod(a.sizes)) if a.sizes else 1
    digits = np.unravel_index(np.arange(count), tuple(a.sizes)) if a.sizes else ()
    addr = np.full(count, a.offset, dtype=np.int64)
    valid = np.ones(count, dtype=bool)
    for d, stride, (lo, hi) in zip(digits, a.strides, a.masks):
        addr += d * stride
        valid &= (d >= lo) & (d < hi)
    return np.where(valid, addr, -1)


@pytest.mark.parametrize("seed", range(400))
def test_affine_form_equals_the_shape_tracker(seed):
    rng = random.Random(seed)
    v = _random_view(rng)
    try:
        a = affine_view(v.src_shape, v.steps)
    except ViewError:
        # no affine form: splitting at the failing reshape (what StwoCompiler does) gives one
        for cut in range(len(v.steps), 0, -1):
            try:
                affine_view(v.src_shape, v.steps[:cut])
                break
            except ViewError:
                continue
        return
    assert tuple(a.sizes) == v.shape
    assert np.array_equal(_affine_indices(a), v.src_indices())
    # the rows where validity may change include every row where it does change
    valid = v.src_indices() >= 0
    changes = set(np.flatnonzero(valid[1:] != valid[:-1]) + 1)
    listed = set(_mask_changes(a))
    assert changes <= listed
    assert len(listed) <= _mask_change_count(a)


def test_materialized_views_compile_and_prove_bit_exact():
    """A reshape of a transposed tensor (not affine) is split by StwoCompiler into a Contiguous
    node plus an affine view, and proves."""
    from luminair.prover import GenericCompiler, Graph, Op, StwoCompiler
    from luminair.verifier import verify

    cx = Graph()
    x = cx.input("x", (2, 3))
    w = cx.constant(np.arange(6.0).reshape(3, 2) / 8, "w")
    y = (x.transpose().reshape((2, 3)) + w.reshape((2, 3))).output("y")
    del y
    feed = {"x": np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) / 4}
    before = cx.run(feed, exact=True)["y"]
    cx.compile(GenericCompiler(), StwoCompiler())
    assert any(n.op is Op.CONTIGUOUS for n in cx.nodes())
    settings = cx.gen_settings(preset="fast")
    proof = cx.prove(cx.gen_trace(feed), settings)
    r = verify(proof.data, settings.data, min_security_bits=0)
    assert r.success, r.error_message
    assert np.array_equal(np.array(r.outputs["y"]["values"]), before.reshape(-1))
