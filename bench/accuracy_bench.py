"""Accuracy of the attested outputs against onnxruntime, luminair at the default scale and
calibrated, beside EZKL calibrated by its own `calibrate_settings` on the same calibration data
(optional: needs `pip install ezkl`; EZKL's outputs are its witness's rescaled outputs, the values
its proof would attest).

    python bench/accuracy_bench.py [--models mlp_64_64_10 mlp_784_128_10 lenet attention layernorm] [--samples 8]

The calibration set is each example's input and samples-1 copies perturbed by Gaussian noise of
a tenth of the input's standard deviation (clipped to its range); the errors are over all of it.
Prints JSON: per model, max and mean |output - onnxruntime| and the top-1 agreement."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"


def _blocks(folder: Path) -> dict[str, tuple[Path, Path]]:
    """A LeNet-like CNN, an attention block and a residual + layer-norm block (random weights, opset
    17), each with an input.json: (model, input) by name."""
    import onnx
    from onnx import TensorProto as T, helper as h, numpy_helper

    rng = np.random.default_rng(2)
    w = lambda name, *shape, scale=0.3: numpy_helper.from_array(rng.uniform(-scale, scale, shape).astype(np.float32), name)  # noqa: E731
    specs = {
        "lenet": ((1, 1, 16, 16), [
            h.make_node("Conv", ["x", "c1"], ["a"], pads=[2, 2, 2, 2], strides=[1, 1]), h.make_node("Relu", ["a"], ["b"]),
            h.make_node("MaxPool", ["b"], ["c"], kernel_shape=[2, 2], strides=[2, 2]),
            h.make_node("Conv", ["c", "c2"], ["d"], strides=[1, 1]), h.make_node("Relu", ["d"], ["e"]),
            h.make_node("MaxPool", ["e"], ["f"], kernel_shape=[2, 2], strides=[2, 2]),
            h.make_node("Flatten", ["f"], ["g"]), h.make_node("Gemm", ["g", "fc"], ["y"], transB=1)],
            [w("c1", 4, 1, 5, 5), w("c2", 8, 4, 3, 3, scale=0.2), w("fc", 10, 72, scale=0.2)]),
        "attention": ((1, 8, 16), [
            h.make_node("MatMul", ["x", "wq"], ["q"]), h.make_node("MatMul", ["x", "wk"], ["k"]),
            h.make_node("MatMul", ["x", "wv"], ["v"]), h.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
            h.make_node("MatMul", ["q", "kt"], ["s"]), h.make_node("Mul", ["s", "scale"], ["ss"]),
            h.make_node("Softmax", ["ss"], ["p"], axis=-1), h.make_node("MatMul", ["p", "v"], ["y"])],
            [w("wq", 16, 16), w("wk", 16, 16), w("wv", 16, 16),
             numpy_helper.from_array(np.array(0.25, dtype=np.float32), "scale")]),
        "layernorm": ((1, 8, 16), [
            h.make_node("MatMul", ["x", "w1"], ["a"]), h.make_node("Add", ["a", "x"], ["r"]),
            h.make_node("LayerNormalization", ["r", "gamma", "beta"], ["y"], axis=-1)],
            [w("w1", 16, 16), numpy_helper.from_array(np.ones(16, np.float32), "gamma"),
             numpy_helper.from_array(np.zeros(16, np.float32), "beta")]),
    }
    out = {}
    folder.mkdir(parents=True, exist_ok=True)
    for name, (shape, nodes, inits) in specs.items():
        g = h.make_graph(nodes, name, [h.make_tensor_value_info("x", T.FLOAT, shape)],
                         [h.make_tensor_value_info("y", T.FLOAT, None)], inits)
        model, data = folder / f"{name}.onnx", folder / f"{name}.input.json"
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), model)
        data.write_text(json.dumps({"input_data": [rng.uniform(-1, 1, int(np.prod(shape))).round(4).tolist()]}))
        out[name] = (model, data)
    return out


def samples_of(data: Path, n: int, seed: int = 5) -> list[np.ndarray]:
    x = np.asarray(json.loads(data.read_text())["input_data"][0], dtype=np.float64)
    rng = np.random.default_rng(seed)
    noisy = [np.clip(x + rng.normal(0, 0.1 * (x.std() or 1.0), x.shape), x.min(), x.max()) for _ in range(n - 1)]
    return [x, *noisy]


def errors(outs: list[np.ndarray], refs: list[np.ndarray]) -> dict:
    diff = np.concatenate([np.abs(o.reshape(-1) - r.reshape(-1)) for o, r in zip(outs, refs)])
    top1 = np.mean([np.array_equal(o.reshape(r.shape).argmax(-1), r.argmax(-1)) for o, r in zip(outs, refs)])
    return {"max_abs_error": float(diff.max()), "mean_abs_error": float(diff.mean()), "top1_agreement": float(top1)}


def run_luminair(model: Path, samples: list[np.ndarray], calibrate: str | None) -> tuple[dict, list[np.ndarray]]:
    """calibrate: None (the default scale), "global" (one scale) or "tensors" (a scale per tensor)."""
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.onnx import load_onnx

    cx = load_onnx(str(model))
    (name, node), = cx.inputs().items()
    feeds = [{name: s.reshape(node.shape)} for s in samples]
    cal = cx.calibrate(feeds) if calibrate == "global" else None
    cx.compile(GenericCompiler(), StwoCompiler())
    if calibrate == "tensors":
        cal = cx.calibrate_tensors(feeds)
    outs = [next(iter(cx.run(f, exact=True).values())) for f in feeds]
    return {"scale_bits": cx.numeric_format.scale_bits, **({"calibration": cal.as_dict()} if cal else {})}, outs


def run_ezkl(model: Path, samples: list[np.ndarray], work: Path) -> tuple[dict, list[np.ndarray]]:
    import ezkl

    work.mkdir(parents=True, exist_ok=True)
    settings, circuit, cal = str(work / "settings.json"), str(work / "circuit.ezkl"), work / "cal.json"
    cal.write_text(json.dumps({"input_data": [np.concatenate([s.reshape(-1) for s in samples]).tolist()]}))
    t = time.perf_counter()
    ezkl.gen_settings(str(model), settings)
    ezkl.calibrate_settings(str(cal), str(model), settings, "accuracy")
    ezkl.compile_circuit(str(model), circuit, settings)
    calibrate_s = time.perf_counter() - t
    outs = []
    for i, s in enumerate(samples):
        data = work / f"in{i}.json"
        data.write_text(json.dumps({"input_data": [s.reshape(-1).tolist()]}))
        ezkl.gen_witness(str(data), circuit, str(work / f"w{i}.json"))
        w = json.loads((work / f"w{i}.json").read_text())
        outs.append(np.asarray(w["pretty_elements"]["rescaled_outputs"][0], dtype=np.float64))
    run = json.loads(Path(settings).read_text())["run_args"]
    return {"input_scale": run.get("input_scale"), "param_scale": run.get("param_scale"),
            "calibrate_s": round(calibrate_s, 2)}, outs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="*", default=["mlp_64_64_10", "mlp_784_128_10", "lenet", "attention", "layernorm"])
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--workdir", default="/tmp/accuracy-bench")
    args = ap.parse_args()
    import onnx
    import onnxruntime as ort

    sys.path.insert(0, str(HERE))
    from common import machine

    results = []
    blocks = _blocks(Path(args.workdir) / "models")
    for name in args.models:
        model, data = blocks.get(name, (EXAMPLES / name / "network.onnx", EXAMPLES / name / "input.json"))
        samples = samples_of(data, args.samples)
        sess = ort.InferenceSession(onnx.load(str(model)).SerializeToString(), providers=["CPUExecutionProvider"])
        inp = sess.get_inputs()[0]
        refs = [sess.run(None, {inp.name: s.reshape([d if isinstance(d, int) else 1 for d in inp.shape])
                                .astype(np.float32)})[0].astype(np.float64) for s in samples]
        row: dict = {"model": name, "samples": len(samples)}
        for label, cal in (("luminair_default", None), ("luminair_calibrated", "global"),
                           ("luminair_per_tensor", "tensors")):
            info, outs = run_luminair(model, samples, cal)
            row[label] = {**info, **errors(outs, refs)}
        try:
            info, outs = run_ezkl(model, samples, Path(args.workdir) / name)
            row["ezkl_calibrated"] = {**info, **errors(outs, refs)}
        except ImportError:
            row["ezkl_calibrated"] = {"skipped": "ezkl is not installed (pip install ezkl)"}
        except Exception as e:  # noqa: BLE001 - EZKL's own refusal is its result
            row["ezkl_calibrated"] = {"error": f"{type(e).__name__}: {e}"[:300]}
        results.append(row)
        print(f"# {name}: " + ", ".join(f"{k} {v.get('max_abs_error', v)}" for k, v in row.items()
                                       if isinstance(v, dict)), file=sys.stderr)
    print(json.dumps({"benchmark": "accuracy_vs_onnxruntime", "machine": machine(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
