"""Benchmark of the STARK core on the Fibonacci example AIR (issue 2).

    python bench/stark_bench.py [--sizes 10 14 16 18] [--columns 32] [--runs 3] [--preset default]

Prints one JSON document: per size, the median (and all runs) of prove time, verify time
(CPython), proof size, and the peak resident memory of the proving process. Each size runs in a
fresh process so peak memory is not inherited from a previous size.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))  # examples/example_airs.py


def _measure(log_size: int, columns: int, preset: str, runs: int, queue: mp.Queue) -> None:
    from example_airs import fibonacci_case
    from luminair.prover.stark.prove import ProveStats, prove_stark
    from luminair.verifier.config import PRESETS
    from luminair.verifier.formats import ProofFile
    from luminair.verifier.verify import verify_stark

    config = PRESETS[preset]
    t = time.perf_counter()
    air, main, pre = fibonacci_case(log_size, columns)
    trace_s = time.perf_counter() - t
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    prove_times, verify_times, stages = [], [], []
    proof_bytes, stark = b"", None
    for _ in range(runs):
        stats = ProveStats()
        t = time.perf_counter()
        stark = prove_stark(air, config, b"bench", main, pre, stats=stats)
        prove_times.append(time.perf_counter() - t)
        stages.append(stats.stages)
        proof_bytes = ProofFile(bytes(32), [], stark).to_bytes()
    rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(max(runs, 5)):
        t = time.perf_counter()
        verify_stark(air, config, b"bench", stark)  # the STARK core alone (no settings file: not a graph)
        verify_times.append(time.perf_counter() - t)
    regions = {k: b - a for k, (a, b) in __import__("luminair.verifier.formats", fromlist=["x"]).read_proof_file(proof_bytes).encode().regions().items()}
    queue.put(
        {
            "log_rows": log_size,
            "rows": 1 << log_size,
            "columns": columns,
            "trace_generation_s": round(trace_s, 3),
            "prove_s_median": round(statistics.median(prove_times), 3),
            "prove_s_runs": [round(x, 3) for x in prove_times],
            "prove_stages_s": {k: round(statistics.median(s[k] for s in stages), 3) for k in stages[0]},
            "verify_ms_median": round(1000 * statistics.median(verify_times), 2),
            "verify_ms_runs": [round(1000 * x, 2) for x in verify_times],
            "proof_bytes": len(proof_bytes),
            "proof_regions_bytes": regions,
            "peak_rss_mb": round(rss_peak / 1024, 1),
            "proving_rss_increase_mb": round((rss_peak - rss_before) / 1024, 1),
        }
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 14, 16, 18])
    ap.add_argument("--columns", type=int, default=32)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--preset", default="default")
    args = ap.parse_args()
    from luminair.verifier.config import PRESETS

    ctx = mp.get_context("spawn")
    results = []
    for size in args.sizes:
        q = ctx.Queue()
        p = ctx.Process(target=_measure, args=(size, args.columns, args.preset, args.runs, q))
        p.start()
        results.append(q.get())
        p.join()
        print(f"# 2^{size}: prove {results[-1]['prove_s_median']} s, verify {results[-1]['verify_ms_median']} ms, "
              f"{results[-1]['proof_bytes']} B", file=sys.stderr)
    cfg = PRESETS[args.preset]
    print(json.dumps({
        "benchmark": "stark_fibonacci",
        "preset": args.preset,
        "security_bits": cfg.security_bits,
        "config": cfg.__dict__,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "results": results,
    }, indent=2))


if __name__ == "__main__":
    main()
