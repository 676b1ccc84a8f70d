"""LuminAIR's per-op suite: each primitive alone on 32x32 inputs (uniform in [-0.5, 0.5), seed 42,
positive ranges where the op needs them). Prove time, verify time (CPython), proof size.

    python bench/ops_bench.py [--runs 5] [--preset default] [--luminair-config]

--luminair-config also runs LuminAIR's own proof configuration (pow 5, blowup 2, 3 queries:
8 conjectured bits), so the comparison with its published numbers is like for like."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, med_ms, timed  # noqa: E402

from luminair.prover import GenericCompiler, Graph, StwoCompiler  # noqa: E402
from luminair.verifier import verify  # noqa: E402
from luminair.verifier.config import PRESETS, PcsConfig  # noqa: E402

LUMINAIR_CONFIG = PcsConfig(pow_bits=5, log_blowup=1, n_queries=3)

OPS = {
    "Add": (lambda x, y: x + y, (-0.5, 0.5), (-0.5, 0.5)),
    "Mul": (lambda x, y: x * y, (-0.5, 0.5), (-0.5, 0.5)),
    "Rem": (lambda x, y: x % y, (-0.5, 0.5), (0.1, 0.5)),
    "LessThan": (lambda x, y: x.less_than(y), (-0.5, 0.5), (-0.5, 0.5)),
    "Recip": (lambda x, y: x.recip(), (0.1, 0.5), None),
    "Sqrt": (lambda x, y: x.sqrt(), (0.0, 0.5), None),
    "Log2": (lambda x, y: x.log2(), (0.05, 0.5), None),
    "Exp2": (lambda x, y: x.exp2(), (-0.5, 0.5), None),
    "Sin": (lambda x, y: x.sin(), (-0.5, 0.5), None),
    "SumReduce": (lambda x, y: x.sum_reduce(1), (-0.5, 0.5), None),
    "MaxReduce": (lambda x, y: x.max_reduce(1), (-0.5, 0.5), None),
    "Contiguous": (lambda x, y: x.permute(1, 0).contiguous(), (-0.5, 0.5), None),
}


def bench_op(name: str, config: PcsConfig, runs: int) -> dict:
    fn, rx, ry = OPS[name]
    rng = np.random.default_rng(42)
    cx = Graph()
    x = cx.input("x", (32, 32))
    y = cx.input("y", (32, 32)) if ry else None
    fn(x, y).output("out")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = {"x": rng.uniform(*rx, (32, 32))}
    if ry:
        feed["y"] = rng.uniform(*ry, (32, 32))
    settings = cx.gen_settings(config=config)
    trace_t, trace = timed(lambda: cx.gen_trace(feed), runs)
    cx.prove(trace, settings)  # warm-up: table commitments are cached per process
    prove_t, proof = timed(lambda: cx.prove(trace, settings), runs)
    verify_t, r = timed(lambda: verify(proof.data, settings.data, min_security_bits=0), max(runs, 5))
    assert r.success, r.error_message
    return {
        "op": name,
        "trace_generation_ms": med_ms(trace_t),
        "prove_ms": med_ms(prove_t),
        "prove_ms_runs": [round(t * 1000, 1) for t in prove_t],
        "verify_ms": med_ms(verify_t),
        "proof_bytes": len(proof.data),
        "components": [(p.component.name, 1 << p.component.log_size) for p in settings.plans],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--preset", default="default")
    ap.add_argument("--luminair-config", action="store_true")
    ap.add_argument("--ops", nargs="*", default=sorted(OPS))
    args = ap.parse_args()
    configs = {args.preset: PRESETS[args.preset]}
    if args.luminair_config:
        configs["luminair-8bit"] = LUMINAIR_CONFIG
    out = {"benchmark": "ops_32x32", "machine": machine(), "runs": args.runs, "results": {}}
    for label, cfg in configs.items():
        rows = []
        for op in args.ops:
            rows.append(bench_op(op, cfg, args.runs))
            print(f"# {label} {op}: prove {rows[-1]['prove_ms']} ms, verify {rows[-1]['verify_ms']} ms, "
                  f"{rows[-1]['proof_bytes']} B", file=sys.stderr)
        out["results"][label] = {"security_bits": cfg.security_bits, "config": cfg.__dict__, "ops": rows}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
