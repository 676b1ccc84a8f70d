"""Batches: one symbolic settings.bin per model, proofs for many inputs at once, cost per inference
against batch size (issue 12).

    python bench/batch_bench.py [--models 64 128] [--batches 1 4 16 64 256] [--runs 3] [--out FILE] [--keep DIR]

The models are the examples' MLPs 784-128-10 and 64-64-10 with the batch axis made an ONNX dynamic
axis ("batch", range 1..256). For each model the settings are made once (default preset); each
batch size then runs in a fresh process (peak RSS is that process's): bind the settings to the
batch size, execute, `--runs` proofs (median), one verification. Reported per batch: prove seconds,
seconds and inferences per second per inference, proof bytes, verify ms, peak RSS; per model, the
per-inference cost at the largest batch over the cost at batch 1."""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
EXAMPLES = HERE.parent / "examples"
MODELS = {64: EXAMPLES / "mlp_64_64_10" / "network.onnx", 128: EXAMPLES / "mlp_784_128_10" / "network.onnx"}
# the symbol's range (784-128-10's product reads a (batch, 128, 784) broadcast view: at most
# spec.MAX_VIEW_NUMEL = 2^26 elements, batch 668)
MAX_BATCH = {64: 256, 128: 256}


def dynamic_batch(path: Path) -> bytes:
    """The ONNX model with its inputs' and outputs' first axis renamed to the dynamic axis "batch"."""
    import onnx

    model = onnx.load(str(path))
    for vi in list(model.graph.input) + list(model.graph.output):
        dim = vi.type.tensor_type.shape.dim[0]
        dim.ClearField("dim_value")
        dim.dim_param = "batch"
    return model.SerializeToString()


def _settings(model_bytes: bytes, folder: str, max_batch: int, q: mp.Queue) -> None:
    import time

    import onnx

    from luminair.prover.symbolic import SymbolicModel

    t = time.perf_counter()
    settings = SymbolicModel(onnx.load_from_string(model_bytes), {"batch": (1, max_batch)}).gen_settings()
    settings.write(Path(folder) / "settings.bin")
    q.put({"settings_s": round(time.perf_counter() - t, 3), "settings_bytes": len(settings.data)})


def _batch(model_bytes: bytes, folder: str, max_batch: int, batch: int, runs: int, keep: str | None, q: mp.Queue) -> None:
    import time

    import numpy as np

    from common import peak_rss_mb, timed
    from luminair.prover.proving import gen_trace, prove
    from luminair.prover.symbolic import SymbolicSettings, shape_inputs
    from luminair.verifier import verify
    from luminair.verifier.statement import read_settings

    data = (Path(folder) / "settings.bin").read_bytes()
    settings = SymbolicSettings(data, read_settings(data))
    n_in = settings.parsed.body.nodes[settings.parsed.body.inputs[0].node].shape[1]
    xs = np.random.default_rng(batch).uniform(0, 1, (batch, n_in))
    t = time.perf_counter()
    bound, graph = settings.bind({"batch": batch})
    bind_s = time.perf_counter() - t
    trace = gen_trace(graph, shape_inputs(graph, {settings.parsed.body.inputs[0].name: xs}))
    proofs: list = []
    prove_t, _ = timed(lambda: proofs.append(prove(graph, trace, bound)), runs)
    verify_t, r = timed(lambda: verify(proofs[-1].data, data, max_work=10**9), 1)
    if keep:
        (Path(keep) / f"proof_batch{batch}.bin").write_bytes(proofs[-1].data)
    prove_s = statistics.median(prove_t)
    q.put({
        "batch": batch, "bind_s": round(bind_s, 3), "prove_s": round(prove_s, 3),
        "prove_s_runs": [round(x, 3) for x in prove_t], "prove_s_per_inference": round(prove_s / batch, 4),
        "inferences_per_s": round(batch / prove_s, 2), "proof_bytes": len(proofs[-1].data),
        "verify_ms": round(1000 * verify_t[0], 1), "verified": r.success, "symbols": r.symbols,
        "trace_rows": sum(1 << p.component.log_size for p in bound.plans), "peak_rss_mb": peak_rss_mb(),
    })


def _in_process(target, *args):  # noqa: ANN001, ANN202 - a fresh process per measurement
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(*args, q))
    p.start()
    p.join()
    if p.exitcode != 0:
        return {"error": f"exit code {p.exitcode}"}
    return q.get()


def main() -> None:
    from common import machine

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, nargs="+", default=[64, 128], choices=sorted(MODELS),
                    help="hidden width: 64 (MLP 64-64-10) or 128 (MLP 784-128-10)")
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 4, 16, 64, 256])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--keep", default=None, metavar="DIR",
                    help="keep DIR/MODEL/settings.bin and proof_batchB.bin (e.g. for bench/web/pyodide_vs_cpython.mjs)")
    args = ap.parse_args()
    report = {"machine": machine(), "preset": "default", "runs": args.runs, "models": {}}
    for hidden in args.models:
        model_bytes = dynamic_batch(MODELS[hidden])
        name = "mlp_64_64_10" if hidden == 64 else "mlp_784_128_10"
        with tempfile.TemporaryDirectory() as folder:
            entry = {"settings": _in_process(_settings, model_bytes, folder, MAX_BATCH[hidden]), "batches": []}
            for b in args.batches:
                if b > MAX_BATCH[hidden]:
                    entry["batches"].append({"batch": b, "skipped": f"above the model's largest batch {MAX_BATCH[hidden]}"})
                    continue
                keep = None
                if args.keep:
                    keep = str(Path(args.keep) / name)
                    Path(keep).mkdir(parents=True, exist_ok=True)
                    (Path(keep) / "settings.bin").write_bytes((Path(folder) / "settings.bin").read_bytes())
                entry["batches"].append(_in_process(_batch, model_bytes, folder, MAX_BATCH[hidden], b, args.runs, keep))
                print(json.dumps({name: entry["batches"][-1]}), file=sys.stderr, flush=True)
        done = [e for e in entry["batches"] if "prove_s_per_inference" in e]
        if len(done) >= 2 and done[0]["batch"] == 1:
            entry["per_inference_ratio_largest_to_1"] = round(done[-1]["prove_s_per_inference"] / done[0]["prove_s_per_inference"], 3)
        report["models"][name] = entry
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
