"""High-level ops: composed only from primitives, equal to numpy in float64, and within the derived
error bound (and equal to the scalar specification) in fixed point."""

import math

import numpy as np
import pytest
from graph_helpers import assert_exact_matches_scalar, assert_within_bound

from luminair.prover import Graph, GraphError, GroupOp
from luminair.prover import graph as G


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def u(lo, hi, shape):
    return lambda r: r.uniform(lo, hi, shape)


W34 = np.linspace(-1, 1, 12).reshape(3, 4)

# name: (graph function over input tensors, numpy reference, input generators)
CASES = {
    "neg": (lambda x: -x, lambda x: -x, [u(-5, 5, (3, 4))]),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, [u(-5, 5, (3, 4)), u(-5, 5, (4,))]),
    "rsub_number": (lambda x: 1.5 - x, lambda x: 1.5 - x, [u(-5, 5, (3, 4))]),
    "div": (lambda a, b: a / b, lambda a, b: a / b, [u(-4, 4, (3, 4)), u(1, 3, (3, 1))]),
    "div_number": (lambda x: x / 7.0, lambda x: x / 7.0, [u(-20, 20, (3, 4))]),
    "div_array": (lambda x: x / np.array([3.0, 50.0, 0.5, -9.0]), lambda x: x / np.array([3.0, 50.0, 0.5, -9.0]),
                  [u(-8, 8, (3, 4))]),
    "rdiv_number": (lambda x: 2.0 / x, lambda x: 2.0 / x, [u(1, 4, (3, 4))]),
    "exp": (G.exp, np.exp, [u(-30, 3.3, (3, 4))]),
    "log": (G.log, np.log, [u(0.05, 30, (3, 4))]),
    "pow3": (lambda x: x ** 3, lambda x: x ** 3, [u(-3, 3, (3, 4))]),
    "rpow": (lambda x: 3.0 ** x, lambda x: 3.0 ** x, [u(-2, 2, (3, 4))]),
    "rpow2": (lambda x: 2 ** x, np.exp2, [u(-2, 2, (3, 4))]),
    "select_method": (lambda c, a: (c < 0).where(a, 0.5), lambda c, a: np.where(c < 0, a, 0.5), [u(-1, 1, (3, 4)), u(-5, 5, (4,))]),
    "select": (lambda c, a: G.select(c > 0, a, a * 2.0), lambda c, a: np.where(c > 0, a, a * 2), [u(-1, 1, (3, 4)), u(-5, 5, (4,))]),
    "pow0": (lambda x: x ** 0, lambda x: np.ones_like(x), [u(-3, 3, (3, 4))]),
    "pow_neg2": (lambda x: x ** -2, lambda x: x ** -2.0, [u(0.5, 3, (3, 4))]),
    "abs": (abs, np.abs, [u(-5, 5, (3, 4))]),
    "sign": (G.sign, np.sign, [u(-5, 5, (3, 4))]),
    "relu": (G.relu, lambda x: np.maximum(x, 0), [u(-5, 5, (3, 4))]),
    "leaky_relu": (lambda x: G.leaky_relu(x, 0.1), lambda x: np.where(x > 0, x, 0.1 * x), [u(-5, 5, (3, 4))]),
    "sigmoid": (G.sigmoid, lambda x: 1 / (1 + np.exp(-x)), [u(-12, 12, (3, 4))]),
    "tanh": (G.tanh, np.tanh, [u(-6, 6, (3, 4))]),
    "gelu": (G.gelu, np_gelu, [u(-4, 4, (3, 4))]),
    "gelu_wide": (G.gelu, np_gelu, [u(-30, 30, (3, 4))]),
    "cos": (G.cos, np.cos, [u(-6, 6, (3, 4))]),
    "square": (G.square, np.square, [u(-5, 5, (3, 4))]),
    "rsqrt": (G.rsqrt, lambda x: 1 / np.sqrt(x), [u(0.2, 20, (3, 4))]),
    "clip": (lambda x: G.clip(x, -1.0, 2.0), lambda x: np.clip(x, -1, 2), [u(-31, 31, (3, 4))]),
    "maximum": (G.maximum, np.maximum, [u(-5, 5, (3, 4)), u(-5, 5, (4,))]),
    "minimum": (G.minimum, np.minimum, [u(-5, 5, (3, 4)), u(-5, 5, (3, 1))]),
    "gt": (lambda a, b: a > b, lambda a, b: (a > b) * 1.0, [u(-2, 2, (3, 4)), u(-2, 2, (4,))]),
    "ge": (lambda a, b: a >= b, lambda a, b: (a >= b) * 1.0, [u(-2, 2, (3, 4)), u(-2, 2, (4,))]),
    "le": (lambda a, b: a <= b, lambda a, b: (a <= b) * 1.0, [u(-2, 2, (3, 4)), u(-2, 2, (4,))]),
    "eq": (lambda a, b: G.eq(a, b.T), lambda a, b: (a == b.T) * 1.0, [lambda r: r.integers(-2, 3, (3, 3)) * 1.0] * 2),
    "ne": (lambda a, b: G.ne(a, b), lambda a, b: (a != b) * 1.0, [lambda r: r.integers(-2, 3, (3, 3)) * 1.0] * 2),
    "where": (lambda c, a: G.where(c > 0, a, -a), lambda c, a: np.where(c > 0, a, -a), [u(-1, 1, (3, 4)), u(-5, 5, (4,))]),
    "where_numbers": (lambda c: G.where(c > 0, 2.0, 0.0), lambda c: np.where(c > 0, 2.0, 0.0), [u(-1, 1, (3, 4))]),
    "where_nonmask": (lambda c, a: G.where(c, a, 3.0), lambda c, a: np.where(c != 0, a, 3.0),
                      [lambda r: r.integers(-1, 2, (3, 4)) * 0.5, u(-5, 5, (3, 4))]),
    "sum_all": (lambda x: G.sum(x), lambda x: x.sum(), [u(-1, 1, (2, 3, 4))]),
    "sum_axes": (lambda x: G.sum(x, (0, 2), keepdims=True), lambda x: x.sum(axis=(0, 2), keepdims=True), [u(-1, 1, (2, 3, 4))]),
    "max_axis": (lambda x: G.max(x, 1), lambda x: x.max(axis=1), [u(-5, 5, (2, 3, 4))]),
    "min_axis": (lambda x: G.min(x, -1, keepdims=True), lambda x: x.min(axis=-1, keepdims=True), [u(-5, 5, (2, 3, 4))]),
    "mean_axes": (lambda x: G.mean(x, (1, 2)), lambda x: x.mean(axis=(1, 2)), [u(-2, 2, (2, 3, 4))]),
    "mean_all": (lambda x: G.mean(x), lambda x: x.mean(), [u(-0.5, 0.5, (5, 7))]),
    "var": (lambda x: G.var(x, 1), lambda x: x.var(axis=1), [u(-2, 2, (3, 5))]),
    "var_ddof1": (lambda x: G.var(x, 0, correction=1), lambda x: x.var(axis=0, ddof=1), [u(-2, 2, (4, 3))]),
    "argmax_axis0": (lambda x: G.argmax(x, 0), lambda x: np.argmax(x, 0) * 1.0, [u(-5, 5, (4, 3))]),
    "argmax_axis1": (lambda x: G.argmax(x, 1, keepdims=True), lambda x: np.argmax(x, 1)[:, None] * 1.0, [u(-5, 5, (4, 3))]),
    "argmax_ties": (lambda x: G.argmax(x, 1), lambda x: np.argmax(x, 1) * 1.0, [lambda r: r.integers(0, 2, (5, 4)) * 1.0]),
    "argmax_all": (lambda x: G.argmax(x), lambda x: np.argmax(x) * 1.0, [u(-5, 5, (2, 3))]),
    "softmax_last": (lambda x: G.softmax(x), lambda x: np_softmax(x, -1), [u(-6, 6, (3, 5))]),
    "softmax_axis0": (lambda x: G.softmax(x, 0), lambda x: np_softmax(x, 0), [u(-6, 6, (3, 5))]),
    "softmax_3d_axis1": (lambda x: G.softmax(x, 1), lambda x: np_softmax(x, 1), [u(-6, 6, (2, 3, 4))]),
    "log_softmax": (lambda x: G.log_softmax(x, 1), lambda x: np.log(np_softmax(x, 1)), [u(-4, 4, (3, 5))]),
    "layer_norm": (lambda x: G.layer_norm(x, -1, W34[0], W34[1], eps=1e-3),
                   lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3) * W34[0] + W34[1],
                   [u(-2, 2, (3, 4))]),
    "layer_norm_2axes": (lambda x: G.layer_norm(x, (1, 2), eps=1e-2),
                         lambda x: (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-2),
                         [u(-2, 2, (2, 3, 4))]),
    "matmul_2d": (lambda a, b: a @ b, np.matmul, [u(-1, 1, (3, 5)), u(-1, 1, (5, 2))]),
    "matmul_batched": (lambda a, b: a @ b, np.matmul, [u(-1, 1, (2, 3, 5)), u(-1, 1, (2, 5, 4))]),
    "matmul_broadcast": (lambda a, b: a @ b, np.matmul, [u(-1, 1, (2, 1, 3, 5)), u(-1, 1, (4, 5, 2))]),
    "matmul_vec_mat": (lambda a, b: a @ b, np.matmul, [u(-1, 1, (5,)), u(-1, 1, (2, 5, 3))]),
    "matmul_mat_vec": (lambda a, b: a @ b, np.matmul, [u(-1, 1, (3, 5)), u(-1, 1, (5,))]),
    "matmul_vec_vec": (lambda a, b: a @ b, np.matmul, [u(-1, 1, (5,)), u(-1, 1, (5,))]),
    "linear": (lambda x: G.linear(x, W34, W34[:, 0]), lambda x: x @ W34.T + W34[:, 0], [u(-1, 1, (2, 4))]),
    "flatten": (lambda x: x.flatten(1), lambda x: x.reshape(2, -1), [u(-1, 1, (2, 3, 4))]),
    "concat": (lambda a, b: G.concat([a, b, a], 1), lambda a, b: np.concatenate([a, b, a], 1),
               [u(-1, 1, (2, 3)), u(-1, 1, (2, 2))]),
    "gather": (lambda x: G.gather(x, np.array([[2, 0], [1, 1]]), 1), lambda x: np.take(x, [[2, 0], [1, 1]], 1),
               [u(-1, 1, (2, 4))]),
    "gather_strided": (lambda x: G.gather(x, [0, 2, 4, 5, -1], 0), lambda x: np.take(x, [0, 2, 4, 5, -1], 0),
                       [u(-1, 1, (7, 2))]),
    "index": (lambda x: x[1, ..., ::2][None], lambda x: x[1, ..., ::2][None], [u(-1, 1, (3, 4, 5))]),
    "pad": (lambda x: x.pad(((1, 0), (0, 2))), lambda x: np.pad(x, ((1, 0), (0, 2))), [u(-1, 1, (2, 3))]),
}


