"""Clear errors: shape mismatches at the user's line, wrong inputs when running, fixed-point
overflow and op domain errors naming the node, the element and the value."""

import re

import numpy as np
import pytest

from luminair.prover import BoundsError, Graph, GraphError, InputError, ShapeError
from luminair.prover import graph as G
from luminair.verifier.numeric import NumericError, NumericFormat


def test_shape_mismatch_names_the_op_both_shapes_and_the_users_line():
    cx = Graph()
    a = cx.input("a", (2, 3))
    b = cx.input("b", (4,))
    with pytest.raises(ShapeError) as e:
        a + b  # the line the error must point at
    msg = str(e.value)
    assert msg.startswith("add: shapes (2, 3) and (4,) cannot be broadcast together")
    assert "test_graph_errors.py:" in msg and "a + b  # the line the error must point at" in msg


def test_matmul_mismatch_inside_a_high_level_op_points_at_the_user_call():
    cx = Graph()
    x = cx.input("x", (2, 3))
    w = np.zeros((4, 5))
    with pytest.raises(ShapeError) as e:
        G.linear(x, w)
    msg = str(e.value)
    assert re.match(r"linear > matmul: inner dimensions differ: \(2, 3\) @ \(5, 4\) \(3 != 5\)", msg)
    assert "G.linear(x, w)" in msg


@pytest.mark.parametrize(
    "build, pattern",
    [
        (lambda x: x.reshape(5, 5), r"reshape: cannot reshape \(2, 3\) \(6 elements\) to \(5, 5\)"),
        (lambda x: x.sum_reduce(2), r"sum_reduce: axis 2 is out of range for a tensor with 2 axes"),
        (lambda x: x.broadcast_to((4, 3)), r"broadcast: cannot broadcast \(2, 3\) to \(4, 3\)"),
        (lambda x: G.concat([x, x.T], 0), r"concat: shapes must match except on axis 0: \(2, 3\), \(3, 2\)"),
        (lambda x: x[2], r"index: index 2 is out of range for axis 0 of size 2"),
        (lambda x: x.permute(0, 0), r"permute: .*not a permutation"),
        (lambda x: G.softmax(x, 3), r"softmax: axis 3 is out of range"),
        (lambda x: G.gather(x, [0, 3], 0), r"gather: indices \[0, 3\] out of range for axis 0 of size 2"),
    ],
)
def test_shape_errors_are_raised_when_the_graph_is_built(build, pattern):
    cx = Graph()
    x = cx.input("x", (2, 3))
    with pytest.raises(ShapeError, match=pattern):
        build(x)


def test_run_rejects_unknown_missing_and_misshaped_inputs():
    cx = Graph()
    x = cx.input("x", (1, 4))
    y = cx.input("y", (2,))
    (x.sum() + y.sum()).output("z")
    ok = {"x": np.zeros((1, 4)), "y": np.zeros(2)}
    with pytest.raises(InputError, match=r"unknown input name\(s\) 'q'; the graph's inputs are 'x', 'y'"):
        cx.run({**ok, "q": np.zeros(1)})
    with pytest.raises(InputError, match=r"missing input\(s\) 'y' \(expected shapes: 'y': \(2,\)\)"):
        cx.run({"x": ok["x"]})
    with pytest.raises(InputError, match=r"input 'x': expected shape \(1, 4\), got \(4,\)"):
        cx.run({**ok, "x": np.zeros(4)})
    with pytest.raises(InputError, match="must be a dict"):
        cx.run([ok["x"], ok["y"]])
    with pytest.raises(GraphError, match="cannot read"):
        cx.run({**ok, "x": [["a", "b", "c", "d"]]})
    assert cx.run(ok)["z"] == 0.0


def test_overflow_names_the_node_element_value_and_a_remedy():
    cx = Graph()
    x = cx.input("x", (2, 3))
    w = cx.constant(np.full((3, 2), 4.0), "w")
    (x @ w).output("y")  # 3 * 3 * 4 = 36 > 32
    xv = np.array([[0.5, 0.5, 0.5], [3.0, 3.0, 3.0]])
    assert np.allclose(cx.run({"x": xv})["y"], xv @ np.full((3, 2), 4.0))  # float has no range
    with pytest.raises(BoundsError) as e:
        cx.run({"x": xv}, exact=True)
    msg = str(e.value)
    assert "SumReduce node" in msg and "matmul at" in msg and "(x @ w).output" in msg
    assert "raw value 36864 (= 36) at element 2 (index (1, 0))" in msg
    assert "outside the 16-bit range [-32768, 32767]" in msg
    assert "Remedy: use a smaller scale, e.g. Graph(scale_bits=9) (range +-64)" in msg
    assert isinstance(e.value, NumericError)
    cx.numeric_format = NumericFormat(9)  # the remedy works
    np.testing.assert_allclose(cx.run({"x": xv}, exact=True)["y"], xv @ np.full((3, 2), 4.0), atol=0.02)


