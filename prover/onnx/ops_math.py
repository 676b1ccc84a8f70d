"""Elementwise ONNX ops: arithmetic, activations, comparisons and logic, n-ary reductions of
tensors, casts. Bounds are for exact fixed-point inputs (eps = 2^-s, one raw unit); the tables
(exp2, log2, sin) are correctly rounded to eps/2."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import onnx

from luminair.prover import graph as G

from .errors import OnnxImportError
from .ops_common import binary, legacy_broadcast, optional_input, static_float, unary, variadic
from .table import EXACT, FULL, ONE_ROUNDING, Value, handler, register

if TYPE_CHECKING:
    from .importer import Importer, OnnxNode

# -- arithmetic ----------------------------------------------------------------------------------

register("Add", binary(lambda a, b: a + b), "Add", EXACT)
register("Sub", binary(G.sub), "Add of the negation (x * -1 is exact)", EXACT)
register("Mul", binary(lambda a, b: a * b), "Mul", ONE_ROUNDING)
register("Div", binary(G.div, static_rhs=True),
         "a * recip(b); by a constant: a * (1/b) (mul_const keeps the constant's relative precision)",
         "by a constant: eps/2 per multiply step; by a tensor: recip floors (< eps), then one rounding: "
         "|a| e_recip + eps/2, e_recip <= eps + e_b / (|b| (|b| - e_b))")
register("Neg", unary(G.neg), "x * -1", EXACT, (-31.999, 31.999))
register("Abs", unary(G.abs), "x * sign(x) (two comparisons)", EXACT, (-31.999, 31.999))
register("Sign", unary(G.sign), "(x > 0) - (x < 0)", EXACT, FULL)
register("Reciprocal", unary(lambda t: t.recip()), "Recip (floor of 2^2s / x)", "eps (floor)", (0.0313, 31.999))
register("Sqrt", unary(lambda t: t.sqrt()), "Sqrt (floor of the integer root)", "eps (floor)", (0.0, 31.999))
register("Exp", unary(G.exp), "exp2(x) * exp2(x (log2 e - 1)) (fused: one exp table)",
         "2 eps/2 + e^x (2^(eps/2) - 1) (two tables); fused: eps/2", (-32.0, 3.465))
register("Log", unary(G.log), "log2(x) * ln 2 (log2 table; x >= one raw unit)",
         "eps/2 ln 2 (table) + eps/2 (product) + |log2 x| |ln 2 - q(ln 2)| (the constant's quantization, <= eps/2)",
         (2.0 ** -10, 31.999))
register("Sin", unary(lambda t: t.sin()), "Sin table", "eps/2", (-31.999, 31.999))
register("Cos", unary(G.cos), "sin(x + pi/2)", "eps/2 + the rounding of pi/2 (eps/2)", (-32.0, 30.4))
register("Floor", unary(G.floor), "x - (x mod 1) (floor Mod by 1.0)", EXACT, FULL)
register("Ceil", unary(G.ceil), "floor(x) + (x mod 1 > 0)", EXACT, (-32.0, 30.999))


@handler("Pow", meaning="integer exponent: repeated squaring (any sign of x); 0.5: Sqrt; otherwise exp2(y log2 x) "
                        "(x > 0)",
         bound="integer n: one rounding a product (n - 1 products); otherwise the log2 and exp2 tables' eps/2 each, "
               "amplified by |y| x^y ln 2")
def _pow(im: "Importer", node: "OnnxNode") -> list[Value]:
    e = im.value(node.inputs[1])
    if isinstance(e, np.ndarray) and e.size == 1:
        p = float(e.reshape(-1)[0])
        if p == int(p) and abs(p) <= 64:
            return [G.pow(im.tensor(node.inputs[0]), int(p))]
        if p == 0.5:
            return [im.tensor(node.inputs[0]).sqrt()]
    base = im.value(node.inputs[0])
    if isinstance(base, np.ndarray):  # a constant base a: a^y = exp2(y log2 a), a > 0
        if (base <= 0).any():
            raise OnnxImportError(f"{node.describe()}: a constant base must be positive, got {base.reshape(-1)[:4]}")
        y = im.tensor(node.inputs[1])
        return [(y * im.graph.constant(np.log2(base.astype(np.float64)), f"{node.name}.log2_base")).exp2()]
    x = im.tensor(node.inputs[0])
    if isinstance(e, np.ndarray) and e.size == 1:
        return [G.pow_tensor(x, float(e.reshape(-1)[0]))]
    return [G.pow_tensor(x, legacy_broadcast(im, node, x, im.tensor(node.inputs[1])))]


@handler("Clip", meaning="max(min(x, hi), lo) through masks", bound=EXACT)
def _clip(im: "Importer", node: "OnnxNode") -> list[Value]:
    lo, hi = node.attrs.get("min"), node.attrs.get("max")
    lo = static_float(im, node, 1, "min") if optional_input(node, 1) else lo
    hi = static_float(im, node, 2, "max") if optional_input(node, 2) else hi
    return [G.clip(im.tensor(node.inputs[0]), lo, hi)]


# -- activations ---------------------------------------------------------------------------------

register("Relu", unary(G.relu), "x * (0 < x) (fused: one comparison)", EXACT, FULL)
register("Sigmoid", unary(G.sigmoid), "(x > 0 ? 1 : e) * recip(1 + e), e = exp(-|x|)",
         "a few eps (exp tables, a floor, two products)", FULL)
register("Tanh", unary(G.tanh), "sign(x) (1 - e) recip(1 + e), e = exp(-|x|)^2",
         "a few eps (exp tables, a floor, three products)", FULL)
register("Erf", unary(G.erf), "Abramowitz-Stegun 7.1.26 on |x| clamped to 4 (fused: one erf table)",
         "fused: eps/2; unfused: the series' 1.5e-7 plus about 10 eps", FULL)
register("Softplus", unary(G.softplus), "relu(x) + ln(1 + exp(-|x|))", "eps/2 (exp) + eps (log2 and ln 2)",
         (-32.0, 31.0))
register("Softsign", unary(G.softsign), "x * recip(1 + |x|)", "|x| eps (recip's floor) + eps/2", (-30.999, 30.999))
register("HardSwish", unary(G.hard_swish), "x * clip(x / 6 + 1/2, 0, 1)", "eps/2 (x/6) |x| + eps/2", FULL)
register("Mish", unary(lambda t: t * G.tanh(G.softplus(t))), "x * tanh(softplus(x))", "a few eps, times |x|",
         (-32.0, 31.0))


@handler("LeakyRelu", meaning="x (x > 0) + alpha x (x < 0) (alpha by mul_const: its relative precision kept)",
         bound="exact for x >= 0; x < 0: eps/2 per multiply step + |alpha x| 2^-(s+1) (alpha's quantization)", sweep=FULL)
def _leaky_relu(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [G.leaky_relu(im.tensor(node.inputs[0]), float(node.attrs.get("alpha", 0.01)))]


@handler("Elu", meaning="x (x > 0) + alpha (exp(x (x < 0)) - 1)", bound="exact for x >= 0; alpha eps + eps/2 for x < 0",
         sweep=FULL)
def _elu(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [G.elu(im.tensor(node.inputs[0]), float(node.attrs.get("alpha", 1.0)))]


@handler("Selu", meaning="gamma * elu(x, alpha)",
         bound="gamma (elu's bound) + eps/2 + |elu| |gamma - q(gamma)| (the constant's quantization)", sweep=(-32.0, 30.4))
def _selu(im: "Importer", node: "OnnxNode") -> list[Value]:
    a = node.attrs
    return [G.selu(im.tensor(node.inputs[0]), float(a.get("alpha", 1.67326319217681884765625)),
                   float(a.get("gamma", 1.05070102214813232421875)))]


@handler("Celu", meaning="alpha * elu(x / alpha)", bound="exact for x >= 0; alpha eps + eps for x < 0", sweep=FULL)
def _celu(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [G.celu(im.tensor(node.inputs[0]), float(node.attrs.get("alpha", 1.0)))]


@handler("PRelu", meaning="x (x > 0) + slope x (x < 0), slope broadcast (opset < 7: one value per channel)",
         bound="exact for x >= 0; eps/2 for x < 0")
def _prelu(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    slope = im.tensor(node.inputs[1])
    if im.opset < 7 and slope.ndim == 1 and x.ndim > 2 and slope.shape[0] == x.shape[1] != 1:
        slope = slope.reshape((x.shape[1],) + (1,) * (x.ndim - 2))  # the legacy per-channel slope
    return [G.prelu(x, slope)]


@handler("ThresholdedRelu", meaning="x * (x > alpha)", bound=EXACT, sweep=FULL)
def _thresholded_relu(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    return [x * G.gt(x, float(node.attrs.get("alpha", 1.0)))]


@handler("HardSigmoid", meaning="clip(alpha x + beta, 0, 1)", bound="eps/2 per multiply step of alpha x", sweep=FULL)
def _hard_sigmoid(im: "Importer", node: "OnnxNode") -> list[Value]:
    a = node.attrs
    return [G.hard_sigmoid(im.tensor(node.inputs[0]), float(a.get("alpha", 0.2)), float(a.get("beta", 0.5)))]


@handler("Shrink", meaning="(x + bias) (x < -lambd) + (x - bias) (x > lambd)", bound=EXACT, sweep=FULL)
def _shrink(im: "Importer", node: "OnnxNode") -> list[Value]:
    a = node.attrs
    return [G.shrink(im.tensor(node.inputs[0]), float(a.get("lambd", 0.5)), float(a.get("bias", 0.0)))]


# -- n-ary -----------------------------------------------------------------------------------------

register("Sum", variadic(lambda a, b: a + b), "Add, left to right (numpy broadcasting)", EXACT)
register("Max", variadic(G.maximum), "where(a < b, b, a), left to right", EXACT)
register("Min", variadic(G.minimum), "where(b < a, b, a), left to right", EXACT)


@handler("Mean", meaning="the inputs' sum * (1/n) (the sum must be in range)", bound="eps/2 per multiply step")
def _mean(im: "Importer", node: "OnnxNode") -> list[Value]:
    names = [n for n in node.inputs if n]
    total = variadic(lambda a, b: a + b)(im, node)[0]
    return [total if len(names) == 1 else G.mul_const(total, 1.0 / len(names))]


# -- comparisons and logic (results are 0/1 masks) -----------------------------------------------------

register("Equal", binary(G.eq, static_rhs=True), "not (a < b or b < a)", EXACT)
register("Less", binary(G.lt, static_rhs=True), "LessThan", EXACT)
register("Greater", binary(G.gt, static_rhs=True), "LessThan(b, a)", EXACT)
register("LessOrEqual", binary(G.le, static_rhs=True), "not (b < a)", EXACT)
register("GreaterOrEqual", binary(G.ge, static_rhs=True), "not (a < b)", EXACT)
register("Not", unary(G.logical_not), "x == 0", EXACT)
register("And", binary(G.logical_and), "(a != 0) (b != 0)", EXACT)
register("Or", binary(G.logical_or), "not (a == 0 and b == 0)", EXACT)
register("Xor", binary(G.logical_xor), "(a != 0) != (b != 0)", EXACT)

_FLOATS = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16}


@handler("Cast", meaning="to a float type: unchanged; to bool: x != 0; to an integer type: truncation towards zero "
                         "(sign(x) (|x| - |x| mod 1))",
         bound=EXACT)
def _cast(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    to = int(node.attrs["to"])
    if to in _FLOATS:
        return [x]
    if to == onnx.TensorProto.BOOL:
        return [x if x._mask else G.ne(x, 0.0)]
    if to == onnx.TensorProto.STRING:
        raise OnnxImportError(f"{node.describe()}: a cast to STRING has no tensor meaning in a fixed-point graph")
    return [x if x._mask else G.trunc(x)]  # 0/1 masks are integers already
