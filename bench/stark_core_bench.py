"""Byte-identity pins and timings of the numpy STARK core (prover/stark), optionally run against
another copy of that package, so an optimisation can be checked and timed against the code it
replaces in the same working tree (the AIR code around it may be changing at the same time).

    python bench/stark_core_bench.py digests [--stark-dir DIR] [--heavy]
    python bench/stark_core_bench.py mlp [--stark-dir DIR] [--model mlp_784_128_10] [--runs 3] [--preset default]
    python bench/stark_core_bench.py kernels [--stark-dir DIR] [--runs 5]
    python bench/stark_core_bench.py compare --ref-dir DIR [--rounds 3] [--model ...]

`--stark-dir DIR` makes `luminair.prover.stark` load its modules from DIR (e.g. a copy taken with
`git archive HEAD prover/stark | tar -x -C /tmp/ref --strip-components=2`). `digests` prints the
sha256 of the proof bytes of a fixed set of statements; two runs must print the same digests.
`compare` interleaves baseline and new runs (the machine is noisy) and reports medians of wall
and CPU time. Every command prints one JSON document.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
sys.path.insert(0, str(EXAMPLES))  # examples/example_airs.py


def _use_stark_dir(stark_dir: str | None) -> None:
    if stark_dir:
        import luminair.prover.stark as pkg

        pkg.__path__[:] = [str(Path(stark_dir).resolve())]


def _mlp(model: str, preset: str):
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json

    cx = load_model(EXAMPLES / model / "network.onnx")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = read_input_json(EXAMPLES / model / "input.json", cx)
    settings = cx.gen_settings(preset=preset)
    trace = cx.gen_trace(feed)
    return cx, settings, trace


def cmd_digests(args: argparse.Namespace) -> dict:
    from example_airs import prove_example
    from luminair.verifier.config import PRESETS, PcsConfig
    from luminair.verifier.formats import ProofFile

    out: dict[str, str] = {}
    h = lambda b: hashlib.sha256(b).hexdigest()[:16]  # noqa: E731
    for name, params, preset in [
        ("fibonacci", {"log_size": 4, "n_columns": 8}, "fast"),
        ("fibonacci", {"log_size": 11, "n_columns": 8}, "default"),
        ("fibonacci", {"log_size": 14, "n_columns": 8}, "fast"),
        ("square_lookup", {"log_size": 10, "table_log_size": 6}, "fast"),
        ("square_lookup", {"log_size": 13, "table_log_size": 10}, "default"),
    ]:
        proof = prove_example(name, params, PRESETS[preset])[2]
        out[f"{name}{params}/{preset}"] = h(ProofFile(bytes(32), [], proof).to_bytes())
    for cfg in [PcsConfig(4, 1, 5, 0), PcsConfig(0, 3, 6, 2), PcsConfig(2, 2, 8, 3)]:
        proof = prove_example("fibonacci", {"log_size": 6, "n_columns": 5}, cfg)[2]
        out[f"fibonacci6/{cfg}"] = h(ProofFile(bytes(32), [], proof).to_bytes())
    models = [("mlp_16_16_4", "fast"), ("mlp_64_64_10", "default"), ("mlp_16_16_4", "secure")]
    if args.heavy:
        models.append(("mlp_784_128_10", "default"))
    for model, preset in models:
        try:  # the graph code around the core may be mid-change: record, do not stop
            cx, settings, trace = _mlp(model, preset)
            out[f"{model}/{preset}"] = h(cx.prove(trace, settings).data)
        except Exception as e:  # noqa: BLE001
            out[f"{model}/{preset}"] = f"error: {type(e).__name__}: {e}"
    return out


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _fibonacci_prover(name: str, preset: str):
    """`fibonacci_<log rows>x<columns>`: the example AIR, as a prove() returning its stage times."""
    from example_airs import fibonacci_case
    from luminair.prover.stark.prove import ProveStats, prove_stark
    from luminair.verifier.config import PRESETS

    log, cols = (int(v) for v in name.split("_")[1].split("x"))
    air, main, pre = fibonacci_case(log, cols)

    def prove() -> dict:
        stats = ProveStats()
        prove_stark(air, PRESETS[preset], b"bench", main, pre, stats=stats)
        return stats.stages

    return prove


def cmd_mlp(args: argparse.Namespace) -> dict:
    """One model's prove time (an example MLP, or `fibonacci_<log rows>x<columns>`)."""
    if args.model.startswith("fibonacci_"):
        prove = _fibonacci_prover(args.model, args.preset)
    else:
        cx, settings, trace = _mlp(args.model, args.preset)
        prove = lambda: cx.prove(trace, settings).stats.stages  # noqa: E731
    walls, cpus, stages = [], [], []
    for _ in range(args.runs):
        t, c = time.perf_counter(), _cpu()
        st = prove()
        walls.append(time.perf_counter() - t)
        cpus.append(_cpu() - c)
        stages.append(st)
    return {
        "model": args.model,
        "preset": args.preset,
        "prove_s": round(statistics.median(walls), 3),
        "prove_s_runs": [round(x, 3) for x in walls],
        "cpu_s": round(statistics.median(cpus), 3),
        "stages_s": {k: round(statistics.median(s[k] for s in stages), 3) for k in stages[0]},
    }


