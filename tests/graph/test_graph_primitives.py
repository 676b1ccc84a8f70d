"""Every primitive op through a graph: the float64 executor matches numpy (with broadcasting and on
every axis) and the fixed-point executor matches the scalar specification on every node."""

import numpy as np
import pytest
from graph_helpers import assert_exact_matches_scalar

from luminair.prover import Graph, Op

UNARY = {
    "log2": (np.log2, lambda r: r.uniform(0.05, 20, (3, 4))),
    "exp2": (np.exp2, lambda r: r.uniform(-8, 4.5, (3, 4))),
    "sin": (np.sin, lambda r: r.uniform(-30, 30, (3, 4))),
    "sqrt": (np.sqrt, lambda r: r.uniform(0, 30, (3, 4))),
    "recip": (lambda x: 1 / x, lambda r: r.choice([-1, 1], (3, 4)) * r.uniform(0.1, 5, (3, 4))),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_primitive_matches_numpy_and_the_scalar_spec(rng, name):
    fn, gen = UNARY[name]
    cx = Graph()
    x = cx.input("x", (3, 4))
    y = getattr(x, name)().output("y")
    xv = gen(rng)
    np.testing.assert_allclose(cx.run({"x": xv})["y"], fn(xv), rtol=1e-12)
    assert [n.op for n in cx.nodes()] == [Op.INPUT, Op[name.upper()]]
    assert y.shape == (3, 4)
    assert_exact_matches_scalar(cx, {"x": xv})


BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "mul": (lambda a, b: a * b, np.multiply),
    "mod": (lambda a, b: a % b, np.mod),
    "less_than": (lambda a, b: a < b, lambda a, b: (a < b).astype(float)),
}
SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((1,), (2, 3)), ((), (2, 2))]


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("shapes", SHAPES)
def test_binary_primitive_broadcasts_like_numpy(rng, name, shapes):
    op, ref = BINARY[name]
    sa, sb = shapes
    cx = Graph()
    a, b = cx.input("a", sa), cx.input("b", sb)
    op(a, b).output("y")
    av = rng.uniform(-6, 6, sa)
    bv = rng.uniform(-6, 6, sb)
    if name == "mod":
        bv = np.where(np.abs(bv) < 0.5, 1.5, bv)
    if name == "less_than":
        av.reshape(-1)[:1] = bv.reshape(-1)[:1]  # an equal pair
    out = cx.run({"a": av, "b": bv})["y"]
    np.testing.assert_allclose(out, ref(av, bv), rtol=1e-12)
    assert out.shape == np.broadcast_shapes(sa, sb)
    assert_exact_matches_scalar(cx, {"a": av, "b": bv})


def test_binary_with_python_numbers_and_numpy_arrays_on_either_side(rng):
    cx = Graph()
    x = cx.input("x", (2, 3))
    c = np.array([1.0, 2.0, 3.0])
    (x + 2).output("a")
    (2 + x).output("b")
    (c * x).output("c")  # numpy array on the left: numpy defers to the tensor
    (x < 0.5).output("d")
    xv = rng.uniform(-1, 1, (2, 3))
    out = cx.run({"x": xv})
    np.testing.assert_allclose(out["a"], xv + 2)
    np.testing.assert_allclose(out["b"], xv + 2)
    np.testing.assert_allclose(out["c"], c * xv)
    np.testing.assert_array_equal(out["d"], (xv < 0.5).astype(float))


@pytest.mark.parametrize("reduce", ["sum_reduce", "max_reduce"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_reductions_on_every_axis(rng, reduce, axis):
    cx = Graph()
    x = cx.input("x", (2, 3, 4))
    y = getattr(x, reduce)(axis).output("y")
    xv = rng.uniform(-3, 3, (2, 3, 4))
    ref = xv.sum(axis=axis) if reduce == "sum_reduce" else xv.max(axis=axis)
    np.testing.assert_allclose(cx.run({"x": xv})["y"], ref, rtol=1e-12)
    node = y.node
    assert node.axis == axis % 3 and node.shape == ref.shape  # the reduced axis is removed
    assert_exact_matches_scalar(cx, {"x": xv})


def test_reduction_of_a_view_reduces_the_viewed_axes(rng):
    cx = Graph()
    x = cx.input("x", (3, 4))
    x.T.sum_reduce(1).output("rows")  # sums over the original axis 0
    xv = rng.uniform(-1, 1, (3, 4))
    np.testing.assert_allclose(cx.run({"x": xv})["rows"], xv.T.sum(axis=1))


def test_contiguous_materializes_a_view(rng):
    cx = Graph()
    x = cx.input("x", (2, 3))
    y = x.T.pad(((1, 0), (0, 1))).contiguous().output("y")
    assert y.node.op is Op.CONTIGUOUS and y.view.is_identity()
    xv = rng.uniform(-1, 1, (2, 3))
    np.testing.assert_array_equal(cx.run({"x": xv})["y"], np.pad(xv.T, ((1, 0), (0, 1))))
    assert x.contiguous() is x  # nothing to materialize
    assert_exact_matches_scalar(cx, {"x": xv})


def test_views_are_not_nodes(rng):
    cx = Graph()
    x = cx.input("x", (2, 3, 4))
    v = x.permute(2, 0, 1).reshape(4, 6)[1:3, ::2].unsqueeze(0).broadcast_to((2, 2, 3)).pad(((0, 0), (1, 1), (0, 0)))
    v.output("v")
    assert len(cx.nodes()) == 1
    xv = rng.uniform(-1, 1, (2, 3, 4))
    ref = np.pad(np.broadcast_to(xv.transpose(2, 0, 1).reshape(4, 6)[1:3, ::2][None], (2, 2, 3)), ((0, 0), (1, 1), (0, 0)))
    np.testing.assert_array_equal(cx.run({"x": xv})["v"], ref)
    np.testing.assert_array_equal(cx.run({"x": xv}, exact=True)["v"], np.floor(ref * 1024 + 0.5) / 1024)
