"""Every supported ONNX op in a one-node (or few-node) model: same outputs as onnxruntime in float,
and within the derived error bound in fixed point."""

import zlib

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx_helpers import check_against_ort, make_model

from luminair.prover import Op
from luminair.prover.onnx import SUPPORTED_OPS
from luminair.prover.onnx.table import OPS

N = helper.make_node


def case(nodes, inputs, outputs, inits=None, opset=13, gens=None):
    return dict(nodes=nodes, inputs=inputs, outputs=outputs, inits=inits or {}, opset=opset, gens=gens or {})


R = np.random.default_rng(5)
W = R.uniform(-0.5, 0.5, (4, 3)).astype(np.float32)
B3 = R.uniform(-0.5, 0.5, 3).astype(np.float32)
POS = {"x": lambda r, s: r.uniform(0.2, 4, s)}

CASES = {
    "Gemm": case([N("Gemm", ["x", "W", "b"], ["y"], alpha=0.5, beta=2.0, transB=1)], {"x": [2, 3]}, {"y": [2, 4]},
                 {"W": W, "b": B3[:1].repeat(4)}),
    "Gemm_transA": case([N("Gemm", ["x", "W"], ["y"], transA=1)], {"x": [4, 2]}, {"y": [2, 3]}, {"W": W}),
    "MatMul_batched": case([N("MatMul", ["x", "W"], ["y"])], {"x": [2, 5, 4]}, {"y": [2, 5, 3]}, {"W": W}),
    "Add": case([N("Add", ["x", "b"], ["y"])], {"x": [2, 3]}, {"y": [2, 3]}, {"b": B3}),
    "Sub": case([N("Sub", ["b", "x"], ["y"])], {"x": [2, 3]}, {"y": [2, 3]}, {"b": B3}),
    "Mul": case([N("Mul", ["x", "x2"], ["y"])], {"x": [2, 3], "x2": [1, 3]}, {"y": [2, 3]}),
    "Div_tensor": case([N("Div", ["x", "d"], ["y"])], {"x": [2, 3], "d": [3]}, {"y": [2, 3]},
                       gens={"d": lambda r, s: r.uniform(0.5, 3, s)}),
    "Div_const": case([N("Div", ["x", "c"], ["y"])], {"x": [2, 3]}, {"y": [2, 3]}, {"c": np.array(7.0, np.float32)}),
    "Relu": case([N("Relu", ["x"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}),
    "LeakyRelu": case([N("LeakyRelu", ["x"], ["y"], alpha=0.2)], {"x": [3, 4]}, {"y": [3, 4]}),
    "Sigmoid": case([N("Sigmoid", ["x"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}),
    "Tanh": case([N("Tanh", ["x"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}),
    "Softmax_13": case([N("Softmax", ["x"], ["y"], axis=1)], {"x": [2, 3, 4]}, {"y": [2, 3, 4]}),
    "Softmax_11_coerced": case([N("Softmax", ["x"], ["y"], axis=1)], {"x": [2, 3, 2]}, {"y": [2, 3, 2]}, opset=11),
    "Exp": case([N("Exp", ["x"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}),
    "Log": case([N("Log", ["x"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}, gens=POS),
    "Sqrt": case([N("Sqrt", ["x"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}, gens=POS),
    "Reciprocal": case([N("Reciprocal", ["x"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}, gens=POS),
    "Pow": case([N("Pow", ["x", "e"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}, {"e": np.array(3.0, np.float32)}),
    "Neg": case([N("Neg", ["x"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}),
    "Abs": case([N("Abs", ["x"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]}),
    "Conv": case([N("Conv", ["x", "w", "b"], ["y"], pads=[1, 0, 1, 2], strides=[2, 1], group=2, dilations=[1, 1])],
                 {"x": [1, 4, 6, 5]}, {"y": [1, 2, 3, 6]},
                 {"w": R.uniform(-0.5, 0.5, (2, 2, 3, 2)).astype(np.float32), "b": B3[:2]}),
    "Conv_same_upper": case([N("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])],
                            {"x": [1, 1, 5, 6]}, {"y": [1, 2, 3, 3]}, {"w": R.uniform(-0.5, 0.5, (2, 1, 2, 2)).astype(np.float32)}),
    "Conv_dilated": case([N("Conv", ["x", "w"], ["y"], dilations=[2, 2])],
                         {"x": [1, 1, 6, 6]}, {"y": [1, 1, 2, 2]}, {"w": R.uniform(-0.5, 0.5, (1, 1, 3, 3)).astype(np.float32)}),
    "MaxPool": case([N("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
                    {"x": [1, 2, 5, 5]}, {"y": [1, 2, 3, 3]}, gens={"x": lambda r, s: r.uniform(-3, -1, s)}),
    "AveragePool": case([N("AveragePool", ["x"], ["y"], kernel_shape=[2, 3], pads=[1, 1, 0, 1])],
                        {"x": [1, 2, 4, 5]}, {"y": [1, 2, 4, 5]}),
    "AveragePool_include_pad": case([N("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                       count_include_pad=1, strides=[2, 2])],
                                    {"x": [1, 1, 5, 5]}, {"y": [1, 1, 3, 3]}),
    "GlobalAveragePool": case([N("GlobalAveragePool", ["x"], ["y"])], {"x": [2, 3, 4, 4]}, {"y": [2, 3, 1, 1]}),
    "Flatten": case([N("Flatten", ["x"], ["y"], axis=2)], {"x": [2, 3, 4]}, {"y": [6, 4]}),
    "Reshape": case([N("Reshape", ["x", "s"], ["y"])], {"x": [2, 3, 4]}, {"y": [2, 4, 3]},
                    {"s": np.array([0, -1, 3], np.int64)}),
    "Transpose": case([N("Transpose", ["x"], ["y"], perm=[2, 0, 1])], {"x": [2, 3, 4]}, {"y": [4, 2, 3]}),
    "Concat": case([N("Concat", ["x", "b2", "x"], ["y"], axis=1)], {"x": [2, 3]}, {"y": [2, 9]},
                   {"b2": R.uniform(-1, 1, (2, 3)).astype(np.float32)}),
    "Squeeze_13": case([N("Squeeze", ["x", "a"], ["y"])], {"x": [2, 1, 3, 1]}, {"y": [2, 3, 1]}, {"a": np.array([1], np.int64)}),
    "Squeeze_11_attr": case([N("Squeeze", ["x"], ["y"], axes=[1, 3])], {"x": [2, 1, 3, 1]}, {"y": [2, 3]}, opset=11),
    "Unsqueeze_13": case([N("Unsqueeze", ["x", "a"], ["y"])], {"x": [2, 3]}, {"y": [1, 2, 3, 1]},
                         {"a": np.array([0, -1], np.int64)}),
    "Unsqueeze_11_attr": case([N("Unsqueeze", ["x"], ["y"], axes=[1])], {"x": [2, 3]}, {"y": [2, 1, 3]}, opset=11),
    "ReduceSum": case([N("ReduceSum", ["x", "a"], ["y"], keepdims=0)], {"x": [2, 3, 4]}, {"y": [3]},
                      {"a": np.array([0, 2], np.int64)}),
    "ReduceMean_13_attr": case([N("ReduceMean", ["x"], ["y"], axes=[-1])], {"x": [2, 3, 4]}, {"y": [2, 3, 1]}),
    "ReduceMean_18_input": case([N("ReduceMean", ["x", "a"], ["y"])], {"x": [2, 3, 4]}, {"y": [1, 3, 1]},
                                {"a": np.array([0, 2], np.int64)}, opset=18),
    "ReduceMax": case([N("ReduceMax", ["x"], ["y"], axes=[1], keepdims=0)], {"x": [2, 3, 4]}, {"y": [2, 4]}),
    "Gather": case([N("Gather", ["x", "i"], ["y"], axis=1)], {"x": [2, 5]}, {"y": [2, 2, 2]},
                   {"i": np.array([[4, 0], [1, -1]], np.int64)}),
    "Gather_embedding": case([N("Gather", ["E", "i"], ["e"]), N("Add", ["e", "x"], ["y"])], {"x": [3, 4]},
                             {"y": [3, 4]}, {"E": R.uniform(-1, 1, (6, 4)).astype(np.float32),
                                             "i": np.array([5, 0, 5], np.int64)}),
    "Identity": case([N("Identity", ["x"], ["y"])], {"x": [3]}, {"y": [3]}),
    "Constant": case([N("Constant", [], ["c"], value=helper.make_tensor("v", 1, [3], [0.5, -1.0, 2.0])),
                      N("Mul", ["x", "c"], ["y"])], {"x": [2, 3]}, {"y": [2, 3]}),
    "BatchNormalization": case([N("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-3)],
                               {"x": [2, 3, 2, 2]}, {"y": [2, 3, 2, 2]},
                               {"s": np.array([0.5, 1.5, -1.0], np.float32), "b": B3,
                                "m": np.array([0.1, -0.2, 0.0], np.float32), "v": np.array([0.8, 1.2, 0.05], np.float32)}),
    "Clip_11": case([N("Clip", ["x", "lo", "hi"], ["y"])], {"x": [3, 4]}, {"y": [3, 4]},
                    {"lo": np.array(-0.5, np.float32), "hi": np.array(0.75, np.float32)}, opset=11),
    "Clip_6_attr": case([N("Clip", ["x"], ["y"], min=-0.25)], {"x": [3, 4]}, {"y": [3, 4]}, opset=6),
    "Shape_Reshape_chain": case([N("Shape", ["x"], ["s"]), N("Gather", ["s", "zero"], ["n"]),
                                 N("Unsqueeze", ["n", "ax"], ["n1"]), N("Concat", ["n1", "m1"], ["shape"], axis=0),
                                 N("Reshape", ["x", "shape"], ["y"])],
                                {"x": [2, 3, 4]}, {"y": [2, 12]},
                                {"zero": np.array(0, np.int64), "ax": np.array([0], np.int64), "m1": np.array([-1], np.int64)}),
    # transformer ops (issue 9): the nanoGPT-like export in examples/make_models.py uses each of them
    "Slice": case([N("Slice", ["x", "st", "en", "ax", "sp"], ["y"])], {"x": [3, 6, 5]}, {"y": [3, 2, 4]},
                  {"st": np.array([1, -4], np.int64), "en": np.array([2**62, 5], np.int64),
                   "ax": np.array([-2, 2], np.int64), "sp": np.array([3, 1], np.int64)}),
    "Slice_static_mask": case([N("Slice", ["tri", "z", "t"], ["tt"]), N("Equal", ["tt", "zero"], ["m"]),
                               N("Where", ["m", "x", "b"], ["y"])],
                              {"x": [3, 3]}, {"y": [3, 3]},
                              {"tri": np.tril(np.ones((5, 5), np.float32)), "z": np.array([0, 0], np.int64),
                               "t": np.array([3, 3], np.int64), "zero": np.array(0.0, np.float32),
                               "b": R.uniform(-1, 1, (1, 3)).astype(np.float32)}),
    "Split_13_sizes": case([N("Split", ["x", "s"], ["a", "b"], axis=2), N("Mul", ["a", "b"], ["y"])],
                           {"x": [1, 3, 8]}, {"y": [1, 3, 4]}, {"s": np.array([4, 4], np.int64)}),
    "Split_11_attr": case([N("Split", ["x"], ["a", "b"], axis=1, split=[1, 2])],
                          {"x": [2, 3]}, {"a": [2, 1], "b": [2, 2]}, opset=11),
    "Split_18_num_outputs": case([N("Split", ["x"], ["a", "b", "c"], axis=0, num_outputs=3)],
                                 {"x": [7, 2]}, {"a": [3, 2], "b": [3, 2], "c": [1, 2]}, opset=18),
    "Equal_Where_computed": case([N("Equal", ["x", "h"], ["m"]), N("Where", ["m", "h", "x"], ["y"])],
                                 {"x": [3, 4], "h": [3, 4]}, {"y": [3, 4]},
                                 gens={"x": lambda r, s: r.integers(-2, 3, s).astype(float),
                                       "h": lambda r, s: r.integers(-2, 3, s).astype(float)}),
    "Where_causal_neg_inf_softmax": case(
        [N("Where", ["m", "ninf", "x"], ["s"]), N("Softmax", ["s"], ["y"], axis=-1)],
        {"x": [2, 4, 4]}, {"y": [2, 4, 4]},
        {"m": np.triu(np.ones((4, 4), bool), 1), "ninf": np.array(-np.inf, np.float32)}),
    "LayerNormalization_17": case([N("LayerNormalization", ["x", "g", "b"], ["y"], epsilon=1e-5)],
                                  {"x": [2, 3, 64]}, {"y": [2, 3, 64]},
                                  {"g": R.uniform(0.5, 1.5, 64).astype(np.float32),
                                   "b": R.uniform(-0.5, 0.5, 64).astype(np.float32)}, opset=17,
                                  gens={"x": lambda r, s: r.normal(0.5, 1.5, s)}),
    "LayerNormalization_axis": case([N("LayerNormalization", ["x", "g"], ["y"], axis=1, epsilon=1e-3)],
                                    {"x": [2, 3, 5]}, {"y": [2, 3, 5]},
                                    {"g": R.uniform(0.5, 1.5, (3, 5)).astype(np.float32)}, opset=17),
    "Erf": case([N("Erf", ["x"], ["y"])], {"x": [4, 16]}, {"y": [4, 16]},
                gens={"x": lambda r, s: r.uniform(-6, 6, s)}),
    "Erf_gelu_pattern": case([N("Div", ["x", "r2"], ["u"]), N("Erf", ["u"], ["e"]), N("Add", ["e", "one"], ["e1"]),
                              N("Mul", ["x", "e1"], ["p"]), N("Mul", ["p", "half"], ["y"])],
                             {"x": [4, 16]}, {"y": [4, 16]},
                             {"r2": np.array(1.4142135, np.float32), "one": np.array(1.0, np.float32),
                              "half": np.array(0.5, np.float32)}, opset=17,
                             gens={"x": lambda r, s: r.uniform(-4, 4, s)}),
    "Gelu_20_none": case([N("Gelu", ["x"], ["y"])], {"x": [4, 8]}, {"y": [4, 8]}, opset=20),
    "Gelu_20_tanh": case([N("Gelu", ["x"], ["y"], approximate="tanh")], {"x": [4, 8]}, {"y": [4, 8]}, opset=20),
}

TP = onnx.TensorProto
NEG = {"x": lambda r, s: r.uniform(-3, 3, s)}
# issue 26: the ops ONNX's backend suite and the model zoo need (each also in tests/onnx/test_onnx_backend_suite.py)
CASES.update({
    "Conv_1d": case([N("Conv", ["x", "w", "b"], ["y"], pads=[1, 2], strides=[2], dilations=[2], group=2)],
                    {"x": [2, 4, 11]}, {"y": [2, 6, 5]},
                    {"w": R.uniform(-0.5, 0.5, (6, 2, 3)).astype(np.float32), "b": R.uniform(-0.2, 0.2, 6).astype(np.float32)}),
    "Conv_3d": case([N("Conv", ["x", "w"], ["y"], pads=[1, 0, 1, 0, 1, 1], strides=[1, 2, 1])],
                    {"x": [1, 2, 4, 5, 4]}, {"y": [1, 3, 3, 2, 5]}, {"w": R.uniform(-0.4, 0.4, (3, 2, 3, 2, 2)).astype(np.float32)}),
    "ConvTranspose_2d": case([N("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 3], pads=[1, 0, 0, 1],
                                output_padding=[1, 0], group=2)],
                             {"x": [1, 4, 3, 4]}, {"y": [1, 6, 7, 10]},
                             {"w": R.uniform(-0.5, 0.5, (4, 3, 3, 3)).astype(np.float32), "b": R.uniform(-0.2, 0.2, 6).astype(np.float32)}),
    "ConvTranspose_weight_input_1d": case([N("ConvTranspose", ["x", "w"], ["y"], strides=[2], dilations=[2])],
                                          {"x": [2, 3, 5], "w": [3, 2, 3]}, {"y": [2, 2, 13]}),
    "ConvTranspose_output_shape": case([N("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], output_shape=[8, 9])],
                                       {"x": [1, 2, 4, 4]}, {"y": [1, 1, 8, 9]},
                                       {"w": R.uniform(-0.5, 0.5, (2, 1, 3, 3)).astype(np.float32)}),
    "MaxPool_1d_ceil": case([N("MaxPool", ["x"], ["y"], kernel_shape=[3], strides=[2], ceil_mode=1)],
                            {"x": [2, 3, 8]}, {"y": [2, 3, 4]}, gens=NEG),
    "MaxPool_2d_dilated_padded": case([N("MaxPool", ["x"], ["y"], kernel_shape=[3, 2], strides=[2, 1],
                                         pads=[2, 1, 2, 1], dilations=[2, 3])],
                                      {"x": [1, 2, 7, 6]}, {"y": [1, 2, 5, 5]},
                                      gens={"x": lambda r, s: r.uniform(-3, -1, s)}),
    "MaxPool_3d": case([N("MaxPool", ["x"], ["y"], kernel_shape=[2, 2, 2], strides=[2, 2, 2], pads=[1, 1, 1, 1, 1, 1])],
                       {"x": [1, 2, 5, 5, 5]}, {"y": [1, 2, 3, 3, 3]}, gens=NEG),
    "AveragePool_1d": case([N("AveragePool", ["x"], ["y"], kernel_shape=[3], pads=[1, 1])],
                           {"x": [1, 2, 6]}, {"y": [1, 2, 6]}),
    "AveragePool_3d_ceil_include_pad": case([N("AveragePool", ["x"], ["y"], kernel_shape=[2, 3, 2], strides=[2, 2, 2],
                                               pads=[1, 1, 0, 0, 1, 1], count_include_pad=1, ceil_mode=1)],
                                            {"x": [1, 2, 5, 6, 5]}, {"y": [1, 2, 3, 4, 3]}),
    "GlobalMaxPool": case([N("GlobalMaxPool", ["x"], ["y"])], {"x": [2, 3, 4, 5]}, {"y": [2, 3, 1, 1]}, gens=NEG),
    "Pad_constant_value": case([N("Pad", ["x", "p", "v"], ["y"], mode="constant")], {"x": [2, 3, 4]}, {"y": [3, 3, 8]},
                               {"p": np.array([0, 0, 3, 1, 0, 1], np.int64), "v": np.array(1.5, np.float32)}),
    "Pad_reflect": case([N("Pad", ["x", "p"], ["y"], mode="reflect")], {"x": [1, 2, 4, 5]}, {"y": [1, 2, 9, 7]},
                        {"p": np.array([0, 0, 3, 2, 0, 0, 2, 0], np.int64)}),
    "Pad_edge_negative": case([N("Pad", ["x", "p"], ["y"], mode="edge")], {"x": [3, 5]}, {"y": [6, 4]},
                              {"p": np.array([2, -2, 1, 1], np.int64)}),
    "Pad_wrap_axes": case([N("Pad", ["x", "p", "", "a"], ["y"], mode="wrap")], {"x": [2, 3, 4]}, {"y": [2, 3, 7]},
                          {"p": np.array([2, 1], np.int64), "a": np.array([-1], np.int64)}, opset=19),
    "Elu": case([N("Elu", ["x"], ["y"], alpha=0.7)], {"x": [3, 5]}, {"y": [3, 5]}, gens=NEG),
    "Selu": case([N("Selu", ["x"], ["y"])], {"x": [3, 5]}, {"y": [3, 5]}, gens=NEG),
    "Celu": case([N("Celu", ["x"], ["y"], alpha=2.0)], {"x": [3, 5]}, {"y": [3, 5]}, gens=NEG),
    "PRelu": case([N("PRelu", ["x", "s"], ["y"])], {"x": [2, 3, 4]}, {"y": [2, 3, 4]},
                  {"s": np.array([[0.1], [0.25], [-0.5]], np.float32)}, gens=NEG),
    "Softplus": case([N("Softplus", ["x"], ["y"])], {"x": [4, 6]}, {"y": [4, 6]},
                     gens={"x": lambda r, s: r.uniform(-12, 12, s)}),
    "Softsign": case([N("Softsign", ["x"], ["y"])], {"x": [4, 6]}, {"y": [4, 6]}, gens=NEG),
    "HardSigmoid": case([N("HardSigmoid", ["x"], ["y"], alpha=0.3, beta=0.4)], {"x": [4, 6]}, {"y": [4, 6]}, gens=NEG),
    "HardSwish": case([N("HardSwish", ["x"], ["y"])], {"x": [4, 6]}, {"y": [4, 6]}, opset=14,
                      gens={"x": lambda r, s: r.uniform(-5, 5, s)}),
    "Shrink": case([N("Shrink", ["x"], ["y"], lambd=0.75, bias=0.25)], {"x": [4, 6]}, {"y": [4, 6]}, gens=NEG),
    "ThresholdedRelu": case([N("ThresholdedRelu", ["x"], ["y"], alpha=0.5)], {"x": [4, 6]}, {"y": [4, 6]}, gens=NEG),
    "Mish": case([N("Mish", ["x"], ["y"])], {"x": [4, 6]}, {"y": [4, 6]}, opset=18, gens=NEG),
    "Sign": case([N("Sign", ["x"], ["y"])], {"x": [4, 6]}, {"y": [4, 6]},
                 gens={"x": lambda r, s: r.integers(-2, 3, s) * r.uniform(0.5, 2, s)}),
    "Sin_Cos": case([N("Sin", ["x"], ["s"]), N("Cos", ["x"], ["c"]), N("Add", ["s", "c"], ["y"])],
                    {"x": [4, 6]}, {"y": [4, 6]}, gens=NEG),
    "Floor_Ceil": case([N("Floor", ["x"], ["f"]), N("Ceil", ["x"], ["c"]), N("Add", ["f", "c"], ["y"])],
                       {"x": [4, 6]}, {"y": [4, 6]}, gens=NEG),
    "LogSoftmax": case([N("LogSoftmax", ["x"], ["y"], axis=1)], {"x": [2, 7, 3]}, {"y": [2, 7, 3]}),
    "Sum_Max_Min_Mean_nary": case([N("Sum", ["a", "b", "c"], ["s"]), N("Max", ["a", "b", "c"], ["mx"]),
                                   N("Min", ["a", "b"], ["mn"]), N("Mean", ["a", "b", "c"], ["me"])],
                                  {"a": [2, 3], "b": [3], "c": [2, 1]},
                                  {"s": [2, 3], "mx": [2, 3], "mn": [2, 3], "me": [2, 3]}),
    "Sum_Max_Min_nary_exact": case([N("Sum", ["a", "b"], ["s"]), N("Max", ["a", "b", "c"], ["mx"]),
                                    N("Min", ["s", "c"], ["y"])], {"a": [2, 3], "b": [3], "c": [2, 1]},
                                   {"mx": [2, 3], "y": [2, 3]}),
    "ReduceMin_L1_exact": case([N("ReduceMin", ["x"], ["mn"], axes=[0]), N("ReduceL1", ["x"], ["l1"], axes=[1])],
                               {"x": [3, 4]}, {"mn": [1, 4], "l1": [3, 1]}),
    "Expand": case([N("Expand", ["x", "s"], ["y"])], {"x": [3, 1]}, {"y": [2, 3, 4]}, {"s": np.array([2, 1, 4], np.int64)}),
    "Tile": case([N("Tile", ["x", "r"], ["y"])], {"x": [2, 3]}, {"y": [4, 9]}, {"r": np.array([2, 3], np.int64)}),
    "InstanceNormalization": case([N("InstanceNormalization", ["x", "s", "b"], ["y"], epsilon=1e-3)],
                                  {"x": [2, 3, 6, 5]}, {"y": [2, 3, 6, 5]},
                                  {"s": np.array([0.5, 1.5, -1.0], np.float32), "b": B3},
                                  gens={"x": lambda r, s: r.normal(0.3, 1.2, s)}),
    "LRN": case([N("LRN", ["x"], ["y"], size=3, alpha=0.01, beta=0.75, bias=1.0)], {"x": [1, 5, 3, 3]}, {"y": [1, 5, 3, 3]}),
    "ArgMax_ArgMin": case([N("ArgMax", ["x"], ["a"], axis=1, keepdims=0), N("ArgMin", ["x"], ["b"], axis=-1),
                           N("ArgMax", ["x"], ["c"], axis=0, select_last_index=1)],
                          {"x": [3, 5]}, {"a": ([3], TP.INT64), "b": ([3, 1], TP.INT64), "c": ([1, 5], TP.INT64)},
                          gens={"x": lambda r, s: r.integers(-2, 3, s).astype(float)}),
    "Trilu_tensor": case([N("Trilu", ["x", "k"], ["y"], upper=0)], {"x": [2, 4, 5]}, {"y": [2, 4, 5]},
                         {"k": np.array(1, np.int64)}, opset=14),
    "Cast_int_and_bool": case([N("Cast", ["x"], ["i"], to=TP.INT64), N("Cast", ["x"], ["b"], to=TP.BOOL)],
                              {"x": [4, 5]}, {"i": ([4, 5], TP.INT64), "b": ([4, 5], TP.BOOL)},
                              gens={"x": lambda r, s: r.uniform(-4, 4, s) * (r.uniform(0, 1, s) > 0.2)}),
    "Comparisons_and_logic": case([N("Less", ["x", "h"], ["lt"]), N("GreaterOrEqual", ["x", "h"], ["ge"]),
                                   N("Greater", ["x", "z"], ["gt"]), N("LessOrEqual", ["x", "z"], ["le"]),
                                   N("And", ["lt", "gt"], ["and"]), N("Or", ["lt", "gt"], ["or"]),
                                   N("Xor", ["lt", "gt"], ["xor"]), N("Not", ["lt"], ["not"])],
                                  {"x": [3, 4], "h": [3, 4]},
                                  {k: ([3, 4], TP.BOOL) for k in ("lt", "ge", "gt", "le", "and", "or", "xor", "not")},
                                  {"z": np.array(0.0, np.float32)},
                                  gens={"x": lambda r, s: r.integers(-2, 3, s).astype(float),
                                        "h": lambda r, s: r.integers(-2, 3, s).astype(float)}),
    "Reduce_min_l1_l2_sumsquare_logsumexp": case(
        [N("ReduceMin", ["x"], ["mn"], axes=[1]), N("ReduceL1", ["x"], ["l1"], axes=[2], keepdims=0),
         N("ReduceL2", ["x"], ["l2"], axes=[2]), N("ReduceSumSquare", ["x"], ["ss"], axes=[1, 2], keepdims=0),
         N("ReduceLogSumExp", ["x"], ["lse"], axes=[2])],
        {"x": [2, 3, 4]}, {"mn": [2, 1, 4], "l1": [2, 3], "l2": [2, 3, 1], "ss": [2], "lse": [2, 3, 1]},
        gens={"x": lambda r, s: r.uniform(-1, 1, s)}),
    "Pow_tensor_and_fraction": case([N("Pow", ["x", "e"], ["p"]), N("Pow", ["x", "h"], ["q"])],
                                    {"x": [3, 4], "e": [3, 4]}, {"p": [3, 4], "q": [3, 4]},
                                    {"h": np.array(0.75, np.float32)},
                                    gens={"x": lambda r, s: r.uniform(0.3, 3, s), "e": lambda r, s: r.uniform(-1.5, 1.5, s)}),
    "Slice_negative_step": case([N("Slice", ["x", "st", "en", "ax", "sp"], ["y"])], {"x": [4, 6]}, {"y": [4, 3]},
                                {"st": np.array([-1], np.int64), "en": np.array([-2**62], np.int64),
                                 "ax": np.array([1], np.int64), "sp": np.array([-2], np.int64)}),
    "Dropout_inference_with_mask": case([N("Dropout", ["x", "r"], ["y", "m"])], {"x": [3, 4]},
                                        {"y": [3, 4], "m": ([3, 4], TP.BOOL)}, {"r": np.array(0.3, np.float32)}),
    "Shape_arithmetic_folded": case(
        [N("Shape", ["x"], ["s"]), N("ConstantOfShape", ["s"], ["ones"], value=helper.make_tensor("v", 1, [1], [0.5])),
         N("Range", ["zero", "n", "one"], ["r"]), N("Cast", ["r"], ["rf"], to=TP.FLOAT), N("Size", ["x"], ["sz"]),
         N("Trilu", ["ones"], ["tri"]), N("Where", ["mask", "tri", "ones"], ["w"]), N("Mul", ["x", "w"], ["xw"]),
         N("Add", ["xw", "rf"], ["y"])],
        {"x": [3, 4]}, {"y": [3, 4]},
        {"zero": np.array(0, np.int64), "n": np.array(4, np.int64), "one": np.array(1, np.int64),
         "mask": np.array([[True], [False], [True]])}, opset=14),
})


def build(name):
    c = CASES[name]
    model = make_model(c["nodes"], c["inputs"], c["outputs"], c["inits"], c["opset"])
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    feed = {k: c["gens"].get(k, lambda r, s: r.uniform(-2, 2, s))(rng, tuple(v)) for k, v in c["inputs"].items()}
    return model, feed


@pytest.mark.parametrize("name", list(CASES))
def test_onnx_op_matches_onnxruntime(name):
    model, feed = build(name)
    cx, _ = check_against_ort(model, feed)
    assert all(isinstance(n.op, Op) for n in cx.nodes())


def test_every_op_the_issue_lists_is_supported_and_tested():
    listed = {
        "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Softmax", "Exp",
        "Log", "Sqrt", "Reciprocal", "Pow", "Neg", "Abs", "Conv", "MaxPool", "AveragePool", "GlobalAveragePool",
        "Flatten", "Reshape", "Transpose", "Concat", "Squeeze", "Unsqueeze", "ReduceSum", "ReduceMean",
        "ReduceMax", "Gather", "Identity", "Constant", "BatchNormalization", "Clip",
    }
    assert listed <= SUPPORTED_OPS
    tested = {n.op_type for c in CASES.values() for n in c["nodes"]}
    assert listed <= tested


def test_new_transformer_ops_are_supported_and_tested():
    new = {"Slice", "Split", "Equal", "Where", "LayerNormalization", "Erf", "Gelu"}
    assert new <= SUPPORTED_OPS
    assert new <= {n.op_type for c in CASES.values() for n in c["nodes"]}


def test_layer_norm_of_a_wide_row_stays_in_range():
    """A 64-wide row of variance ~2: the plain sum of squares (128) would leave the +-32 range."""
    model, _ = build("LayerNormalization_17")
    feed = {"x": np.random.default_rng(1).normal(0.0, 1.5, (2, 3, 64))}
    cx, worst = check_against_ort(model, feed)
    assert worst["y"] < 0.02


def test_neg_inf_fill_needs_a_softmax_reader():
    from luminair.prover.onnx import OnnxImportError, load_onnx

    m = make_model([N("Where", ["m", "ninf", "x"], ["y"], name="fill")], {"x": [2, 2]}, {"y": [2, 2]},
                   {"m": np.eye(2, dtype=bool), "ninf": np.array(-np.inf, np.float32)})
    with pytest.raises(OnnxImportError, match="ONNX Where node 'fill': a non-finite constant"):
        load_onnx(m)


def _on_grid(a, one=1024.0):
    return np.floor(np.asarray(a, dtype=np.float64) * one + 0.5) / one if np.asarray(a).dtype.kind == "f" else a


EXACT_CASES = [name for name, c in CASES.items()
               if all(OPS[n.op_type].bound.startswith("exact (") for n in c["nodes"])]


@pytest.mark.parametrize("name", EXACT_CASES)
def test_ops_the_table_calls_exact_are_exact_on_fixed_point_inputs(name):
    """For inputs and weights that are fixed-point values, an op the op table states as exact gives
    the float64 result bit for bit (no rounding anywhere), e.g. views, masks, comparisons, max."""
    c = CASES[name]
    inits = {k: _on_grid(v) for k, v in c["inits"].items()}
    model = make_model(c["nodes"], c["inputs"], c["outputs"], {k: np.asarray(v).astype(np.asarray(c["inits"][k]).dtype)
                                                               for k, v in inits.items()}, c["opset"])
    _, feed = build(name)
    feed = {k: _on_grid(v) for k, v in feed.items()}
    from luminair.prover.onnx import load_onnx

    cx = load_onnx(model)
    exact, floats = cx.run(feed, exact=True), cx.run(feed)
    for k in floats:
        np.testing.assert_array_equal(exact[k], floats[k], err_msg=f"{name}: {k}")


def test_exact_cases_cover_the_exact_ops():
    stated = {name for name, e in OPS.items() if e.bound.startswith("exact (")}
    covered = {n.op_type for name in EXACT_CASES for n in CASES[name]["nodes"]}
    static_only = {"Constant", "ConstantOfShape", "Range", "NonZero", "OneHot", "EyeLike", "Size", "Shape"}
    assert stated - static_only <= covered, sorted(stated - static_only - covered)


@pytest.mark.parametrize("name", sorted(n for n, e in OPS.items() if e.sweep))
def test_unary_ops_stay_within_their_derived_bound_on_every_fixed_point_input(name):
    """docs/onnx.md's op table shows, per unary op, the derived bound and the measured worst error over
    every fixed-point input of an interval at scale 2^10 (op_table.sweep raises if an input's
    error is beyond its bound); the exact ones measure 0."""
    from luminair.prover.onnx.op_table import sweep

    bound, worst = sweep(OPS[name])
    assert worst <= bound
    if OPS[name].bound.startswith("exact ("):
        assert worst == 0.0
