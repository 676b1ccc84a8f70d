"""conv2d and pooling against direct numpy loops (the definitions), in float64 and fixed point."""

import numpy as np
import pytest
from graph_helpers import assert_exact_matches_scalar, assert_within_bound

from luminair.prover import Graph, Op, ShapeError
from luminair.prover import graph as G


def ref_conv2d(x, w, b, stride, pad, dilation, groups):
    (pt, pb), (pl, pr) = pad
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    n, c, h, wd = xp.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for ni in range(n):
        for oi in range(o):
            g = oi // og
            for i in range(oh):
                for j in range(ow):
                    acc = 0.0
                    for ci in range(cg):
                        for a in range(kh):
                            for bb in range(kw):
                                acc += xp[ni, g * cg + ci, i * sh + a * dh, j * sw + bb * dw] * w[oi, ci, a, bb]
                    out[ni, oi, i, j] = acc + (b[oi] if b is not None else 0.0)
    return out


def ref_pool(x, k, stride, pad, kind, count_include_pad=True):
    (pt, pb), (pl, pr) = pad
    n, c, h, w = x.shape
    oh = (h + pt + pb - k[0]) // stride[0] + 1
    ow = (w + pl + pr - k[1]) // stride[1] + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * stride[0] - pt, j * stride[1] - pl
            rows = [r for r in range(r0, r0 + k[0]) if 0 <= r < h]
            cols = [q for q in range(c0, c0 + k[1]) if 0 <= q < w]
            win = x[:, :, rows][:, :, :, cols]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                div = k[0] * k[1] if count_include_pad else len(rows) * len(cols)
                out[:, :, i, j] = win.sum(axis=(2, 3)) / div
    return out


CONV_CASES = [
    dict(x=(1, 2, 5, 5), w=(3, 2, 3, 3), stride=(1, 1), pad=((0, 0), (0, 0)), dilation=(1, 1), groups=1, bias=True),
    dict(x=(2, 3, 6, 7), w=(4, 3, 3, 2), stride=(2, 1), pad=((1, 1), (0, 2)), dilation=(1, 1), groups=1, bias=False),
    dict(x=(1, 4, 7, 7), w=(4, 2, 3, 3), stride=(2, 2), pad=((1, 0), (1, 1)), dilation=(1, 1), groups=2, bias=True),
    dict(x=(1, 2, 8, 8), w=(2, 1, 3, 3), stride=(1, 2), pad=((2, 2), (2, 2)), dilation=(2, 2), groups=2, bias=True),
    dict(x=(1, 1, 4, 4), w=(1, 1, 1, 1), stride=(3, 3), pad=((0, 0), (0, 0)), dilation=(1, 1), groups=1, bias=False),
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_matches_direct_loops(rng, case):
    xv = rng.uniform(-1, 1, case["x"])
    wv = rng.uniform(-0.5, 0.5, case["w"])
    bv = rng.uniform(-0.5, 0.5, case["w"][0]) if case["bias"] else None
    cx = Graph()
    x = cx.input("x", xv.shape)
    G.conv2d(x, wv, bv, stride=case["stride"], padding=case["pad"], dilation=case["dilation"],
             groups=case["groups"]).output("y")
    expected = ref_conv2d(xv, wv, bv, case["stride"], case["pad"], case["dilation"], case["groups"])
    np.testing.assert_allclose(cx.run({"x": xv})["y"], expected, rtol=1e-10, atol=1e-12)
    assert not any(n.op is Op.CONTIGUOUS for n in cx.nodes())  # windows are views
    assert_within_bound(cx, {"x": xv})


def test_conv2d_fixed_point_equals_the_scalar_spec(rng):
    xv = rng.uniform(-1, 1, (1, 2, 4, 4))
    wv = rng.uniform(-0.5, 0.5, (2, 2, 3, 3))
    cx = Graph()
    G.conv2d(cx.input("x", xv.shape), wv, np.array([0.25, -0.5]), stride=1, padding=1).output("y")
    assert_exact_matches_scalar(cx, {"x": xv})


POOL_CASES = [
    dict(k=(2, 2), stride=(2, 2), pad=((0, 0), (0, 0))),
    dict(k=(3, 3), stride=(1, 1), pad=((1, 1), (1, 1))),
    dict(k=(3, 2), stride=(2, 1), pad=((1, 0), (0, 1))),
    dict(k=(3, 3), stride=(2, 2), pad=((0, 1), (1, 0))),
]


@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool2d_matches_direct_loops_even_for_all_negative_windows(rng, case):
    xv = rng.uniform(-3, -0.5, (2, 3, 6, 5))  # all negative: zero padding would win the max
    cx = Graph()
    G.max_pool2d(cx.input("x", xv.shape), case["k"], case["stride"], case["pad"]).output("y")
    expected = ref_pool(xv, case["k"], case["stride"], case["pad"], "max")
    np.testing.assert_array_equal(cx.run({"x": xv})["y"], expected)
    assert_within_bound(cx, {"x": xv})


@pytest.mark.parametrize("case", POOL_CASES)
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool2d_matches_direct_loops(rng, case, count_include_pad):
    xv = rng.uniform(-2, 2, (1, 2, 6, 5))
    cx = Graph()
    G.avg_pool2d(cx.input("x", xv.shape), case["k"], case["stride"], case["pad"], count_include_pad).output("y")
    expected = ref_pool(xv, case["k"], case["stride"], case["pad"], "avg", count_include_pad)
    np.testing.assert_allclose(cx.run({"x": xv})["y"], expected, rtol=1e-12)
    assert_within_bound(cx, {"x": xv})


def test_pool_and_conv_shape_errors_name_the_op():
    cx = Graph()
    x = cx.input("x", (1, 2, 4, 4))
    with pytest.raises(ShapeError, match=r"conv2d: weight \(3, 3, 3, 3\) expects 3 input channels, input \(1, 2, 4, 4\) has 2"):
        G.conv2d(x, np.zeros((3, 3, 3, 3)))
    with pytest.raises(ShapeError, match="max_pool2d: kernel of span 5 is larger"):
        G.max_pool2d(x, 5)
    with pytest.raises(ShapeError, match=r"input must be \(N, C, H, W\)"):
        G.avg_pool2d(cx.input("v", (4, 4)), 2)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2), dict(groups=2), dict(k=1, pad=0), dict(stride=3, k=2, pad=0)],
                         ids=["3x3", "stride2", "groups2", "1x1", "pool-like"])
