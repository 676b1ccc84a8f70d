"""Proven training steps (TD-CLM, batch 32, MLPs on digit-like data): prove time per step and per
parameter, verify time (CPython), proof and settings size and peak memory, each model in a fresh
process.

    python bench/train_bench.py [--runs 3] [--preset default] [--models 64-64-10 784-128-10] [--batch 32]

Each run proves the next step of one chain (the step number, the noise and the weights change from
run to run; the program and its settings.bin are made once: `settings_s`). The inputs are random
pixels in [0, 1] and random labels (the cost does not depend on the values)."""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _run(sizes_text: str, batch: int, preset: str, runs: int, q: mp.Queue) -> None:
    sys.path.insert(0, str(HERE))
    import numpy as np
    from common import med_ms, peak_rss_mb, timed
    from luminair.prover.train import TDCLM, init_mlp, mlp_program, onehot
    from luminair.verifier import verify

    sizes = [int(s) for s in sizes_text.split("-")]
    t = time.perf_counter()
    prog = mlp_program(sizes, batch, TDCLM(lr=0.02), preset=preset)
    settings = prog.settings()
    settings_s = time.perf_counter() - t
    rng = np.random.default_rng(0)
    params, state = prog.quantize(init_mlp(sizes, 0)), prog.init_state()
    steps = []
    for i in range(runs):
        b = {
            "x": rng.uniform(0, 1, (batch, sizes[0])),
            "y": onehot(rng.integers(0, sizes[-1], batch), sizes[-1]),
        }
        r = prog.prove_step(params, state, b, i, 1)
        steps.append(r)
        params, state = r.new_params, r.new_state
    work = 500_000_000  # a training step declares more verifier work than the default budget
    verify_t, res = timed(
        lambda: verify(steps[-1].proof, steps[-1].settings, max_work=work, min_security_bits=0), max(runs, 3)
    )
    assert res.success, res.error_message
    n_params = sum(int(np.prod(s)) for s in prog.param_shapes.values())
    prove_s = statistics.median(r.prove_s for r in steps)
    q.put(
        {
            "model": f"MLP {sizes_text}",
            "batch": batch,
            "parameters": n_params,
            "nodes": len(prog.graph.nodes()),
            "rows": {p.component.name: p.rows for p in settings.plans},
            "settings_s": round(settings_s, 3),
            "prove_s_per_step": round(prove_s, 3),
            "prove_s_runs": [round(r.prove_s, 3) for r in steps],
            "prove_us_per_parameter": round(1e6 * prove_s / n_params, 1),
            "verify_ms": med_ms(verify_t),
            "proof_bytes": int(statistics.median(len(r.proof) for r in steps)),
            "settings_bytes": len(settings.data),
            "peak_rss_mb": peak_rss_mb(),
        }
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--preset", default="default")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--models", nargs="*", default=["64-64-10", "784-128-10"])
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from common import machine
    from luminair.verifier.config import PRESETS

    ctx = mp.get_context("spawn")
    results = []
    for model in args.models:
        q = ctx.Queue()
        p = ctx.Process(target=_run, args=(model, args.batch, args.preset, args.runs, q))
        p.start()
        results.append(q.get())
        p.join()
        res = results[-1]
        print(
            f"# MLP {model}: prove {res['prove_s_per_step']} s/step, verify {res['verify_ms']} ms, "
            f"{res['proof_bytes']} B, {res['peak_rss_mb']} MB",
            file=sys.stderr,
        )
    cfg = PRESETS[args.preset]
    print(
        json.dumps(
            {
                "benchmark": "train_step",
                "optimizer": "TD-CLM",
                "preset": args.preset,
                "security_bits": cfg.security_bits,
                "machine": machine(),
                "results": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