def build(name, rng):
    fn, ref, gens = CASES[name]
    cx = Graph()
    vals = [g(rng) for g in gens]
    ts = [cx.input(f"x{i}", v.shape) for i, v in enumerate(vals)]
    fn(*ts).output("y")
    feed = {f"x{i}": v for i, v in enumerate(vals)}
    return cx, feed, ref(*vals)


@pytest.mark.parametrize("name", list(CASES))
def test_high_level_op_matches_numpy_in_float64(rng, name):
    cx, feed, expected = build(name, rng)
    out = cx.run(feed)["y"]
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=2e-6 if "gelu" in name else 1e-12)
    assert all(n.op in GroupOp.ALL for n in cx.nodes())


@pytest.mark.parametrize("name", list(CASES))
def test_high_level_op_in_fixed_point_is_within_the_error_bound(rng, name):
    cx, feed, _ = build(name, rng)
    assert_within_bound(cx, feed)
    assert_exact_matches_scalar(cx, feed)


def test_fixed_point_error_is_small_where_the_bound_is_tight(rng):
    """A sanity check of scale: at scale 10 the elementwise ops are accurate to a few raw units."""
    for name in ("exp", "sigmoid", "tanh", "softmax_last", "relu", "linear"):
        cx, feed, _ = build(name, rng)
        worst = assert_within_bound(cx, feed)
        assert worst["y"] < 8 / 1024, name


