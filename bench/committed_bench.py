"""Committed against public weights (issue 28), same run: settings.bin and proof.bin sizes, the
verifier's time and work at its default budget, and proving time, for the MLPs 784-128-10,
784-4096-10 and 784-16384-10, the project's CNN and transformer examples, and SqueezeNet 1.1 (the
onnx wheel's) at 64x64.

    python bench/committed_bench.py [--models mlp_784_128_10,cnn_cifar,...] [--runs 3]
                                    [--out bench/results/committed_issue28.json]

Each (model, weights) pair runs in a fresh process: `luminair prove MODEL --weights W --json` for
the ONNX files (wall time and peak RSS by /usr/bin/time; the proving stages from the summary),
the Python API for SqueezeNet (load_onnx at 64x64 with gain-one fills, as bench/zoo_bench.py).
Then `verify(proof, settings)` with the default budget in a fresh process, `--runs` times: its
first call (cold) and the best later call (warm); medians over the runs. Both modes must attest
the same outputs. The two modes alternate (public, committed) model by model."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from common import machine  # noqa: E402

PY = sys.executable
EXAMPLES = ["mlp_784_128_10", "cnn_cifar", "transformer_tiny"]
GENERATED = {"mlp_784_4096_10": (784, 4096, 10), "mlp_784_16384_10": (784, 16384, 10)}
ALL = ["mlp_784_128_10", "mlp_784_4096_10", "mlp_784_16384_10", "cnn_cifar", "transformer_tiny", "squeezenet_64"]

VERIFY = r"""
import json, sys, time
from luminair.verifier import verify
proof, settings = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
max_work = int(sys.argv[3]) if len(sys.argv) > 3 else None  # (None: the default budget)
times = []
for _ in range(3):
    t = time.perf_counter(); r = verify(proof, settings, max_work=max_work); times.append(time.perf_counter() - t)
print(json.dumps({"cold_s": times[0], "warm_s": min(times[1:]), "success": r.success, "error": r.error_message,
                  "kind": r.kind, "work_needed": r.work_needed, "outputs": r.outputs, "visibility": r.visibility,
                  "model_root": r.model_root}))
"""

SQUEEZENET = r"""
import json, sys, time
import numpy as np, onnx
from luminair.prover import GenericCompiler, StwoCompiler
from luminair.prover.onnx import load_onnx
from luminair.prover.onnx.zoo import gain_one_fills, zoo_path
from luminair.prover.proving import gen_settings, gen_trace, prove, write_files
from luminair.prover.cli.prove import verifier_work
weights, out = sys.argv[1], sys.argv[2]
shape = (1, 3, 64, 64)
x = np.random.default_rng(0).uniform(0, 1, shape).astype(np.float32).astype(np.float64)
graph = load_onnx(gain_one_fills(onnx.load(str(zoo_path("squeezenet")))), {"data_0": shape}, resize_inputs=True,
                  outputs=["r65"])
graph.compile(GenericCompiler(), StwoCompiler())
t = time.perf_counter(); settings = gen_settings(graph, weights=weights); settings_s = time.perf_counter() - t
t = time.perf_counter(); proof = prove(graph, gen_trace(graph, {"data_0": x}), settings); prove_s = time.perf_counter() - t
from pathlib import Path
write_files(Path(out), settings, proof)
print(json.dumps({"settings_s": settings_s, "proving_s": prove_s, "stages": proof.stats.stages,
                  "proof_bytes": len(proof.data), "settings_bytes": len(settings.data),
                  "verifier_work": verifier_work(proof.data, settings.data)}))
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}


def _model_files(name: str, files: Path) -> tuple[Path, Path]:
    if name in GENERATED:
        d = files / name
        if not (d / "network.onnx").is_file():
            sys.path.insert(0, str(ROOT / "examples"))
            import onnx
            from make_models import SEED, make_mlp

            model, x = make_mlp(GENERATED[name], SEED)
            d.mkdir(parents=True, exist_ok=True)
            onnx.save(model, str(d / "network.onnx"))
            (d / "input.json").write_text(json.dumps({"input_data": [x]}))
        return d / "network.onnx", d / "input.json"
    return ROOT / "examples" / name / "network.onnx", ROOT / "examples" / name / "input.json"


