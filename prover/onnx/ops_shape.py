"""Shape and movement ONNX ops (views of a tensor: exact), masks, reductions, and the shape
arithmetic exporters emit, which is folded while importing (all of its inputs are static)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from luminair.prover import graph as G
from luminair.prover.graph import GraphTensor

from .errors import OnnxImportError
from .ops_common import axes_of, norm_axis, optional_input, shape_of, static_float, static_ints, text_attr
from .table import EXACT, FOLDED, VIEW, Handler, Value, handler, register

if TYPE_CHECKING:
    from .importer import Importer, OnnxNode

# -- static values and shape arithmetic -----------------------------------------------------------------


def _static_only(reason: str) -> Handler:
    def fn(im: "Importer", node: "OnnxNode") -> list[Value]:
        raise OnnxImportError(f"{node.describe()}: its inputs must be static (known while importing): {reason}")

    return fn


register("Constant", _static_only("a constant"), "a static value", FOLDED)
register("ConstantOfShape", _static_only("its output's shape is its input's value"), "a static fill", FOLDED)
register("Range", _static_only("its output's length depends on its inputs' values"), "a static sequence", FOLDED)
register("NonZero", _static_only("its output's shape depends on its input's values"), "static indices", FOLDED)
register("OneHot", _static_only("indices computed in the graph need an index tensor at scale 0 (per-tensor scales), "
                                "which this version's format does not have"), "a static one-hot table", FOLDED)


@handler("Shape", meaning="the input's static shape (start / end)", bound=FOLDED)
def _shape_op(im: "Importer", node: "OnnxNode") -> list[Value]:
    shape = np.asarray(shape_of(im.value(node.inputs[0])), dtype=np.int64)
    return [shape[node.attrs.get("start", 0):node.attrs.get("end", None)]]


@handler("Size", meaning="the input's static element count", bound=FOLDED)
def _size(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [np.asarray(int(np.prod(shape_of(im.value(node.inputs[0])))), dtype=np.int64)]


@handler("EyeLike", meaning="a static identity matrix of the input's shape", bound=FOLDED)
def _eye_like(im: "Importer", node: "OnnxNode") -> list[Value]:
    shape = shape_of(im.value(node.inputs[0]))
    if len(shape) != 2:
        raise OnnxImportError(f"{node.describe()}: input must be 2-D, got {shape}")
    return [np.eye(shape[0], shape[1], k=int(node.attrs.get("k", 0)))]


# -- views ------------------------------------------------------------------------------------------


@handler("Identity", meaning="the input itself", bound=EXACT)
def _identity(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [im.value(node.inputs[0])]


@handler("Flatten", meaning="reshape to 2-D at axis", bound=VIEW)
def _flatten(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.tensor(node.inputs[0])
    axis = int(node.attrs.get("axis", 1))
    axis = axis % v.ndim if axis < 0 else axis
    return [v.reshape((int(np.prod(v.shape[:axis])), int(np.prod(v.shape[axis:]))))]


@handler("Reshape", meaning="reshape (0 copies the input's dimension unless allowzero, -1 is inferred)", bound=VIEW)
def _reshape(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.tensor(node.inputs[0])
    target = static_ints(im, node, 1, "shape")
    if target is None:
        target = [int(d) for d in node.attrs.get("shape", [])]  # opset < 5: an attribute
    if not node.attrs.get("allowzero", 0):
        target = [v.shape[i] if d == 0 else d for i, d in enumerate(target)]
    return [v.reshape(tuple(target))]


@handler("Transpose", meaning="permute (reversed axes by default)", bound=VIEW)
def _transpose(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.tensor(node.inputs[0])
    return [v.permute(tuple(node.attrs.get("perm", reversed(range(v.ndim)))))]


@handler("Squeeze", meaning="drop size-1 axes", bound=VIEW)
def _squeeze(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [im.tensor(node.inputs[0]).squeeze(axes_of(im, node))]


@handler("Unsqueeze", meaning="insert size-1 axes", bound=VIEW)
def _unsqueeze(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.tensor(node.inputs[0])
    axes = axes_of(im, node)
    if axes is None:
        raise OnnxImportError(f"{node.describe()}: axes are required")
    rank = v.ndim + len(axes)
    shape = list(v.shape)
    for a in sorted(norm_axis(a, rank, node) for a in axes):
        shape.insert(a, 1)
    return [v.reshape(tuple(shape))]


@handler("Concat", meaning="each part zero-padded to the full length, then added (padding reads 0)", bound=EXACT)
def _concat(im: "Importer", node: "OnnxNode") -> list[Value]:
    parts = [im.tensor(n) for n in node.inputs if n]
    return [G.concat(parts, norm_axis(int(node.attrs["axis"]), parts[0].ndim, node))]


@handler("Split", meaning="slices of the input (sizes from the input, the attribute, or num_outputs)", bound=VIEW)
def _split(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.tensor(node.inputs[0])
    axis = norm_axis(int(node.attrs.get("axis", 0)), v.ndim, node)
    n_out = len(node.outputs)
    if "split" in node.attrs:  # before opset 13 the sizes were an attribute
        sizes = [int(s) for s in node.attrs["split"]]
    elif optional_input(node, 1):
        sizes = static_ints(im, node, 1, "split")
    else:  # equal parts (opset 18 names the count num_outputs; the last part may be smaller)
        n = int(node.attrs.get("num_outputs", n_out))
        part = -(-v.shape[axis] // n)
        sizes = [min(part, v.shape[axis] - i * part) for i in range(n)]
    if sum(sizes) != v.shape[axis] or len(sizes) != n_out:
        raise OnnxImportError(f"{node.describe()}: split sizes {sizes} do not divide axis {axis} of {v.shape} "
                              f"into {n_out} outputs")
    out, start = [], 0
    for s in sizes:
        out.append(v.slice([(start, start + s) if a == axis else (0, d) for a, d in enumerate(v.shape)]))
        start += s
    return out


@handler("Slice", meaning="a strided view; a negative step gathers the index list (one slice per element)",
         bound=VIEW)
def _slice(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.tensor(node.inputs[0])
    if im.opset < 10:  # starts / ends / axes were attributes
        starts, ends = list(node.attrs["starts"]), list(node.attrs["ends"])
        axes, steps = node.attrs.get("axes"), None
    else:
        starts, ends = static_ints(im, node, 1, "starts"), static_ints(im, node, 2, "ends")
        axes, steps = static_ints(im, node, 3, "axes"), static_ints(im, node, 4, "steps")
    axes = list(range(len(starts))) if axes is None else [norm_axis(int(a), v.ndim, node) for a in axes]
    steps = [1] * len(starts) if steps is None else steps
    out = v
    for a, st, en, sp in zip(axes, starts, ends, steps):
        if sp == 0:
            raise OnnxImportError(f"{node.describe()}: a slice step of 0")
        # python slicing clamps like ONNX does (ends of +-2^63 included)
        idx = range(out.shape[a])[slice(int(np.clip(st, -2**62, 2**62)), int(np.clip(en, -2**62, 2**62)), int(sp))]
        if not len(idx):
            raise OnnxImportError(f"{node.describe()}: the slice of axis {a} of {out.shape} is empty")
        if sp > 0:
            out = out.slice([(idx.start, idx[-1] + 1, idx.step) if b == a else (0, d) for b, d in enumerate(out.shape)])
        else:
            out = G.gather(out, np.asarray(list(idx), dtype=np.int64), a)
    return [out]


@handler("Gather", meaning="constant indices: strided slices of the data, concatenated; an integer input's "
                           "indices into a constant table (an embedding): its rows, computed by the verifier", bound=VIEW)
def _gather(im: "Importer", node: "OnnxNode") -> list[Value]:
    idx = im.value(node.inputs[1])
    if isinstance(idx, GraphTensor):
        return [_embedding(im, node, idx)]
    data = im.tensor(node.inputs[0])
    return [G.gather(data, idx.astype(np.int64), norm_axis(int(node.attrs.get("axis", 0)), data.ndim, node))]


def _embedding(im: "Importer", node: "OnnxNode", ids: GraphTensor) -> GraphTensor:
    """Gather(table, ids) with ids an integer graph input and the table static: row lookups."""
    if not ids.node.index or not ids.view.is_identity():
        raise OnnxImportError(
            f"{node.describe()}: its indices ({node.inputs[1]!r}) are computed in the graph; indices computed "
            "from other values are not supported: only an integer graph input (token ids) or constants")
    table = im.value(node.inputs[0])
    if not isinstance(table, np.ndarray):
        raise OnnxImportError(f"{node.describe()}: the table ({node.inputs[0]!r}) of an embedding lookup must be "
                              "a constant (an initializer)")
    if norm_axis(int(node.attrs.get("axis", 0)), table.ndim, node) != 0 or table.ndim < 1:
        raise OnnxImportError(f"{node.describe()}: token ids index axis 0 of the table only (an embedding)")
    rest = table.shape[1:]
    flat = im.graph.constant(table.reshape(table.shape[0], -1).astype(np.float64), node.inputs[0])
    rows = im.graph.embedding(ids, flat)
    return rows.reshape((*ids.shape, *rest)) if len(rest) != 1 else rows


@handler("Tile", meaning="each axis broadcast to (repeats, size) and merged", bound=VIEW)
def _tile(im: "Importer", node: "OnnxNode") -> list[Value]:
    return [G.tile(im.tensor(node.inputs[0]), static_ints(im, node, 1, "repeats"))]


@handler("Expand", meaning="broadcast to the bidirectional broadcast of the shapes", bound=VIEW)
def _expand(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.tensor(node.inputs[0])
    shape = static_ints(im, node, 1, "shape")
    try:
        target = np.broadcast_shapes(v.shape, tuple(shape))
    except ValueError:
        raise OnnxImportError(f"{node.describe()}: cannot expand {v.shape} to {tuple(shape)}") from None
    return [v.broadcast_to(target)]


@handler("Pad", meaning="constant (zeros: a view; another value: one exact Add per axis), edge or reflect "
                        "(index gathers), wrap; negative pads crop",
         bound=EXACT)
def _pad(im: "Importer", node: "OnnxNode") -> list[Value]:
    v = im.tensor(node.inputs[0])
    mode = text_attr(node, "mode", "constant")
    if im.opset < 11:
        pads, value = [int(p) for p in node.attrs.get("pads", node.attrs.get("paddings", []))], node.attrs.get("value", 0.0)
    else:
        pads, value = static_ints(im, node, 1, "pads"), static_float(im, node, 2, "constant_value") or 0.0
    axes = static_ints(im, node, 3, "axes") if im.opset >= 18 else None
    axes = list(range(v.ndim)) if axes is None else [norm_axis(a, v.ndim, node) for a in axes]
    if pads is None or len(pads) != 2 * len(axes):
        raise OnnxImportError(f"{node.describe()}: expected {2 * len(axes)} pads, got {pads}")
    per_axis = [(0, 0)] * v.ndim
    for i, a in enumerate(axes):
        per_axis[a] = (pads[i], pads[i + len(axes)])
    crop = [(max(0, -b), d - max(0, -e)) for (b, e), d in zip(per_axis, v.shape)]
    if any(lo >= hi for lo, hi in crop):
        raise OnnxImportError(f"{node.describe()}: negative pads {pads} crop all of {v.shape}")
    if crop != [(0, d) for d in v.shape]:
        v = v.slice(crop)
    widths = [(max(0, b), max(0, e)) for b, e in per_axis]
    if mode == "wrap":
        for a, (b, e) in enumerate(widths):
            if b or e:
                n = v.shape[a]
                v = G.gather(v, np.arange(-b, n + e) % n, a)
        return [v]
    if mode not in ("constant", "edge", "reflect"):
        raise OnnxImportError(f"{node.describe()}: unknown mode {mode!r}")
    return [G.pad(v, widths, mode, float(value))]


# -- masks -----------------------------------------------------------------------------------------------


def _softmax_fill(im: "Importer", node: "OnnxNode", value: np.ndarray) -> np.ndarray:
    """A -inf branch of Where (masked_fill(mask, -inf) before a softmax, as torch exports causal
    attention) cannot be a fixed-point value. It becomes -max_real / 2 (-16 at scale 10): its exp
    after the softmax's x - max is 0 in fixed point (and below 1e-7 in float) as long as the row
    maximum is below max_real / 2, and x - max stays in range. Only allowed when every reader of the
    result is a Softmax, where the substitution cannot change anything else."""
    if np.isfinite(value).all():
        return value
    readers = [n for n in im.model.graph.node if node.outputs[0] in n.input]
    if np.isposinf(value).any() or np.isnan(value).any() or not readers or \
            any(r.op_type != "Softmax" for r in readers):
        raise OnnxImportError(
            f"{node.describe()}: a non-finite constant ({value.reshape(-1)[~np.isfinite(value.reshape(-1))][0]}) "
            "is only supported as a -inf fill whose result is read by Softmax nodes only"
        )
    return np.where(np.isneginf(value), -im.graph.numeric_format.max_real / 2, value)


@handler("Where", meaning="a constant mask: c a + (1 - c) b with 0/1 constants (a constant branch folds into one "
                          "term; -inf before a Softmax is -max/2); a computed mask: c a + (not c) b",
         bound=EXACT)
def _where(im: "Importer", node: "OnnxNode") -> list[Value]:
    c, a, b = (im.value(n) for n in node.inputs[:3])
    if isinstance(c, np.ndarray):
        out_shape = np.broadcast_shapes(c.shape, shape_of(a), shape_of(b))
        m = c.astype(bool)
        terms: list[GraphTensor] = []
        const = np.zeros(out_shape)
        for branch, keep, name in ((a, m, node.inputs[1]), (b, ~m, node.inputs[2])):
            if isinstance(branch, np.ndarray):
                const = const + np.where(keep, _softmax_fill(im, node, branch.astype(np.float64)), 0.0)
            elif keep.all():
                terms.append(branch)
            elif keep.any():
                terms.append(branch * im.graph.constant(keep.astype(np.float64), f"{node.name}.{name}.mask"))
        out = terms[0] if terms else None
        for t in terms[1:]:
            out = out + t
        if const.any() or out is None:
            cst = im.graph.constant(const, f"{node.name}.fill")
            out = cst if out is None else out + cst
        return [out.broadcast_to(out_shape)]
    for v in (a, b):
        if isinstance(v, np.ndarray) and not np.isfinite(v).all():
            raise OnnxImportError(f"{node.describe()}: non-finite constants need a constant condition")

    def branch(v: Value) -> Any:
        return float(v) if isinstance(v, np.ndarray) and v.ndim == 0 else v

    return [G.where(c, branch(a), branch(b))]


@handler("Trilu", meaning="the input times a constant 0/1 triangle", bound=EXACT)
def _trilu(im: "Importer", node: "OnnxNode") -> list[Value]:
    x = im.tensor(node.inputs[0])
    if x.ndim < 2:
        raise OnnxImportError(f"{node.describe()}: input must have at least 2 axes, got {x.shape}")
    k = static_ints(im, node, 1, "k")
    k = 0 if k is None else k[0]
    ones = np.ones(x.shape[-2:])
    mask = np.triu(ones, k) if node.attrs.get("upper", 1) else np.tril(ones, k)
    return [x * im.graph.constant(mask, f"{node.name or 'trilu'}.mask")]


DOT_SUM = "sum of the products' errors + eps/2 (one fused Dot)"

# -- reductions ------------------------------------------------------------------------------------------


def _reduce(graph_fn: Callable[[GraphTensor, Any, bool], GraphTensor]) -> Handler:
    """axes: an attribute before opset 13 (ReduceSum) / 18 (the others), an input from then on."""

    def fn(im: "Importer", node: "OnnxNode") -> list[Value]:
        v = im.tensor(node.inputs[0])
        axes = axes_of(im, node)
        if axes is not None and len(axes) == 0:
            axes = None
        if axes is None and node.attrs.get("noop_with_empty_axes", 0):
            return [v]
        return [graph_fn(v, None if axes is None else tuple(axes), bool(node.attrs.get("keepdims", 1)))]

    return fn


def _log_sum_exp(x: GraphTensor, axes: Any, keep: bool) -> GraphTensor:
    m = G.max(x, axes, keepdims=True)
    out = G.log(G.sum(G.exp(G.sub(x, m)), axes, keepdims=True)) + m
    return out if keep else out.squeeze(tuple(range(x.ndim)) if axes is None else axes)


register("ReduceSum", _reduce(G.sum), "one SumReduce", EXACT)
register("ReduceMean", _reduce(G.mean), "SumReduce, then 1/n (the sum must be in range)", "eps/2 per multiply step")
register("ReduceMax", _reduce(G.max), "one MaxReduce", EXACT)
register("ReduceMin", _reduce(G.min), "-max(-x)", EXACT)
register("ReduceL1", _reduce(lambda x, a, k: G.sum(G.abs(x), a, k)), "sum |x|", EXACT)
register("ReduceSumSquare", _reduce(lambda x, a, k: G.sum(x * x, a, k)), "sum x * x (fused: Dot)", DOT_SUM)
register("ReduceL2", _reduce(lambda x, a, k: G.sum(x * x, a, k).sqrt()), "sqrt(sum x * x)", DOT_SUM + ", then a floor")
register("ReduceLogSumExp", _reduce(_log_sum_exp), "max + ln(sum exp(x - max))", "eps/2 per exp, the log2 table, ln 2")


def _arg(fn: Callable) -> Handler:
    def h(im: "Importer", node: "OnnxNode") -> list[Value]:
        x = im.tensor(node.inputs[0])
        axis = norm_axis(int(node.attrs.get("axis", 0)), x.ndim, node)
        return [fn(x, axis, bool(node.attrs.get("keepdims", 1)), bool(node.attrs.get("select_last_index", 0)))]

    return h


register("ArgMax", _arg(G.argmax), "the index of the first (or last) maximum as a value: max of hit * (n - i) "
         "(n must be in range: n <= 31 at scale 10)", EXACT)
register("ArgMin", _arg(G.argmin), "ArgMax of -x", EXACT)
