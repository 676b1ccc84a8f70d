"""Build ONNX models with onnx.helper and compare the imported graph with onnxruntime."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "graph"))
from graph_helpers import assert_within_bound  # noqa: E402

from luminair.prover.onnx import load_onnx  # noqa: E402

F32 = 1e-5  # float32 vs float64: onnxruntime computes in float32


def value_info(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def make_model(nodes, inputs, outputs, inits=None, opset=13):
    """inputs/outputs: {name: shape} (or {name: (shape, TensorProto type)}); inits: {name: numpy array}."""

    def info(name, spec):
        return value_info(name, *spec) if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], int) \
            else value_info(name, spec)

    graph = helper.make_graph(
        nodes, "test",
        [info(k, v) for k, v in inputs.items()],
        [info(k, v) for k, v in outputs.items()],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in (inits or {}).items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 17 else 9
    onnx.checker.check_model(model)
    return model


def ort_run(model, feed):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    outs = sess.run(None, {k: v if v.dtype.kind in "iu" else v.astype(np.float32) for k, v in feed.items()})  # ids stay integers
    return {o.name: r for o, r in zip(sess.get_outputs(), outs)}


def check_against_ort(model, feed, rtol=1e-4, atol=F32, exact=True, **load_kw):
    """Float path equals onnxruntime; fixed point is within the derived bound of it. Returns the
    graph and the worst fixed-point error per output."""
    cx = load_onnx(model, **load_kw)
    feed32 = {k: v.astype(np.float32).astype(np.float64) for k, v in feed.items()}
    ref = {k: v.astype(np.float64) for k, v in ort_run(model, feed32).items()}  # bool / int64 outputs too
    ours = cx.run(feed32)
    assert set(ours) == set(ref)
    for k in ref:
        assert ours[k].shape == ref[k].shape, k
        np.testing.assert_allclose(ours[k], ref[k], rtol=rtol, atol=atol, err_msg=k)
    worst = {}
    if exact:
        slack = {k: atol + rtol * np.abs(ref[k]) for k in ref}
        exact_out = cx.run(feed32, exact=True)
        from luminair.prover.graph.error_bound import error_bound

        bound = error_bound(cx, feed32)
        for k in ref:
            err = np.abs(exact_out[k] - ref[k])
            assert np.all(err <= bound[k] + slack[k]), f"{k}: fixed-point error {err.max()} beyond bound"
            worst[k] = float(err.max())
        assert_within_bound(cx, feed32)  # and against our own float64 run
    return cx, worst
