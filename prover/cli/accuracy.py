"""What `luminair prove` reports about the attested outputs' accuracy: their distance to the
float64 run of the same graph, and for an ONNX model to onnxruntime's run of the file as shipped
(with the top-1 agreement of the last axis: a classifier's predicted class)."""

from __future__ import annotations

from typing import Any

import numpy as np

_ORT_TYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
              "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(bool)": np.bool_}


def error_report(reference: dict[str, Any], exact_out: dict[str, Any]) -> dict[str, dict[str, float]]:
    """{output: max and mean |attested - reference|} over the outputs both hold."""
    out = {}
    for name, ref in reference.items():
        if name not in exact_out:
            continue
        err = np.abs(np.asarray(exact_out[name], dtype=np.float64).reshape(-1) - np.asarray(ref, dtype=np.float64).reshape(-1))
        out[name] = {"max_abs_error": float(err.max(initial=0.0)), "mean_abs_error": float(err.mean()) if err.size else 0.0}
    return out


def samples_report(graph: Any, samples: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """error_report of the attested outputs against the float64 run over every sample (a
    calibration set), each with "top1_agreement" over all the samples' rows where the last axis
    holds at least 2 classes."""
    errs: dict[str, list[Any]] = {}
    agree: dict[str, list[Any]] = {}
    for sample in samples:
        exact, ref = graph.run(sample, exact=True), graph.run(sample)
        for name, out in exact.items():
            ours, theirs = np.asarray(out, dtype=np.float64), np.asarray(ref[name], dtype=np.float64)
            errs.setdefault(name, []).append(np.abs(ours - theirs).reshape(-1))
            if ours.ndim and ours.shape[-1] >= 2:
                agree.setdefault(name, []).append((ours.argmax(-1) == theirs.argmax(-1)).reshape(-1))
    out: dict[str, dict[str, float]] = {}
    for name, e in errs.items():
        err = np.concatenate(e)
        out[name] = {"max_abs_error": float(err.max(initial=0.0)), "mean_abs_error": float(err.mean()) if err.size else 0.0}
        if name in agree:
            out[name]["top1_agreement"] = float(np.concatenate(agree[name]).mean())
    return out


def bound_report(graph: Any, inputs: dict[str, Any]) -> dict[str, dict[str, float]]:
    """{output: the largest element of its worst-case and first-order bounds on |attested - float64|}
    (first order None, with the reason, where the graph is too large for its reverse passes)."""
    from luminair.prover.graph.error_bound import error_bound
    from luminair.prover.graph.first_order import first_order_bound

    worst = error_bound(graph, inputs)
    try:
        first, refused = first_order_bound(graph, inputs), None
    except ValueError as e:
        first, refused = None, str(e)
    return {name: {"worst_case": float(np.max(worst[name], initial=0.0)),
                   "first_order": None if first is None else float(np.max(first[name], initial=0.0)),
                   **({"first_order_refused": refused} if refused else {})} for name in worst}


def onnxruntime_report(model_bytes: bytes, feeds: dict[str, Any], exact_out: dict[str, Any]) -> dict[str, Any] | None:
    """error_report against onnxruntime's outputs, each with "top1_agreement" (the fraction of rows
    whose argmax over the last axis agrees) where that axis holds at least 2 classes; None without
    onnxruntime, {"error": ...} where it cannot run the model."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    try:
        sess = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
        feed = {i.name: np.asarray(feeds[i.name]).astype(_ORT_TYPES.get(i.type, np.float32)) for i in sess.get_inputs()}
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feed)))
    except Exception as e:  # noqa: BLE001 - onnxruntime raises its own types for what it cannot run
        return {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"}
    report: dict[str, Any] = error_report(ref, exact_out)
    for name, r in report.items():
        ours, theirs = np.asarray(exact_out[name]), np.asarray(ref[name])
        if ours.ndim and ours.shape[-1] >= 2 and ours.shape == theirs.shape:
            r["top1_agreement"] = float(np.mean(ours.argmax(-1) == theirs.argmax(-1)))
    return report
