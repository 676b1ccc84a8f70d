"""The verifier's time on the examples (issue 28: the CNN example verifies with the default budget
in at most 1 s in CPython): the CNN (examples/cnn_cifar), the transformer (examples/transformer_tiny)
and the MLP (examples/mlp_64_64_10), proven once at the default preset with `luminair prove`.

    python bench/verify_bench.py [--runs 7] [--files /tmp/verify_bench] [--baseline DIR]
                                 [--out bench/results/verify.json]

Per tree (this checkout, and with --baseline a folder holding another checkout's luminair/ package,
verifier/ and prover/ as luminair/verifier and luminair/prover, e.g. main's), in rounds that
alternate the trees so that both see the same load on a shared machine:

* in_process_ms: `verify(proof, settings)` in a fresh process (cold: its first call, what a page
  or a script pays) and warm (the best of two more calls in that process);
* cli_ms: `luminair verify PROOF SETTINGS` as a command, process start and imports included, and
  the verifier time it reports;
* with each wall time, the CPU time (process_time, the child's rusage): on a shared machine the
  wall times swing by 2x with the load, the CPU times much less.

Every verdict must be valid and both trees must report the same outputs and model digest."""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from common import machine  # noqa: E402

MODELS = ["cnn_cifar", "transformer_tiny", "mlp_64_64_10"]
PY = sys.executable

WORKER = r"""
import json, sys, time
from luminair.verifier import verify
proof, settings = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
times, cpu, r = [], [], None
for _ in range(3):
    t, c = time.perf_counter(), time.process_time(); r = verify(proof, settings)
    times.append(time.perf_counter() - t); cpu.append(time.process_time() - c)
import luminair.verifier as v
print(json.dumps({"cold_s": times[0], "warm_s": min(times[1:]), "cold_cpu_s": cpu[0], "warm_cpu_s": min(cpu[1:]),
                  "success": r.success, "error": r.error_message,
                  "digest": r.model_digest.hex() if isinstance(r.model_digest, bytes) else str(r.model_digest),
                  "outputs": str(r.outputs)[:2000], "file": v.__file__}))
"""


def _env(tree: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    if tree:
        env["PYTHONPATH"] = tree
    return env


def prove_examples(files: Path) -> None:
    for m in MODELS:
        out = files / m
        if (out / "proof.bin").is_file() and (out / "settings.bin").is_file():
            continue
        ex = ROOT / "examples" / m
        subprocess.run([PY, "-m", "luminair.prover.cli", "prove", str(ex / "network.onnx"), "--input", str(ex / "input.json"),
                        "--out", str(out), "--quiet"], check=True, cwd="/tmp", env=_env(None))


def in_process(tree: str | None, pair: Path) -> dict:
    p = subprocess.run([PY, "-c", WORKER, str(pair / "proof.bin"), str(pair / "settings.bin")], capture_output=True,
                       text=True, cwd="/tmp", env=_env(tree), check=True)
    return json.loads(p.stdout)


def cli(tree: str | None, pair: Path) -> dict:
    cmd = [PY, "-m", "luminair.prover.cli", "verify", str(pair / "proof.bin"), str(pair / "settings.bin")]
    t, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, cwd="/tmp", env=_env(tree))
    wall, after = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    m = re.search(r"; ([\d.]+) ms", p.stdout)
    if p.returncode or not p.stdout.startswith("valid") or not m:
        raise SystemExit(f"luminair verify failed ({tree or 'this tree'}): {p.stdout[-500:]} {p.stderr[-500:]}")
    return {"wall_s": wall, "cpu_s": cpu, "reported_s": float(m.group(1)) / 1000}


def med_ms(xs: list[float]) -> float:
    return round(1000 * statistics.median(xs), 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--files", type=Path, default=Path("/tmp/verify_bench"))
    ap.add_argument("--baseline", default=None, help="folder with the other tree's luminair package (PYTHONPATH)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "verify.json")
    args = ap.parse_args()
    prove_examples(args.files)
    trees = {"this": None} if not args.baseline else {"baseline": args.baseline, "this": None}
    raw: dict = {t: {m: {"in_process": [], "cli": []} for m in MODELS} for t in trees}
    for i in range(args.runs):
        for m in MODELS:
            for t, tree in (trees.items() if i % 2 == 0 else reversed(trees.items())):
                r = in_process(tree, args.files / m)
                if not r["success"]:
                    raise SystemExit(f"{t} {m}: not valid: {r['error']}")
                raw[t][m]["in_process"].append(r)
                raw[t][m]["cli"].append(cli(tree, args.files / m))
        print(f"round {i + 1}/{args.runs}", flush=True)
    if args.baseline:
        for m in MODELS:
            a, b = raw["baseline"][m]["in_process"][0], raw["this"][m]["in_process"][0]
            if (a["digest"], a["outputs"]) != (b["digest"], b["outputs"]):
                raise SystemExit(f"{m}: the trees disagree on the verdict's digest or outputs")
    summary = {
        t: {m: {"in_process_cold_ms": med_ms([r["cold_s"] for r in d["in_process"]]),
                "in_process_warm_ms": med_ms([r["warm_s"] for r in d["in_process"]]),
                "in_process_cold_cpu_ms": med_ms([r["cold_cpu_s"] for r in d["in_process"]]),
                "in_process_warm_cpu_ms": med_ms([r["warm_cpu_s"] for r in d["in_process"]]),
                "cli_wall_ms": med_ms([r["wall_s"] for r in d["cli"]]),
                "cli_cpu_ms": med_ms([r["cpu_s"] for r in d["cli"]]),
                "cli_reported_ms": med_ms([r["reported_s"] for r in d["cli"]]),
                "verifier": d["in_process"][0]["file"]}
            for m, d in per.items()}
        for t, per in raw.items()
    }
    sizes = {m: {"proof_bytes": (args.files / m / "proof.bin").stat().st_size,
                 "settings_bytes": (args.files / m / "settings.bin").stat().st_size} for m in MODELS}
    out = {"bench": "verify_bench", "runs": args.runs, "medians": summary, "files": sizes, "machine": machine(),
           "load_1min_end": round(os.getloadavg()[0], 2), "raw": raw}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