def _best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cmd_kernels(args: argparse.Namespace) -> dict:
    import numpy as np

    from luminair.prover.stark import circle_fft as cf
    from luminair.prover.stark.merkle_tree import MerkleTree
    from luminair.verifier.channel import Channel
    from luminair.verifier.fields import P

    rng = np.random.default_rng(1)
    out: dict[str, object] = {}
    fft = {}
    for log in (12, 16, 18, 20):
        cols = max(2, min(16, (1 << 22) >> log))
        data = rng.integers(0, P, size=(cols, 1 << log), dtype=np.uint64)
        cf.circle_evaluate(data[:2])  # twiddles
        fwd = _best(lambda: cf.circle_evaluate(data), args.runs)
        inv = _best(lambda: cf.circle_interpolate(data), args.runs)
        fft[str(log)] = {"columns": cols, "evaluate_ms_per_column": round(1000 * fwd / cols, 3),
                         "interpolate_ms_per_column": round(1000 * inv / cols, 3)}
    out["fft"] = fft
    merkle = {}
    for log, ncols in ((16, 8), (18, 8), (20, 2)):
        cols = [rng.integers(0, P, size=1 << log, dtype=np.uint64) for _ in range(ncols)]
        t = _best(lambda: MerkleTree(cols), args.runs)
        merkle[f"2^{log}x{ncols}"] = {"ms": round(1000 * t, 1), "ns_per_hash": round(1e9 * t / (2 << log), 1)}
    out["merkle"] = merkle
    from luminair.prover.stark.fri_prover import grind

    grinds = {}
    for bits in (16, 20):
        ts = []
        for seed in range(args.runs):
            ch = Channel()
            ch.mix_u64(seed)
            t = time.perf_counter()
            grind(ch, bits)
            ts.append(time.perf_counter() - t)
        grinds[str(bits)] = {"median_s": round(statistics.median(ts), 3), "total_s": round(sum(ts), 3)}
    out["grind"] = grinds
    return out


def cmd_compare(args: argparse.Namespace) -> dict:
    """Interleaved runs of `mlp` with the reference copy and with the working tree."""
    me = [sys.executable, str(Path(__file__).resolve())]
    res: dict[str, list[dict]] = {"ref": [], "new": []}
    for _ in range(args.rounds):
        for tag, extra in (("ref", ["--stark-dir", args.ref_dir]), ("new", [])):
            cmd = me + ["mlp", "--model", args.model, "--runs", "1", "--preset", args.preset] + extra
            res[tag].append(json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout))
    return {
        tag: {
            "prove_s_median": round(statistics.median(r["prove_s"] for r in runs), 3),
            "cpu_s_median": round(statistics.median(r["cpu_s"] for r in runs), 3),
            "prove_s_runs": [r["prove_s"] for r in runs],
            "stages_s": {k: round(statistics.median(r["stages_s"][k] for r in runs), 3) for k in runs[0]["stages_s"]},
        }
        for tag, runs in res.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["digests", "mlp", "kernels", "compare"])
    ap.add_argument("--stark-dir", default=None)
    ap.add_argument("--ref-dir", default=None)
    ap.add_argument("--heavy", action="store_true")
    ap.add_argument("--model", default="mlp_784_128_10")
    ap.add_argument("--preset", default="default")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    _use_stark_dir(args.stark_dir)
    fn = {"digests": cmd_digests, "mlp": cmd_mlp, "kernels": cmd_kernels, "compare": cmd_compare}[args.command]
    print(json.dumps(fn(args), indent=2))


if __name__ == "__main__":
    main()