def _timed(cmd: list[str]) -> tuple[str, float, float]:
    """stdout, wall seconds, peak RSS MB of a command (GNU time)."""
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True, cwd="/tmp", env=_env())
    wall = time.perf_counter() - t
    if p.returncode:
        raise RuntimeError(f"{cmd[:4]} failed: {p.stderr[-2000:]}")
    rss = float(p.stderr.strip().splitlines()[-1]) / 1024
    return p.stdout, wall, rss


def prove_one(name: str, weights: str, files: Path) -> dict:
    out = files / f"{name}.{weights}"
    if name == "squeezenet_64":
        stdout, wall, rss = _timed([PY, "-c", SQUEEZENET, weights, str(out)])
        s = json.loads(stdout)
        stages = s["stages"]
        return {"wall_s": round(wall, 2), "peak_rss_mb": round(rss), "settings_s": round(s["settings_s"], 2),
                "proving_s": round(sum(stages.values()), 2), "proof_bytes": s["proof_bytes"],
                "settings_bytes": s["settings_bytes"], "verifier_work": s["verifier_work"]}
    model, inp = _model_files(name, files)
    stdout, wall, rss = _timed([PY, "-m", "luminair.prover.cli", "prove", str(model), "--input", str(inp), "--out",
                                str(out), "--weights", weights, "--json", "--quiet"])
    s = json.loads(stdout)
    t = s["time_s"]
    proving = sum(v for k, v in t.items() if k not in ("load_and_compile", "settings", "execution"))
    return {"wall_s": round(wall, 2), "peak_rss_mb": round(rss), "settings_s": t["settings"],
            "proving_s": round(proving, 2), "proof_bytes": s["proof_bytes"], "settings_bytes": s["settings_bytes"],
            "verifier_work": s["verifier_work"]}


def verify_one(name: str, weights: str, files: Path) -> dict:
    pair = files / f"{name}.{weights}"
    p = subprocess.run([PY, "-c", VERIFY, str(pair / "proof.bin"), str(pair / "settings.bin")], capture_output=True,
                       text=True, cwd="/tmp", env=_env(), check=True)
    return json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(ALL))
    ap.add_argument("--runs", type=int, default=3, help="verifications a pair (proofs: one a pair)")
    ap.add_argument("--files", default="/tmp/committed_bench")
    ap.add_argument("--out", default=str(HERE / "results" / "committed_issue28.json"))
    args = ap.parse_args()
    files = Path(args.files)
    files.mkdir(parents=True, exist_ok=True)
    report: dict = {"bench": "committed_bench", "runs": args.runs, "machine": machine(), "models": {}}
    for name in args.models.split(","):
        row: dict = {}
        for weights in ("public", "committed"):
            print(f"{name} {weights}: proving", file=sys.stderr, flush=True)
            row[weights] = prove_one(name, weights, files)
        verdicts: dict = {"public": [], "committed": []}
        for _ in range(args.runs):  # alternating
            for weights in ("public", "committed"):
                verdicts[weights].append(verify_one(name, weights, files))
        for weights, vs in verdicts.items():
            v = vs[0]
            row[weights].update({
                "verified": all(x["success"] for x in vs), "verdict": v["kind"], "error": v["error"],
                "work_needed": row[weights]["verifier_work"].get("needed"),
                "within_default_budget": row[weights]["verifier_work"].get("within_default"),
                "verify_cold_s": round(statistics.median(x["cold_s"] for x in vs), 3),
                "verify_warm_s": round(statistics.median(x["warm_s"] for x in vs), 3),
                "visibility": v["visibility"], "model_root": v["model_root"],
            })
        outs = [verdicts[w][0]["outputs"] for w in ("public", "committed")]
        row["same_outputs"] = outs[0] == outs[1] and outs[0] is not None
        pub, com = row["public"], row["committed"]
        row["ratios"] = {"proving_committed_over_public": round(com["proving_s"] / pub["proving_s"], 2),
                         "wall_committed_over_public": round(com["wall_s"] / pub["wall_s"], 2),
                         "proof_bytes_committed_over_public": round(com["proof_bytes"] / pub["proof_bytes"], 2)}
        report["models"][name] = row
        print(json.dumps({name: {"public": {k: pub[k] for k in ("settings_bytes", "proof_bytes", "proving_s", "verify_warm_s")},
                                 "committed": {k: com[k] for k in ("settings_bytes", "proof_bytes", "proving_s", "verify_warm_s")}}}),
              file=sys.stderr, flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1)[:4000])


if __name__ == "__main__":
    main()