def test_input_and_constant_quantization_overflow_are_named():
    cx = Graph()
    x = cx.input("pixels", (3,))
    c = cx.constant(np.array([1.0, 100.0]), "big")
    x.output("a")
    c.output("b")
    with pytest.raises(BoundsError, match=r"Input node 0 'pixels' .*\(quantized\): raw value -40960 \(= -40\) at element 1"):
        cx.run({"pixels": np.array([0.0, -40.0, 1.0])}, exact=True)
    with pytest.raises(BoundsError, match=r"Constant node 1 'big' .*raw value 102400 \(= 100\) at element 1"):
        cx.run({"pixels": np.zeros(3)}, exact=True)
    with pytest.raises(BoundsError, match=r"'pixels'.*nan at element 2 is not a finite number"):
        cx.run({"pixels": np.array([0.0, 1.0, np.nan])}, exact=True)


@pytest.mark.parametrize(
    "build, value, pattern",
    [
        (lambda x: x.recip(), [1.0, 0.0, 2.0], r"Recip node 1 .*: reciprocal of zero: input raw value 0 \(= 0\) at element 1\. Remedy: keep the divisor"),
        (lambda x: x.sqrt(), [1.0, 2.0, -0.5], r"Sqrt node 1 .*square root of a negative value: input raw value -512 \(= -0.5\) at element 2\. Remedy: clamp"),
        (lambda x: x.log2(), [0.0, 1.0, 2.0], r"Log2 node 1 .*log2 input outside its table domain \[1, 32767\].*raw value 0 \(= 0\) at element 0\. Remedy: log2 needs a positive input"),
        (lambda x: x.exp2(), [1.0, 5.5, 2.0], r"Exp2 node 1 .*exp2 input outside its table domain \[-32768, 5119\].*raw value 5632 \(= 5.5\) at element 1\. Remedy: its result would leave"),
        (lambda x: x % (x * 0.0), [1.0, 1.0, 1.0], r"Mod node 3 .*modulo by zero.*Remedy"),
    ],
)
def test_domain_errors_name_the_node_the_element_and_the_value(build, value, pattern):
    cx = Graph()
    x = cx.input("x", (3,))
    build(x).output("y")
    with pytest.raises(BoundsError, match=pattern):
        cx.run({"x": np.array(value)}, exact=True)


def test_domain_error_inside_a_high_level_op_names_it_and_the_user_line():
    cx = Graph()
    x = cx.input("x", (2,))
    G.layer_norm(x, eps=0.0).output("y")  # constant rows have zero variance
    with pytest.raises(BoundsError) as e:
        cx.run({"x": np.array([1.0, 1.0])}, exact=True)
    assert "Recip node" in str(e.value) and "layer_norm at" in str(e.value) and "G.layer_norm(x, eps=0.0)" in str(e.value)


def test_named_values_appear_in_errors():
    cx = Graph()
    x = cx.input("x", (2,))
    h = (x * 20.0).named("scaled")
    h.output("y")
    with pytest.raises(BoundsError, match=r"Mul node 2 'scaled'"):
        cx.run({"x": np.array([1.0, 2.0])}, exact=True)


def test_bad_constants_and_graph_misuse():
    cx = Graph()
    with pytest.raises(GraphError, match="must be finite"):
        cx.constant([1.0, np.inf], "w")
    x = cx.input("x", (2,))
    with pytest.raises(GraphError, match="already exists"):
        cx.input("x", (3,))
    with pytest.raises(GraphError, match="no value until the graph runs"):
        if x < 1.0:
            pass
    other = Graph().input("y", (2,))
    with pytest.raises(GraphError, match="two different graphs"):
        x + other
    x.output("out")
    with pytest.raises(GraphError, match="output named 'out' already exists"):
        x.output("out")
    with pytest.raises(GraphError, match="either numeric_format or scale_bits"):
        Graph(NumericFormat(8), scale_bits=8)
    with pytest.raises(NumericError):
        Graph(scale_bits=2)