def test_a_conv_past_the_format_caps_is_split_into_pieces_that_compute_every_element_as_unsplit(monkeypatch, kw):
    """With the caps lowered, a conv is built in bands of output rows and chunks of channels (hl_conv
    reads MAX_WINDOW_COPY and spec.MAX_VIEW_NUMEL): after compiling, every raw output equals the
    unsplit conv's, and every node stays within the (lowered) caps."""
    import luminair.prover.graph.hl_conv as hc
    from luminair.prover import GenericCompiler, StwoCompiler

    k, pad, groups, stride = kw.get("k", 3), kw.get("pad", 1), kw.get("groups", 1), kw.get("stride", 1)
    rng = np.random.default_rng(5)
    w, b = rng.uniform(-0.5, 0.5, (6, 4 // groups, k, k)), rng.uniform(-0.5, 0.5, 6)
    x = rng.uniform(-1, 1, (1, 4, 9, 7))

    def build() -> Graph:
        g = Graph()
        G.conv(g.input("x", (1, 4, 9, 7)), g.constant(w, "w"), g.constant(b, "b"), stride=stride, padding=pad,
               groups=groups).output("y")
        g.compile(GenericCompiler(), StwoCompiler(search=False))
        return g

    whole = build()
    monkeypatch.setattr(hc, "MAX_WINDOW_COPY", 300)
    monkeypatch.setattr(hc, "MAX_VIEW_NUMEL", 400)
    split = build()
    assert len(split) > len(whole)
    np.testing.assert_array_equal(split.run({"x": x}, exact=True)["y"], whole.run({"x": x}, exact=True)["y"])
    dots = [n for n in split.nodes() if n.op == Op.DOT]
    assert len(dots) > 1 and all(v.numel <= 400 for n in dots for _, v in n.srcs)
    assert all(n.numel <= 300 for n in split.nodes() if n.op == Op.CONTIGUOUS)
    np.testing.assert_allclose(split.run({"x": x})["y"], ref_conv2d(x, w, b, (stride,) * 2, ((pad, pad),) * 2, (1, 1),
                                                                   groups), atol=1e-9)


@pytest.mark.parametrize("kw", [dict(k=3, stride=2), dict(k=2, stride=2), dict(k=3, stride=1, pad=1), dict(k=3, stride=2, ceil=True)],
                         ids=["3s2", "2s2", "3s1pad", "ceil"])
def test_a_max_pool_past_the_window_copy_cap_is_computed_in_bands_of_output_rows(monkeypatch, kw):
    """Windows whose copy would pass MAX_WINDOW_COPY elements (a verifier's per-trace topology
    bound) are pooled in bands of output rows: the same raw outputs, every copy within the cap."""
    import luminair.prover.graph.hl_conv as hc
    from luminair.prover import GenericCompiler, StwoCompiler

    x = np.random.default_rng(8).uniform(-1, 1, (1, 3, 11, 9))

    def build() -> Graph:
        g = Graph()
        G.max_pool(g.input("x", (1, 3, 11, 9)), kw["k"], kw["stride"], kw.get("pad", 0),
                   ceil_mode=kw.get("ceil", False)).output("y")
        g.compile(GenericCompiler(), StwoCompiler(search=False))
        return g

    whole = build()
    out = whole.outputs()["y"][0].shape
    cap = int(np.prod(out)) * kw["k"] ** 2 // 3  # (the windows in about three bands)
    monkeypatch.setattr(hc, "MAX_WINDOW_COPY", cap)
    split = build()
    assert len([n for n in split.nodes() if n.op == Op.MAX_REDUCE]) >= 3 > len([n for n in whole.nodes() if n.op == Op.MAX_REDUCE])
    assert all(n.numel <= cap for n in split.nodes() if n.op == Op.CONTIGUOUS)
    np.testing.assert_array_equal(split.run({"x": x}, exact=True)["y"], whole.run({"x": x}, exact=True)["y"])
    assert split.outputs()["y"][0].shape == whole.outputs()["y"][0].shape
