"""Issue 9's larger models, proven end to end from ONNX: the nanoGPT-like decoder
(examples/transformer_tiny), the CIFAR-style CNN (examples/cnn_cifar), two torch exports of a
nanoGPT (examples/gpt_torch: int64 token ids into a Gather) and, for reference, the MLP
784-128-10. Each model runs in a fresh process (spawn), so its peak RSS is its own: load ONNX,
compile (GenericCompiler, StwoCompiler), gen_settings, gen_trace, prove, verify (CPython). Where the
default verifier refuses a pair of files for its work budget, the refusal is recorded and the pair
is verified with --max-work.

    python bench/models_bench.py [--runs 3] [--preset default] [--models transformer_tiny ...]
                                 [--out bench/results/models.json] [--max-work UNITS]

Per model: medians over --runs of prove and verify time, settings and trace time, proof and
settings size, peak RSS of the model's process (ru_maxrss, read right after the last verify, before
the float reference runs), parameter count, committed trace cells per component, and the accuracy of
the attested (fixed-point) outputs: max |exact - float64 graph run| and max |exact - onnxruntime|
(onnxruntime runs in the parent process, outside the measured one), with the largest derived
worst-case error bound (luminair.prover.graph.error_bound; inf where the bound is not finite)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing as mp
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
MODELS = ["transformer_tiny", "cnn_cifar", "mlp_784_128_10", "gpt_torch/gpt_opset13.onnx", "gpt_torch/gpt_opset17.onnx",
          "gpt_torch/gpt_opset13.onnx#private=input_ids", "gpt_torch/gpt_opset17.onnx#private=input_ids"]


PRIVATE = "#private="  # "<model>#private=<input>": that ONNX input kept out of proof.bin


def _files(model: str) -> tuple[Path, Path]:
    """(model file, input.json): a folder's network.onnx, or an .onnx file beside its input.json."""
    model = model.split(PRIVATE)[0]
    path = EXAMPLES / model if model.endswith(".onnx") else EXAMPLES / model / "network.onnx"
    return path, path.parent / "input.json"


def _make_models_module() -> Any:
    spec = importlib.util.spec_from_file_location("make_models", EXAMPLES / "make_models.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(model: str, preset: str, runs: int, max_work: int, q: mp.Queue) -> None:
    try:
        q.put(_measure(model, preset, runs, max_work))
    except BaseException as e:  # report the failure instead of leaving the parent waiting
        import traceback

        q.put({"model": model, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()})


def _measure(model: str, preset: str, runs: int, max_work: int) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    import numpy as np
    from common import med_ms, peak_rss_mb, timed

    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.error_bound import error_bound
    from luminair.prover.graph.model_file import load_model, read_input_json
    from luminair.verifier import verify
    from luminair.verifier.graph.planner import plan_graph
    from luminair.prover.costs import plan_cells

    t = time.perf_counter()
    path, inputs = _files(model)
    private = model.split(PRIVATE)[1:]
    cx = load_model(path, private_inputs=private) if private else load_model(path)
    cx.compile(GenericCompiler(), StwoCompiler())
    compile_s = time.perf_counter() - t
    feed = read_input_json(inputs, cx)
    settings_t, settings = timed(lambda: cx.gen_settings(preset=preset), 1)
    trace_t, trace = timed(lambda: cx.gen_trace(feed), runs)
    proofs: list[Any] = []
    prove_t, _ = timed(lambda: proofs.append(cx.prove(trace, settings)), runs)
    proof = proofs[-1]
    # the default verifier refuses pairs that declare more than its work budget (about 1 s of
    # CPython): record that refusal, then verify with a budget that admits the pair
    first = verify(proof.data, settings.data)
    default_refusal = None if first.success else first.error_message
    verify_t, r = timed(lambda: verify(proof.data, settings.data, max_work=max_work if default_refusal else None),
                        runs)
    if not r.success:
        raise RuntimeError(f"the proof of {model} does not verify: {r.error_message}")
    peak = peak_rss_mb()  # the proving pipeline's high-water mark (the float checks below come after)
    # the prover forks helpers (proof-of-work grinding): the largest of them, for completeness
    peak_children = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)

    components = [
        {"component": p.component.name, "nodes": len(p.nodes), "rows": p.rows, **plan_cells(plan_graph(settings.spec), p, settings.plans)}
        for p in settings.plans
    ]
    exact = {k: np.asarray(v) for k, v in trace.outputs.items()}
    flt = cx.run(feed)
    bound = error_bound(cx, feed)
    return {
        "model": model,
        "compile_s": round(compile_s, 3),
        "settings_s": round(settings_t[0], 3),
        "trace_generation_ms": med_ms(trace_t),
        "prove_s": round(statistics.median(prove_t), 3),
        "prove_s_runs": [round(x, 3) for x in prove_t],
        "prove_stages_s": {k: round(statistics.median(p.stats.stages[k] for p in proofs), 3)
                           for k in proof.stats.stages},
        "verify_ms": med_ms(verify_t),
        "default_verify_refusal": default_refusal,
        "verify_max_work": max_work if default_refusal else None,
        "proof_bytes": len(proof.data),
        "settings_bytes": len(settings.data),
        "peak_rss_mb": peak,
        "peak_rss_forked_helper_mb": peak_children,
        "trace_cells": sum(c["cells"] for c in components),
        "components": components,
        "graph_nodes": len(cx.nodes()),
        "exact_outputs": {k: v.reshape(-1).tolist() for k, v in exact.items()},
        "max_abs_exact_minus_float": {k: float(np.abs(exact[k].reshape(flt[k].shape) - flt[k]).max()) for k in exact},
        "max_error_bound": {k: float(bound[k].max()) for k in exact},
    }


