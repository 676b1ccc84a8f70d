"""Segmented against whole proofs (issue 30), same run: proof size, verification time, proving wall
time and peak RSS, for the project's MLP 784-128-10, CNN (~250k parameters) and transformer
(~230k parameters) examples and SqueezeNet 1.1 at 64x64 (`squeezenet_64`, the onnx wheel's), whole
and in 2 and 4 segments; then the segments on Ray with one and two local workers (wall time, each
worker's peak RSS) and the critical path computed from the per-task times (what as many machines
as segments would take). SqueezeNet at its native 224x224 (`squeezenet_224`, no whole proof: its
trace passes one verifier's bounds; seeded random weights, so that its logits differ by class) in
the fewest segments whose estimated peaks fit 8 GiB (`--modes 8Gx0,8Gx2`), its verified outputs
against the whole graph's exact run.

    python bench/segments_bench.py [--models mlp_784_128_10,cnn_cifar,transformer_tiny] [--runs 3]
                                   [--out bench/results/segments_issue30.json]

Every proof runs in a fresh process (the Python API, as `luminair prove` loads ONNX files: a scale
per tensor from the input); `verify(proof, settings)` in another, `--runs` times: the first call
(cold) and the best later one (warm), medians over the runs. Segmented and whole proofs must attest
the same outputs."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile

import numpy as np
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from committed_bench import VERIFY, _env  # noqa: E402  (the same fresh-process verify)
from common import machine  # noqa: E402

PY = sys.executable
MODELS = ["mlp_784_128_10", "cnn_cifar", "transformer_tiny"]
ONNX_FILE = {"gpt_torch": "gpt_opset17.onnx"}  # (a torch export: token ids into Gather)
MAX_WORK = {"squeezenet_64": 10**8, "squeezenet_224": 10**8}  # settings.bin past the default 4 MiB cap

PROVE = r"""
import json, resource, sys, time
from pathlib import Path
model, inp, out, mode = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4]
t0 = time.perf_counter()
from luminair.prover.cli.prove import _calibrate_tensors
from luminair.prover import GenericCompiler, StwoCompiler
from luminair.prover.onnx import load_onnx
from luminair.prover.graph.model_file import read_input_json
from luminair.prover.proving import gen_settings, gen_trace, prove
import json as _j
if model.startswith("squeezenet_"):  # the onnx wheel's SqueezeNet 1.1 at 64x64 (as bench/committed_bench.py) or 224x224
    import numpy as np, onnx
    from luminair.prover.onnx.zoo import gain_one_fills, random_fills, zoo_path
    side = int(model.split("_")[1])
    shape = (1, 3, side, side)
    fills = gain_one_fills if side == 64 else lambda m: random_fills(m, seed=0)  # (224: logits that differ by class)
    graph = load_onnx(fills(onnx.load(str(zoo_path("squeezenet")))), {"data_0": shape}, resize_inputs=True,
                      outputs=["r65"])
    graph.compile(GenericCompiler(), StwoCompiler())
    inputs = {"data_0": np.random.default_rng(0).uniform(0, 1, shape).astype(np.float32).astype(np.float64)}
    if side > 64:  # (a scale per tensor: the 13x13 global average's sum passes 2^10's range)
        _calibrate_tensors(graph, [inputs])
else:
    graph = load_onnx(model)
    data = _j.load(open(inp))
    graph.compile(GenericCompiler(), StwoCompiler())
    inputs = read_input_json(data, graph)
    _calibrate_tensors(graph, [inputs])
settings = gen_settings(graph, whole=mode == "whole")  # (segments: sized for their traces, as luminair prove)
out.mkdir(parents=True, exist_ok=True)
(out / "settings.bin").write_bytes(settings.data)
t = time.perf_counter()
extra = {}
if mode == "whole":
    proof = prove(graph, gen_trace(graph, inputs), settings)
