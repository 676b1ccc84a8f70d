"""The model-zoo graphs of the onnx wheel (onnx/backend/test/data/light) through the importer, and
SqueezeNet proven up to its logits.

    python bench/zoo_bench.py [--runs 3] [--preset default] [--size 31] [--skip-zoo] [--out FILE.json]

Part 1, per zoo graph as it ships (224x224, no pre-folding; DenseNet-121 at scale 2^6, ShuffleNet
at 2^9): import time, compile time (GenericCompiler, StwoCompiler), nodes, the committed trace
cells and the topology's boundary-row bound (what `luminair inspect` prints), or the exact message
of what refuses it, each graph in a fresh process (its peak RSS is its own).

Part 2, SqueezeNet 1.1 at --size x --size (its global pool allows any size from 31 up), cut at its
logits (the global pool's output, before the softmax): first as shipped (every weight 0.02: the
bounds pass refuses it, the message is recorded), then with gain_one_fills (weights
2^-ceil(log2 fan_in)): settings, prove (medians of --runs), verify (CPython, the work budget
raised for its 5 MB of weights), and the attested logits against onnxruntime.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LOGITS = "r65"  # SqueezeNet's GlobalAveragePool output
MAX_WORK = 50_000_000
# a folded batch-norm factor of these fills is past the default format's range (316.2, 37.07)
SCALE_BITS = {"densenet121": 6, "shufflenet": 9}


def _zoo_one(name: str, q: mp.Queue) -> None:
    sys.path.insert(0, str(HERE))
    from common import peak_rss_mb

    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.air.graph_trace import build_spec
    from luminair.prover.costs import boundary_rows, components_summary
    from luminair.prover.onnx import load_onnx
    from luminair.prover.onnx.zoo import zoo_path
    from luminair.verifier.graph.planner import plan_graph

    out: dict[str, Any] = {"model": name, "scale_bits": SCALE_BITS.get(name, 10)}
    try:
        t = time.perf_counter()
        graph = load_onnx(zoo_path(name), scale_bits=SCALE_BITS.get(name))
        out["import_s"] = round(time.perf_counter() - t, 2)
        out["imported_nodes"] = len(graph)
        t = time.perf_counter()
        try:
            graph.compile(GenericCompiler(), StwoCompiler())
            out["compile_s"] = round(time.perf_counter() - t, 2)
            out["compiled_nodes"] = len(graph)
            t = time.perf_counter()
            spec = build_spec(graph)
            out["committed_cells"] = sum(c["cells"] for c in components_summary(spec))
            out["boundary_rows_bound"] = boundary_rows(plan_graph(spec))
            out["cells_s"] = round(time.perf_counter() - t, 2)
        except Exception as e:  # noqa: BLE001 - the refusal is the measurement
            out["compile_s"] = round(time.perf_counter() - t, 2)
            out["refused"] = f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001
        out["error"] = f"{type(e).__name__}: {e}"
    out["peak_rss_mb"] = peak_rss_mb()
    q.put(out)


def _in_process(fn: Any, *args: Any) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=fn, args=(*args, q))
    p.start()
    out = q.get()
    p.join()
    return out


def squeezenet(size: int, preset: str, runs: int) -> dict[str, Any]:
    import numpy as np
    import onnx
    import onnxruntime as ort

    sys.path.insert(0, str(HERE))
    from common import peak_rss_mb

    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.error_bound import error_bound
    from luminair.prover.onnx import load_onnx
    from luminair.prover.onnx.zoo import for_onnxruntime, gain_one_fills, zoo_path
    from luminair.prover.proving import gen_settings, gen_trace, prove
    from luminair.verifier import verify

    shipped = onnx.load(str(zoo_path("squeezenet")))
    shape = (1, 3, size, size)
    x = np.random.default_rng(0).uniform(0, 1, shape).astype(np.float32).astype(np.float64)
    out: dict[str, Any] = {"model": "squeezenet 1.1 (light_squeezenet.onnx)", "input": list(shape), "output": LOGITS,
                           "preset": preset}

    def load(model: Any) -> Any:
        return load_onnx(model, {"data_0": shape}, resize_inputs=True, outputs=[LOGITS])

    try:
        load(shipped).run({"data_0": x}, exact=True)
        out["as_shipped"] = "ran"
    except Exception as e:  # noqa: BLE001 - the bounds pass's refusal is the measurement
        out["as_shipped"] = f"{type(e).__name__}: {e}"
    model = gain_one_fills(shipped)
    graph = load(model)
    t = time.perf_counter()
    graph.compile(GenericCompiler(), StwoCompiler())
    out["compile_s"] = round(time.perf_counter() - t, 2)
    t = time.perf_counter()
    settings = gen_settings(graph, preset=preset)
    out["settings_s"] = round(time.perf_counter() - t, 2)
    out["settings_bytes"] = len(settings.data)
    out["trace_rows"] = sum(p.rows for p in settings.plans)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        proof = prove(graph, gen_trace(graph, {"data_0": x}), settings)
        times.append(time.perf_counter() - t)
    out["prove_s"] = round(statistics.median(times), 2)
    out["prove_s_runs"] = [round(v, 2) for v in times]
    out["proof_bytes"] = len(proof.data)
    t = time.perf_counter()
    r = verify(proof.data, settings.data, min_security_bits=0, max_work=MAX_WORK)
    out["verify_s"] = round(time.perf_counter() - t, 2)
    out["verified"] = r.success
    out["verify_error"] = r.error_message
    out["security_bits"] = settings.config.security_bits
    out["peak_rss_mb"] = peak_rss_mb()
    exact = graph.run({"data_0": x}, exact=True)[LOGITS]
    attested = np.asarray(r.outputs[LOGITS]["values"], dtype=float).reshape(exact.shape) if r.success else None
    out["attested_equals_exact_run"] = bool(attested is not None and np.array_equal(attested, exact))
    sess = ort.InferenceSession(for_onnxruntime(model, shape, [LOGITS]).SerializeToString(),
                                providers=["CPUExecutionProvider"])
    ref = sess.run(None, {"data_0": x.astype(np.float32)})[0].astype(np.float64)
    out["max_abs_error_vs_onnxruntime"] = float(np.max(np.abs(exact - ref)))
    out["max_abs_logit"] = float(np.max(np.abs(ref)))
    out["max_error_bound"] = float(np.max(error_bound(graph, {"data_0": x})[LOGITS]))
    return out


def squeezenet_softmax(size: int, preset: str, fills: str) -> dict[str, Any]:
    """The whole SqueezeNet, its 1000-class softmax included (issue 27), at --size x --size with a
    scale per tensor calibrated on the input (calibrate_tensors): as shipped (every weight 0.02),
    with gain_one_fills or with random_fills (seeded He-uniform weights: logits that differ); prove once at the preset, verify, and the attested probabilities against
    onnxruntime."""
    import numpy as np
    import onnx
    import onnxruntime as ort

    sys.path.insert(0, str(HERE))
    from common import peak_rss_mb

    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.onnx import load_onnx
    from luminair.prover.onnx.zoo import for_onnxruntime, gain_one_fills, random_fills, zoo_path
    from luminair.prover.proving import gen_settings, gen_trace, prove
    from luminair.verifier import verify

    shipped = onnx.load(str(zoo_path("squeezenet")))
    model = {"shipped": shipped, "gain_one": gain_one_fills(shipped), "random": random_fills(shipped)}[fills]
    name = model.graph.output[0].name
    shape = (1, 3, size, size)
    x = np.random.default_rng(0).uniform(0, 1, shape).astype(np.float32).astype(np.float64)
    out: dict[str, Any] = {"model": "squeezenet 1.1 (light_squeezenet.onnx) with its softmax", "fills": fills,
                           "input": list(shape), "output": name, "preset": preset}
    graph = load_onnx(model, {"data_0": shape}, resize_inputs=True)
    try:
        graph.run({"data_0": x}, exact=True)
        out["default_scale"] = "ran"
    except Exception as e:  # noqa: BLE001 - the refusal at one scale is the measurement
        out["default_scale"] = f"{type(e).__name__}: {e}"
    t = time.perf_counter()
    graph.compile(GenericCompiler(), StwoCompiler())
    cal = graph.calibrate_tensors([{"data_0": x}])
    out["compile_and_calibrate_s"] = round(time.perf_counter() - t, 2)
    out["calibration"] = cal.as_dict()
    t = time.perf_counter()
    settings = gen_settings(graph, preset=preset)
    out["settings_s"] = round(time.perf_counter() - t, 2)
    out["settings_bytes"] = len(settings.data)
    t = time.perf_counter()
    proof = prove(graph, gen_trace(graph, {"data_0": x}), settings)
    out["prove_s"] = round(time.perf_counter() - t, 2)
    out["proof_bytes"] = len(proof.data)
    t = time.perf_counter()
    r = verify(proof.data, settings.data, max_work=MAX_WORK)
    out["verify_s"] = round(time.perf_counter() - t, 2)
    out["verified"] = r.success
    out["verify_error"] = r.error_message
    out["security_bits"] = settings.security_bits
    out["peak_rss_mb"] = peak_rss_mb()
    sess = ort.InferenceSession(for_onnxruntime(model, shape, [name]).SerializeToString(),
                                providers=["CPUExecutionProvider"])
    ref = sess.run(None, {"data_0": x.astype(np.float32)})[0].astype(np.float64).reshape(-1)
    if r.success:
        attested = np.asarray(r.outputs[name]["values"], dtype=float)
        out["output_scale_bits"] = r.outputs[name]["scale_bits"]
        out["max_abs_error_vs_onnxruntime"] = float(np.max(np.abs(attested - ref)))
        out["top1_agrees"] = bool(attested.argmax() == ref.argmax()) if np.ptp(ref) > 0 else None
        out["probability_sum"] = float(attested.sum())
    out["max_probability"] = float(ref.max())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--preset", default="default")
    ap.add_argument("--size", type=int, default=31)
    ap.add_argument("--skip-zoo", action="store_true")
    ap.add_argument("--softmax", choices=("shipped", "gain_one", "random"), default=None,
                    help="only the whole SqueezeNet with its softmax, a scale per tensor (issue 27)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import onnx
    from common import machine

    from luminair.prover.onnx.zoo import ZOO

    report: dict[str, Any] = {"benchmark": "zoo", "onnx": onnx.__version__, "machine": machine()}
    if args.softmax:
        report["squeezenet_softmax"] = squeezenet_softmax(args.size, args.preset, args.softmax)
        text = json.dumps(report, indent=2)
        print(text)
        if args.out:
            args.out.write_text(text + "\n")
        return
    if not args.skip_zoo:
        report["zoo_224"] = [_in_process(_zoo_one, name) for name in ZOO]
    report["squeezenet"] = squeezenet(args.size, args.preset, args.runs)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
