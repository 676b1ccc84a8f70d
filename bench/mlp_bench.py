"""The three example MLPs (ONNX + input.json): prove time per stage, verify time (CPython), proof
and settings size, and peak memory, each model in a fresh process.

    python bench/mlp_bench.py [--runs 3] [--preset default] [--models mlp_16_16_4 ...] [--out DIR]

`verify_first_ms` is the first verification in the fresh process (no cache of any kind; table
roots are pinned constants); `--out DIR` keeps each model's DIR/<model>/proof.bin + settings.bin
for the Pyodide bench (`node bench/web/pyodide_vs_cpython.mjs DIR/<model>/proof.bin ...`)."""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"


def _run(model: str, preset: str, runs: int, q: mp.Queue, out: str | None = None) -> None:
    sys.path.insert(0, str(HERE))
    from common import med_ms, peak_rss_mb, timed

    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json
    from luminair.verifier import verify

    cx = load_model(EXAMPLES / model / "network.onnx")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = read_input_json(EXAMPLES / model / "input.json", cx)
    settings_t, settings = timed(lambda: cx.gen_settings(preset=preset), 1)
    trace_t, trace = timed(lambda: cx.gen_trace(feed), runs)
    proofs = []
    prove_t, _ = timed(lambda: proofs.append(cx.prove(trace, settings)), runs)
    proof = proofs[-1]
    if out:
        proof.write(Path(out) / model / "proof.bin")
        settings.write(Path(out) / model / "settings.bin")
    verify_t, r = timed(lambda: verify(proof.data, settings.data), max(runs, 5))
    assert r.success, r.error_message
    stages = {k: round(statistics.median(p.stats.stages[k] for p in proofs), 3) for k in proof.stats.stages}
    q.put({
        "model": model,
        "rows": {p.component.name: p.rows for p in settings.plans},
        "settings_s": round(settings_t[0], 3),
        "trace_generation_ms": med_ms(trace_t),
        "prove_s": round(statistics.median(prove_t), 3),
        "prove_s_runs": [round(t, 3) for t in prove_t],
        "prove_stages_s": stages,
        "verify_ms": med_ms(verify_t),
        "verify_first_ms": round(verify_t[0] * 1000, 1),
        "verify_ms_runs": [round(t * 1000, 1) for t in verify_t],
        "proof_bytes": len(proof.data),
        "settings_bytes": len(settings.data),
        "peak_rss_mb": peak_rss_mb(),
    })


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--preset", default="default")
    ap.add_argument("--models", nargs="*", default=["mlp_16_16_4", "mlp_64_64_10", "mlp_784_128_10"])
    ap.add_argument("--out", default=None, help="keep each model's proof.bin + settings.bin under this folder")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from common import machine

    from luminair.verifier.config import PRESETS

    ctx = mp.get_context("spawn")
    results = []
    for model in args.models:
        q = ctx.Queue()
        p = ctx.Process(target=_run, args=(model, args.preset, args.runs, q, args.out))
        p.start()
        results.append(q.get())
        p.join()
        res = results[-1]
        print(f"# {model}: prove {res['prove_s']} s, verify {res['verify_ms']} ms, {res['proof_bytes']} B, "
              f"{res['peak_rss_mb']} MB", file=sys.stderr)
    cfg = PRESETS[args.preset]
    print(json.dumps({"benchmark": "mlps", "preset": args.preset, "security_bits": cfg.security_bits,
                      "machine": machine(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
