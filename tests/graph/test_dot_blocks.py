"""A Dot whose view passes DOT_BLOCK elements is evaluated in blocks of the view (no view-sized
temporaries): the same values as the whole, in both executors, and a block's domain error names
the element of the whole output."""

import numpy as np
import pytest
from luminair.prover import Graph
from luminair.prover.graph import execute
from luminair.prover.graph.errors import BoundsError


def _conv_graph(rng: np.random.Generator) -> tuple[Graph, dict]:
    g = Graph(scale_bits=8)
    x = g.input("x", (1, 6, 9, 9))
    w = g.constant(rng.uniform(-0.3, 0.3, (10, 6, 3, 3)), "w")
    b = g.constant(rng.uniform(-0.5, 0.5, (10,)), "b")
    x.conv2d(w, b, padding=1).output("y")
    from luminair.prover import GenericCompiler, StwoCompiler

    g.compile(GenericCompiler(), StwoCompiler())
    return g, {"x": rng.uniform(-1, 1, (1, 6, 9, 9))}


def test_a_blocked_dot_equals_the_whole(monkeypatch):
    g, inputs = _conv_graph(np.random.default_rng(3))
    whole_exact, whole_float = g.execute_exact(inputs), g.run(inputs)
    monkeypatch.setattr(execute, "DOT_BLOCK", 7)  # every Dot in many blocks (some uneven)
    g.forget_runs()
    blocked_exact, blocked_float = g.execute_exact(inputs), g.run(inputs)
    assert whole_exact.keys() == blocked_exact.keys()
    for k in whole_exact:
        np.testing.assert_array_equal(np.asarray(whole_exact[k]), np.asarray(blocked_exact[k]))
    for k in whole_float:
        np.testing.assert_array_equal(np.asarray(whole_float[k]), np.asarray(blocked_float[k]))


def test_a_blocked_dot_names_the_element_of_the_whole_output(monkeypatch):
    g = Graph(scale_bits=12)
    x = g.input("x", (4, 64))
    w = g.constant(np.full((64, 3), 7.9), "w")
    (x @ w).output("y")
    from luminair.prover import GenericCompiler, StwoCompiler

    g.compile(GenericCompiler(), StwoCompiler())
    data = np.zeros((4, 64))
    data[2] = 7.9  # row 2's sums leave the accumulator range: output element 6 first
    messages = []
    for block in (1 << 22, 5):
        monkeypatch.setattr(execute, "DOT_BLOCK", block)
        g.forget_runs()
        with pytest.raises(BoundsError) as e:
            g.execute_exact({"x": data})
        messages.append(str(e.value))
    assert messages[0] == messages[1] and "element 6" in messages[0]
