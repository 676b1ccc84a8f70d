"""Autograd (prover/graph/autograd.py): gradients of primitive and high-level ops against central
finite differences of the float64 executor, against PyTorch when it is installed, and the
fixed-point gradient against the float64 one."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from luminair.prover import Graph, GraphError

RNG = np.random.default_rng(11)


def _grads(build: Callable, shapes: list[tuple[int, ...]], vals: list[np.ndarray]):
    cx = Graph()
    xs = [cx.input(f"p{i}", s) for i, s in enumerate(shapes)]
    loss = build(*xs)
    for i, g in enumerate(cx.grad(loss, xs)):
        g.output(f"g{i}")
    loss.output("loss")
    feed = {f"p{i}": v for i, v in enumerate(vals)}
    return cx, feed, cx.run(feed)


def _finite_difference(cx: Graph, feed: dict, name: str, h: float = 1e-6) -> np.ndarray:
    v = feed[name]
    out = np.zeros_like(v)
    for j in np.ndindex(v.shape):
        for sign in (1, -1):
            w = v.copy()
            w[j] += sign * h
            out[j] += sign * cx.run({**feed, name: w})["loss"].sum() / (2 * h)
    return out


CASES = {
    "matmul relu": (lambda a, b: ((a @ b).relu() * 1.3).sum(), [(3, 4), (4, 2)]),
    "log_softmax softmax": (lambda a: a.log_softmax(-1).sum() * 0.5 + a.softmax(0)[1].sum(), [(3, 4)]),
    "max strided slice": (
        lambda a, b: (a * b.T).max(1).sum() + (a[:, ::2] * 2.0).sum() + a[::2, 1:].sum(),
        [(3, 4), (4, 3)],
    ),
    "sigmoid tanh sqrt exp": (
        lambda a: a.sigmoid().sum() + a.tanh().sum() + a.sqrt().sum() + a.exp().sum(),
        [(2, 3)],
    ),
    "pad": (lambda a: (a.pad(((1, 0), (0, 2))) * a.pad(((0, 1), (2, 0)))).sum(), [(3, 4)]),
    "div sin log mod": (
        lambda a, b: (a / b).sum() + a.sin().sum() + a.log().sum() + (a % b).sum(),
        [(3, 4), (3, 4)],
    ),
    "reshape permute broadcast": (
        lambda a, b: (a.reshape(4, 3).permute(1, 0) * b).sum() + (a + b[0]).sum(),
        [(3, 4), (3, 4)],
    ),
    "layer_norm var": (lambda a: (a.layer_norm() * a).sum() * 0.1 + a.var() * 2, [(3, 4)]),
    "conv2d avg_pool": (
        lambda a, w: a.conv2d(w, padding=1).avg_pool2d(2).square().sum(),
        [(1, 1, 4, 4), (2, 1, 3, 3)],
    ),
    "recip pow leaky gelu": (
        lambda a: a.recip().sum() + (a**3).sum() + a.leaky_relu(0.1).sum() + a.gelu().sum(),
        [(2, 3)],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_match_finite_differences(case: str) -> None:
    build, shapes = CASES[case]
    vals = [RNG.uniform(0.3, 1.5, size=s) for s in shapes]
    cx, feed, out = _grads(build, shapes, vals)
    for i in range(len(shapes)):
        fd = _finite_difference(cx, feed, f"p{i}")
        np.testing.assert_allclose(out[f"g{i}"], fd, rtol=1e-5, atol=1e-6, err_msg=f"{case}: parameter {i}")


def test_unused_parameter_has_zero_gradient_and_grad_output_scales() -> None:
    cx = Graph()
    a, b = cx.input("a", (2,)), cx.input("b", (3,))
    loss = (a * a).sum()
    ga, gb = cx.grad(loss, [a, b], grad_output=4.0)
    ga.output("ga")
    gb.output("gb")
    out = cx.run({"a": np.array([0.5, -1.0]), "b": np.ones(3)})
    np.testing.assert_allclose(out["ga"], 4.0 * 2 * np.array([0.5, -1.0]))
    np.testing.assert_array_equal(out["gb"], np.zeros(3))


def test_grad_rejects_views_and_foreign_tensors() -> None:
    cx, other = Graph(), Graph()
    a = cx.input("a", (2, 2))
    loss = a.sum()
    with pytest.raises(GraphError, match="view"):
        cx.grad(loss, [a.T])
    with pytest.raises(GraphError, match="not a tensor"):
        cx.grad(loss, [other.input("b", (1,))])


def test_fixed_point_gradient_is_close_to_float() -> None:
    """The exact (fixed-point) gradient of a small MLP's cross entropy is the float64 gradient to
    within a few raw units."""
    from luminair.prover.train import cross_entropy, onehot

    cx = Graph()
    x, y = cx.input("x", (6, 5)), cx.input("y", (6, 3))
    w = cx.input("w", (3, 5))
    loss = cross_entropy(x.linear(w).relu() * 1.5, y)
    (g,) = cx.grad(loss, [w], grad_output=6.0)
    g.output("g")
    feed = {
        "x": RNG.uniform(0, 1, (6, 5)),
        "y": onehot(RNG.integers(0, 3, 6), 3),
        "w": RNG.uniform(-1, 1, (3, 5)),
    }
    exact, real = cx.run(feed, exact=True)["g"], cx.run(feed)["g"]
    assert np.abs(exact - real).max() <= 8 / 1024, np.abs(exact - real).max()


def test_gradients_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    shapes = [(4, 6), (5, 6), (5,), (3, 5), (4, 3)]
    vals = [RNG.uniform(-1, 1, size=s) for s in shapes]
    vals[4] = np.eye(3)[[0, 2, 1, 0]]

    def build(x, w1, b1, w2, y):
        h = x.linear(w1, b1).relu()
        return -(y * h.linear(w2).log_softmax(-1)).sum() * 0.25

    _, _, out = _grads(build, shapes, vals)
    t = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in vals]
    h = torch.relu(t[0] @ t[1].T + t[2])
    loss = -(t[4] * torch.log_softmax(h @ t[3].T, -1)).sum() * 0.25
    loss.backward()
    for i in range(4):
        np.testing.assert_allclose(out[f"g{i}"], t[i].grad.numpy(), rtol=1e-9, atol=1e-12)
