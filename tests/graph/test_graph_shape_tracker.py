"""ShapeTracker: every view reads exactly the elements numpy's own view would."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from luminair.prover import ShapeTracker


def numpy_view(src_shape, steps):
    """The same steps applied by numpy to an array of source indices (padding reads -1)."""
    a = np.arange(int(np.prod(src_shape))).reshape(src_shape)
    for kind, arg in steps:
        if kind == "reshape":
            a = a.reshape(arg)
        elif kind == "permute":
            a = a.transpose(arg)
        elif kind == "expand":
            a = np.broadcast_to(a, arg)
        elif kind == "slice":
            a = a[tuple(slice(*r) for r in arg)]
        elif kind == "pad":
            a = np.pad(a, arg, constant_values=-1)
    return a


@st.composite
def view_programs(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    steps, cur = [], shape
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["reshape", "permute", "expand", "slice", "pad"]))
        if kind == "reshape":
            n = int(np.prod(cur))
            divs = [d for d in range(1, n + 1) if n % d == 0]
            d = draw(st.sampled_from(divs))
            new = (d, n // d) if draw(st.booleans()) else (n // d, 1, d)
            steps.append(("reshape", new))
            cur = new
        elif kind == "permute":
            perm = tuple(draw(st.permutations(range(len(cur)))))
            steps.append(("permute", perm))
            cur = tuple(cur[p] for p in perm)
        elif kind == "expand":
            if 1 not in cur:
                continue
            new = tuple(draw(st.integers(1, 3)) if d == 1 else d for d in cur)
            steps.append(("expand", new))
            cur = new
        elif kind == "slice":
            rng = []
            for d in cur:
                a = draw(st.integers(0, d - 1))
                b = draw(st.integers(a + 1, d))
                c = draw(st.integers(1, 2))
                rng.append((a, b, c))
            steps.append(("slice", tuple(rng)))
            cur = tuple(len(range(*r)) for r in rng)
        else:
            pads = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in cur)
            steps.append(("pad", pads))
            cur = tuple(d + a + b for d, (a, b) in zip(cur, pads))
    return shape, steps


def build(shape, steps) -> ShapeTracker:
    t = ShapeTracker(shape)
    for kind, arg in steps:
        t = getattr(t, kind)(arg)
    return t


@settings(max_examples=200, deadline=None)
@given(view_programs())
def test_src_indices_equal_numpy_views(program):
    shape, steps = program
    view = build(shape, steps)
    expected = numpy_view(shape, steps)
    assert view.shape == expected.shape
    idx = view.src_indices()
    assert idx.dtype == np.int64 and idx.shape == (expected.size,)
    assert idx.tolist() == expected.reshape(-1).tolist()


@settings(max_examples=100, deadline=None)
@given(view_programs(), view_programs())
def test_compose_equals_applying_the_steps_in_sequence(p1, p2):
    shape, steps = p1
    first = build(shape, steps)
    _, steps2 = p2
    try:
        second = build(first.shape, steps2)
    except ValueError:
        return  # the second program does not fit the first view's shape
    combined = first.compose(second)
    assert combined.shape == second.shape
    src = np.arange(int(np.prod(shape))) * 10 + 7  # distinct values
    mid = first.gather(src)
    assert combined.gather(src).tolist() == second.gather(mid).tolist()


def test_gather_reads_zero_for_padding():
    v = ShapeTracker((2,)).pad(((1, 2),))
    assert v.src_indices().tolist() == [-1, 0, 1, -1, -1]
    assert v.gather(np.array([5, 6])).tolist() == [0, 5, 6, 0, 0]
    assert v.reads_padding()


def test_merged_steps_make_equal_views_compare_equal():
    a = ShapeTracker((2, 3)).reshape((3, 2)).reshape((6,))
    b = ShapeTracker((2, 3)).reshape((6,))
    assert a == b and hash(a) == hash(b)
    p = ShapeTracker((2, 3, 4)).permute((1, 0, 2)).permute((1, 0, 2))
    assert p == ShapeTracker((2, 3, 4)) and p.is_identity()
    assert ShapeTracker((2, 3)).reshape((6,)).reshape((2, 3)).steps == ()


def test_is_identity():
    assert ShapeTracker((3, 2)).is_identity()
    assert not ShapeTracker((3, 2)).permute((1, 0)).is_identity()
    assert not ShapeTracker((1, 3)).expand((2, 3)).is_identity()
    assert ShapeTracker((3, 1)).permute((1, 0)).reshape((3, 1)).is_identity()  # same order again


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: ShapeTracker((2, 3)).reshape((4,)), "cannot reshape"),
        (lambda: ShapeTracker((2, 3)).permute((0, 0)), "not a permutation"),
        (lambda: ShapeTracker((2, 3)).expand((4, 3)), "only size-1 axes"),
        (lambda: ShapeTracker((2, 3)).slice(((0, 3), (0, 3))), "not within an axis"),
        (lambda: ShapeTracker((2, 3)).slice(((0, 2, 0), (0, 3))), "step >= 1"),
        (lambda: ShapeTracker((2, 3)).pad(((0, -1), (0, 0))), "non-negative"),
        (lambda: ShapeTracker((2,)).compose(ShapeTracker((3,))), "cannot compose"),
    ],
)
def test_invalid_views_are_rejected(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_compose_onto_an_identity_is_kept_and_equals_the_replay():
    """compose onto an identity view keeps its result on the composed view (Graph.transform does it
    for every edge, every pass): the kept result is the one a fresh replay gives."""
    views = [
        ShapeTracker((2, 3, 4)).permute((2, 0, 1)).reshape((4, 6)),
        ShapeTracker((3, 1)).expand((3, 5)).reshape((15,)),
        ShapeTracker((4, 4)).slice([(1, 3), (0, 4, 2)]).pad([(1, 0), (0, 2)]),
        ShapeTracker((6,)).reshape((2, 3)).reshape((3, 2)),
        ShapeTracker((5,)),
    ]
    for v in views:
        fresh = v.src_shape
        first = ShapeTracker(fresh).compose(v)
        assert ShapeTracker(fresh).compose(v) is first and first.key() == v.key()
        assert ShapeTracker(fresh).compose(first) is first
        replay = ShapeTracker(fresh)
        for kind, arg in v.steps:
            replay = replay.step(kind, arg)
        assert replay.key() == first.key() and np.array_equal(replay.src_indices(), v.src_indices())
        moved = ShapeTracker(fresh).reshape((int(np.prod(fresh)),))  # not an identity: replayed each time
        assert moved.compose(ShapeTracker(moved.shape)) is moved
