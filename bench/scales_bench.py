"""A scale per tensor against one scale on the project's examples (issue 27): `luminair prove`
as a user runs it (default: per tensor from the input) and with `--scale-bits 10` (one scale, the
format before), the modes alternating run by run on one machine. Reports medians of wall time,
the proving stages (execution to openings), load and settings, proof size, components, and the
outputs' max error against onnxruntime.

    python bench/scales_bench.py [--runs 3] [--models transformer_tiny cnn_cifar] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MODES = {"per_tensor": [], "one_scale_2^10": ["--scale-bits", "10"]}
LOAD = ("load_and_compile", "settings")


def prove_once(model: str, extra: list[str]) -> dict:
    folder = REPO / "examples" / model
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "luminair.prover.cli", "prove", str(folder / "network.onnx"), "--input",
               str(folder / "input.json"), "--out", out, "--quiet", "--json", "--onnxruntime", *extra]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        t = time.perf_counter()
        run = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, check=True)
        wall = time.perf_counter() - t
    d = json.loads(run.stdout)
    stages = {k: v for k, v in d["time_s"].items() if k not in LOAD}
    errors = [v["max_abs_error"] for v in (d.get("onnxruntime_error") or {}).values() if isinstance(v, dict)]
    return {
        "wall_s": wall, "proving_s": sum(stages.values()), "load_s": d["time_s"].get("load_and_compile"),
        "settings_s": d["time_s"].get("settings"), "proof_bytes": d["proof_bytes"],
        "components": len(d["components"]), "max_abs_error_vs_onnxruntime": max(errors) if errors else None,
        "numeric_format": d["numeric_format"],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--models", nargs="+", default=["transformer_tiny", "cnn_cifar"])
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "scales_issue27.json"))
    args = ap.parse_args()
    result: dict = {"machine": machine(), "runs": args.runs, "models": {}}
    for model in args.models:
        runs: dict[str, list[dict]] = {m: [] for m in MODES}
        for _ in range(args.runs):
            for mode, extra in MODES.items():  # alternating: the machine's load hits both alike
                runs[mode].append(prove_once(model, extra))
        summary = {}
        for mode, rs in runs.items():
            med = {k: statistics.median(r[k] for r in rs) for k in ("wall_s", "proving_s", "load_s", "settings_s")}
            summary[mode] = {**{k: round(v, 3) for k, v in med.items()}, "wall_runs_s": [round(r["wall_s"], 3) for r in rs],
                             **{k: rs[0][k] for k in ("proof_bytes", "components", "max_abs_error_vs_onnxruntime",
                                                       "numeric_format")}}
        a, b = summary["per_tensor"], summary["one_scale_2^10"]
        summary["ratios_per_tensor_to_one_scale"] = {
            k: round(a[k] / b[k], 3) for k in ("proof_bytes", "proving_s", "wall_s", "load_s")}
        result["models"][model] = summary
        print(model, json.dumps(summary, indent=1))
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
