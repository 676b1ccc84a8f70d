"""Every primitive op, alone and in small random graphs, proves and verifies, at 32x32 and at
sizes that are not powers of two; the proven outputs equal the fixed-point reference bit for bit."""

import numpy as np
import pytest

from luminair.prover import Graph

from proving_helpers import check, prove_graph

RNG = np.random.default_rng(3)

# op name -> (builder, input ranges)
OPS = {
    "add": (lambda x, y: x + y, (-8, 8), (-8, 8)),
    "mul": (lambda x, y: x * y, (-4, 4), (-4, 4)),
    "mod": (lambda x, y: x % y, (-8, 8), (0.5, 3)),
    "less_than": (lambda x, y: x.less_than(y), (-2, 2), (-2, 2)),
    "recip": (lambda x, y: x.recip(), (0.25, 3), None),
    "recip_negative": (lambda x, y: x.recip(), (-3, -0.25), None),
    "sqrt": (lambda x, y: x.sqrt(), (0, 9), None),
    "log2": (lambda x, y: x.log2(), (0.05, 20), None),
    "exp2": (lambda x, y: x.exp2(), (-12, 4.5), None),
    "sin": (lambda x, y: x.sin(), (-7, 7), None),
    "sum_reduce_0": (lambda x, y: x.sum_reduce(0), (-0.5, 0.5), None),
    "sum_reduce_1": (lambda x, y: x.sum_reduce(1), (-0.5, 0.5), None),
    "max_reduce_0": (lambda x, y: x.max_reduce(0), (-9, 9), None),
    "max_reduce_1": (lambda x, y: x.max_reduce(1), (-9, 9), None),
    "contiguous": (lambda x, y: x.permute(1, 0).contiguous(), (-9, 9), None),
}


def build(op: str, shape: tuple[int, int]):
    fn, rx, ry = OPS[op]
    cx = Graph()
    x = cx.input("x", shape)
    y = cx.input("y", shape) if ry else None
    fn(x, y).output("out")
    feed = {"x": RNG.uniform(*rx, shape)}
    if ry:
        feed["y"] = RNG.uniform(*ry, shape)
    return cx, feed


@pytest.mark.parametrize("shape", [(32, 32), (5, 7)])
@pytest.mark.parametrize("op", sorted(OPS))
def test_each_primitive_proves_and_verifies(op, shape):
    cx, feed = build(op, shape)
    settings, trace, proof = prove_graph(cx, feed)
    r = check(settings, proof)
    assert r.success, r.error_message
    expect = cx.run(feed, exact=True)["out"]
    got = np.array(r.outputs["out"]["values"]).reshape(expect.shape)
    assert np.array_equal(got, expect)


def test_a_broadcast_input_and_a_padded_view_prove():
    cx = Graph()
    x = cx.input("x", (3, 4))
    b = cx.input("b", (4,))
    z = (x + b).pad(((1, 0), (0, 2)))  # a view that reads padding
    (z * z).sum_reduce(1).output("s")
    feed = {"x": RNG.uniform(-1, 1, (3, 4)), "b": RNG.uniform(-1, 1, (4,))}
    settings, trace, proof = prove_graph(cx, feed)
    r = check(settings, proof)
    assert r.success, r.error_message
    assert np.array_equal(np.array(r.outputs["s"]["values"]), cx.run(feed, exact=True)["s"].reshape(-1))


@pytest.mark.parametrize("seed", range(6))
def test_random_small_graphs(seed):
    rng = np.random.default_rng(100 + seed)
    cx = Graph()
    shape = tuple(int(v) for v in rng.integers(2, 7, 2))
    vals = [cx.input("a", shape), cx.input("b", shape), cx.constant(rng.uniform(-1, 1, shape), "c")]
    for _ in range(6):
        a, b = (vals[int(i)] for i in rng.integers(0, len(vals), 2))
        kind = rng.integers(0, 6)
        if kind == 0:
            v = a + b
        elif kind == 1:
            v = a * b
        elif kind == 2:
            v = a.less_than(b)
        elif kind == 3:
            v = (a * a + 1).recip()
        elif kind == 4:
            v = a.max_reduce(1).reshape(shape[0], 1).broadcast_to(*shape) + b
        else:
            v = (a * 0.5).sin()
        vals.append(v)
    vals[-1].output("out")
    vals[-2].output("aux")
    feed = {"a": rng.uniform(-1, 1, shape), "b": rng.uniform(-1, 1, shape)}
    settings, trace, proof = prove_graph(cx, feed)
    r = check(settings, proof)
    assert r.success, r.error_message
    exact = cx.run(feed, exact=True)
    for name in ("out", "aux"):
        assert np.array_equal(np.array(r.outputs[name]["values"]), exact[name].reshape(-1))


def test_private_inputs_stay_out_of_the_proof():
    cx = Graph()
    x = cx.input("x", (4,))
    secret = cx.input("k", (4,), private=True)
    (x * secret).sum_reduce(0).output("dot")
    feed = {"x": np.array([1.0, 2, 3, 4]), "k": np.array([0.5, -0.25, 0.125, 1])}
    settings, trace, proof = prove_graph(cx, feed)
    r = check(settings, proof)
    assert r.success, r.error_message
    assert set(r.inputs) == {"x"}
    assert r.outputs["dot"]["values"] == [cx.run(feed, exact=True)["dot"].item()]