else:
    from luminair.prover.segments import prove_segmented
    n, workers = mode.split("x")
    sched = None
    if int(workers):
        from luminair.prover.scheduler import RayScheduler
        sched = RayScheduler(num_cpus=int(workers))
    # "N": N segments; "mG": the fewest segments whose estimated peaks fit m GiB
    segs, mem = (None, int(n[:-1]) << 30) if n.endswith("G") else (int(n), None)
    trace = gen_trace(graph, inputs)
    exact = {k: v.tolist() for k, v in trace.outputs.items()}  # the whole graph's exact run
    proof = prove_segmented(graph, inputs, settings, segments=segs, max_memory=mem, scheduler=sched, trace=trace)
    extra = {"segments": proof.segments, "critical_path_s": proof.critical_path_s, "exact_outputs": exact,
             "max_process_peak_rss_mb": max(s["process_peak_rss_mb"] for s in proof.segments)}
prove_s = time.perf_counter() - t
(out / "proof.bin").write_bytes(proof.data)
print(json.dumps({"prove_s": prove_s, "total_s": time.perf_counter() - t0, "proof_bytes": len(proof.data),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra}))
"""

def _run(code: str, *args: str) -> dict:
    out = subprocess.run([PY, "-c", code, *args], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=3600)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench(model: str, modes: list[str], runs: int, files: Path) -> dict:
    d = ROOT / "examples" / model  # (squeezenet_64: the onnx wheel's, built in the proving process)
    res: dict = {}
    for mode in modes:
        rows = []
        for _ in range(runs):
            out = files / model / mode
            onnx_file = model if model.startswith("squeezenet_") else str(d / ONNX_FILE.get(model, "network.onnx"))
            p = _run(PROVE, onnx_file, str(d / "input.json"), str(out), mode)
            budget = [str(MAX_WORK[model])] if model in MAX_WORK else []  # (past the default caps: granted)
            v = _run(VERIFY, str(out / "proof.bin"), str(out / "settings.bin"), *budget)
            rows.append((p, v))
            print(model, mode, {k: p[k] for k in ("prove_s", "proof_bytes", "peak_rss_mb")},
                  {k: v[k] for k in ("cold_s", "warm_s", "success", "kind")}, file=sys.stderr)
            v["outputs"] = {k: o["values"] for k, o in (v["outputs"] or {}).items()}
            if "exact_outputs" in p:  # the verifier's outputs against the whole graph's exact run
                v["equal_exact_run"] = v["outputs"] == {k: list(np.ravel(o)) for k, o in p.pop("exact_outputs").items()}
        p0, v0 = rows[0]
        res[mode] = {
            "prove_s_median": statistics.median(p["prove_s"] for p, _ in rows),
            "peak_rss_mb_median": statistics.median(p["peak_rss_mb"] for p, _ in rows),
            "proof_bytes": p0["proof_bytes"],
            "verify_cold_s_median": statistics.median(v["cold_s"] for _, v in rows),
            "verify_warm_s_median": statistics.median(v["warm_s"] for _, v in rows),
            "verified": all(v["success"] for _, v in rows), "kind": v0["kind"], "error": v0["error"],
            "critical_path_s_median": statistics.median(p["critical_path_s"] for p, _ in rows) if "critical_path_s" in p0 else None,
            "segments": p0.get("segments"),
            "max_process_peak_rss_mb_median": statistics.median(p.get("max_process_peak_rss_mb", p["peak_rss_mb"])
                                                                for p, _ in rows),
            "outputs_equal_whole_exact_run": all(v.get("equal_exact_run", True) for _, v in rows),
            "outputs": v0["outputs"],
        }
    whole = res.get("whole", {}).get("outputs")
    for mode, r in res.items():  # (None: no whole proof, as SqueezeNet at 224x224)
        r["same_outputs_as_whole"] = (None if whole is None else r["outputs"] == whole) if mode != "whole" else True
    for r in res.values():
        r.pop("outputs")
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--modes", default="whole,2x0,4x0,4x1,4x2", help="whole, or NxW: N segments on W Ray workers (0: in-process)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "results" / "segments_issue30.json"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {m: bench(m, a.modes.split(","), a.runs, Path(tmp)) for m in a.models.split(",")}
    doc = {"machine": machine(), "runs": a.runs, "results": results}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(doc, indent=2))
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
