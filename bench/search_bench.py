"""The search compiler (prover/compile/search.py) against the hand-written pipeline, per model:
committed trace cells, prove time and proof size with and without the search (medians of --runs
proofs, at --preset), the search's own time, and whether the attested outputs are the same bit for
bit. The CNN and transformer examples are compiled, not proven (about 10 GB and 100 s a proof):
cells and search time only.

    python bench/search_bench.py [--runs 3] [--preset default] [--models small_cnn cnn_cifar ...]

Models: tests/compile/search_models.py (the MLP examples, a small CNN, attention blocks with and
without a causal mask, a pre-norm residual block with layer norm, examples/cnn_cifar and
examples/transformer_tiny)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import machine


def _models() -> Any:
    path = HERE.parent / "tests" / "compile" / "search_models.py"
    spec = importlib.util.spec_from_file_location("search_models", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _prove(graph: Any, feed: dict, preset: str, runs: int) -> dict[str, Any]:
    from luminair.verifier import verify

    settings = graph.gen_settings(preset=preset)
    times, grind, proof = [], [], None
    for _ in range(runs):
        t = time.perf_counter()
        trace = graph.gen_trace(feed)
        proof = graph.prove(trace, settings)
        times.append(time.perf_counter() - t)
        grind.append(proof.stats.stages.get("proof of work", 0.0))
    r = verify(proof.data, settings.data, min_security_bits=0)
    if not r.success:
        raise RuntimeError(f"a proof did not verify: {r.error_message}")
    # The proof-of-work grind depends on the transcript (the same for every run of one graph, a new
    # draw for another graph), so on small models it decides the prove time: reported apart.
    return {"prove_s": round(statistics.median(times), 3), "proof_of_work_s": round(statistics.median(grind), 3),
            "prove_without_pow_s": round(statistics.median(t - g for t, g in zip(times, grind)), 3),
            "proof_bytes": len(proof.data)}


def measure(name: str, build: Any, runs: int, preset: str, prove: bool) -> dict[str, Any]:
    m = _models()
    out: dict[str, Any] = {"model": name}
    graphs = {}
    for search in (False, True):
        compile_times, search_times = [], []
        for _ in range(runs):
            t = time.perf_counter()
            g, feed, stwo = m.compiled(build, search)
            compile_times.append(time.perf_counter() - t)
            if stwo.search_report is not None:
                search_times.append(stwo.search_report.time_s)
        key = "searched" if search else "hand_written"
        out[key] = {"nodes": len(g), "cells": m.committed_cells(g),
                    "compile_s": round(statistics.median(compile_times), 3)}
        if search:
            out[key]["search_s"] = round(statistics.median(search_times), 3)
            out[key]["rewrites"] = stwo.search_report.rewrites
            out[key]["saturated"] = stwo.search_report.saturated
        if prove:
            out[key].update(_prove(g, feed, preset, runs))
        graphs[search] = (g, feed)
    (a, feed), (b, _) = graphs[False], graphs[True]
    ra, rb = a.run(feed, exact=True), b.run(feed, exact=True)
    out["same_outputs_bit_for_bit"] = all(np.array_equal(ra[k], rb[k]) for k in ra)
    out["cells_ratio"] = round(out["searched"]["cells"] / out["hand_written"]["cells"], 4)
    return out


def main() -> None:
    m = _models()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--preset", default="default", choices=["fast", "default", "secure"])
    ap.add_argument("--models", nargs="*", default=None, help=f"from {sorted({**m.SMALL_MODELS, **m.LARGE_MODELS})}")
    args = ap.parse_args()
    models = {**m.SMALL_MODELS, **m.LARGE_MODELS}
    names = args.models or list(models)
    unknown = [n for n in names if n not in models]
    if unknown:
        ap.error(f"unknown model(s) {unknown}; choose from {sorted(models)}")
    results = [measure(n, models[n], args.runs, args.preset, prove=n in m.SMALL_MODELS) for n in names]
    print(json.dumps({"bench": "search", "runs": args.runs, "preset": args.preset, "machine": machine(),
                      "models": results}, indent=2))


if __name__ == "__main__":
    main()
