"""The window view step (axis -> (o, k), element [t, j] reading [t stride + j dilation]): the
prover's ShapeTracker, the verifier's index replay and its affine form agree; convolutions read
their windows through it, so a padded input is copied once and the windows (im2col) once."""

import itertools

import numpy as np
import pytest

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover import graph as G
from luminair.prover.graph.shape import ShapeTracker
from luminair.verifier.graph.spec import view_shape
from luminair.verifier.graph.topology import affine_view

from proving_helpers import check, component_index, forge, prove_exact
from reference_views import view_indices


def _affine_addresses(src_shape, steps):
    """Every element's source address from the verifier's affine form (-1 where masked)."""
    v = affine_view(src_shape, steps)
    out = []
    for digits in itertools.product(*(range(d) for d in v.sizes)):
        ok = all(lo <= x < hi for x, (lo, hi) in zip(digits, v.masks))
        out.append(v.offset + sum(x * s for x, s in zip(digits, v.strides)) if ok else -1)
    return out


@pytest.mark.parametrize("n,k,stride,dilation", [(7, 3, 1, 1), (7, 3, 2, 1), (9, 2, 3, 2), (5, 5, 1, 1), (6, 1, 4, 1)])
def test_window_indices_agree_between_prover_and_verifier(n, k, stride, dilation):
    st = ShapeTracker((2, n, 3)).window(1, k, stride, dilation).permute((0, 3, 1, 2))
    o = (n - dilation * (k - 1) - 1) // stride + 1
    assert st.shape == view_shape((2, n, 3), st.steps) == (2, 3, o, k)
    idx = st.src_indices()
    assert list(idx) == view_indices((2, n, 3), st.steps) == _affine_addresses((2, n, 3), st.steps)
    x = np.arange(2 * n * 3).reshape(2, n, 3)
    ref = np.stack([x[:, t * stride + np.arange(k) * dilation, :] for t in range(o)], axis=1)  # (2, o, k, 3)
    np.testing.assert_array_equal(idx.reshape(st.shape), ref.transpose(0, 3, 1, 2))


def test_bad_window_steps_are_refused():
    for arg in [(3, 1, 1, 1), (1, 8, 1, 1), (1, 0, 1, 1), (1, 2, 0, 1), (1, 4, 1, 3), (1, 2, 1)]:
        with pytest.raises(ValueError, match="window"):
            view_shape((2, 7, 3), (("window", arg),))
    with pytest.raises(ValueError, match="at most 24 axes"):  # size-1 windows add axes for free
        view_shape((2,), (("window", (0, 1, 1, 1)),) * 30)


def _conv_graph():
    rng = np.random.default_rng(3)
    cx = Graph()
    x = cx.input("x", (1, 2, 8, 8))
    G.conv2d(x, cx.constant(rng.uniform(-0.5, 0.5, (4, 2, 3, 3)), "k"), padding=1).relu().output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    return cx, {"x": rng.uniform(-1, 1, (1, 2, 8, 8))}


@pytest.fixture(scope="module")
def conv_case():
    cx, feed = _conv_graph()
    settings, trace = prove_exact(cx, feed, ("y",))
    return cx, settings, trace


def test_a_padded_convolution_copies_its_input_once_and_its_windows_once(conv_case):
    _, settings, _ = conv_case
    copies = [n for n in settings.spec.nodes if n.op == "Contiguous"]
    assert len(copies) == 2, [n.srcs[0][2] for n in copies]
    pad, im2col = copies
    assert [k for k, _ in pad.srcs[0][2]] == ["pad"]
    assert [k for k, _ in im2col.srcs[0][2]][:2] == ["window", "window"]
    assert im2col.shape[-2:] == (8, 8)  # laid out (C/G, kh, kw, oh, ow): its reads run along ow


def test_a_window_copy_holding_another_value_is_rejected(conv_case):
    """One im2col row (an interior element of the input, not padding) holds its value plus one:
    the copy no longer reads what the windows of the padded input hold."""
    cx, settings, trace = conv_case
    k = component_index(settings, "Contiguous")
    im2col = next(i for i, n in enumerate(settings.spec.nodes) if n.op == "Contiguous" and n.srcs[0][2][0][0] == "window")
    (seg,) = [s for s in settings.plans[k].segments if s.node == im2col]

    def tamper(main):
        row = seg.start + 4 * 8 + 4  # (c, kh, kw) = (0, 0, 0), (oh, ow) = (4, 4): x[0, 0, 3, 3]
        main[k]["v"][row] += 1

    r = check(settings, forge(cx, trace, settings, tamper))
    assert not r.success and r.check in ("LogUp sum", "OODS mismatch"), r.error_message