def _onnxruntime_outputs(model: str) -> dict[str, Any]:
    import numpy as np
    import onnxruntime as ort

    path, inputs = _files(model)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    data = json.loads(inputs.read_text())["input_data"]
    feed = {i.name: np.asarray(d, np.int64 if i.type == "tensor(int64)" else np.float32)
            .reshape([int(s) if isinstance(s, int) else 1 for s in i.shape])
            for i, d in zip(sess.get_inputs(), data)}
    return {o.name: r for o, r in zip(sess.get_outputs(), sess.run(None, feed))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--preset", default="default")
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--out", default=str(HERE / "results" / "models.json"))
    ap.add_argument("--max-work", type=int, default=100_000_000,
                    help="verifier work budget used when the default one refuses a model's files")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import numpy as np
    from common import machine

    from luminair.verifier.config import PRESETS

    mm = _make_models_module()
    ctx = mp.get_context("spawn")
    results = []
    for model in args.models:
        q = ctx.Queue()
        p = ctx.Process(target=_run, args=(model, args.preset, args.runs, args.max_work, q))
        p.start()
        res = q.get()
        p.join()
        import onnx

        exclude = mm.LARGE[model][1] if model in mm.LARGE else ()  # (never a "#private=" name)
        res["parameters"] = mm.n_params(onnx.load(str(_files(model)[0])), exclude)
        if "error" not in res:
            ref = _onnxruntime_outputs(model)
            exact = res.pop("exact_outputs")
            res["max_abs_exact_minus_onnxruntime"] = {
                k: float(np.abs(np.asarray(exact[k]) - ref[k].reshape(-1)).max()) for k in exact
            }
            print(f"# {model}: {res['parameters']} params, prove {res['prove_s']} s, verify {res['verify_ms']} ms, "
                  f"{res['proof_bytes']} B, {res['peak_rss_mb']} MB, {res['trace_cells']} cells, "
                  f"|exact - ort| {res['max_abs_exact_minus_onnxruntime']}", file=sys.stderr)
        else:
            print(f"# {model}: {res['error']}", file=sys.stderr)
        results.append(res)
    report = {"benchmark": "models", "preset": args.preset, "security_bits": PRESETS[args.preset].security_bits,
              "runs": args.runs, "machine": machine(), "results": results}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