def test_exp_and_softmax_stay_in_range_for_large_negative_arguments():
    cx = Graph()
    x = cx.input("x", (4,))
    G.exp(x).output("e")
    G.softmax(x).output("s")
    xv = np.array([-28.0, -25.0, 0.0, 3.0])  # exp2(-28 * 1.44) would overflow the multiply
    out = cx.run({"x": xv}, exact=True)
    assert out["e"][0] == 0.0 and abs(out["e"][3] - math.exp(3)) < 0.05
    np.testing.assert_allclose(out["s"], np_softmax(xv, 0), atol=3e-3)


def test_pow_rejects_non_integer_exponents():
    cx = Graph()
    x = cx.input("x", (2,))
    with pytest.raises(GraphError, match="integer exponents"):
        x ** 0.5


AXIS_OPS = {
    "softmax": (lambda x, a: G.softmax(x, a), lambda x, a: np_softmax(x, a)),
    "log_softmax": (lambda x, a: G.log_softmax(x, a), lambda x, a: np.log(np_softmax(x, a))),
    "sum": (lambda x, a: G.sum(x, a), lambda x, a: x.sum(axis=a)),
    "max": (lambda x, a: G.max(x, a), lambda x, a: x.max(axis=a)),
    "min": (lambda x, a: G.min(x, a, keepdims=True), lambda x, a: x.min(axis=a, keepdims=True)),
    "mean": (lambda x, a: G.mean(x, a), lambda x, a: x.mean(axis=a)),
    "var": (lambda x, a: G.var(x, a), lambda x, a: x.var(axis=a)),
    "argmax": (lambda x, a: G.argmax(x, a), lambda x, a: np.argmax(x, axis=a) * 1.0),
    "layer_norm": (lambda x, a: G.layer_norm(x, a, eps=1e-2),
                   lambda x, a: (x - x.mean(a, keepdims=True)) / np.sqrt(x.var(a, keepdims=True) + 1e-2)),
    "concat": (lambda x, a: G.concat([x, x * 2.0], a), lambda x, a: np.concatenate([x, x * 2], a)),
}


@pytest.mark.parametrize("name", list(AXIS_OPS))
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_axis_ops_on_every_axis(rng, name, axis):
    fn, ref = AXIS_OPS[name]
    xv = rng.uniform(-2, 2, (2, 3, 4))
    cx = Graph()
    fn(cx.input("x", xv.shape), axis).output("y")
    np.testing.assert_allclose(cx.run({"x": xv})["y"], ref(xv, axis), rtol=1e-9, atol=1e-12)
    assert_within_bound(cx, {"x": xv})
