"""Dense layers at scale: MLPs 784-H-10 (H = 128 ... 2048, weights drawn like the examples), luminair
(default preset, fused components) beside EZKL in the same run.

    python bench/dense_bench.py [--hidden 128 256 512 1024] [--runs 3] [--ezkl] [--out bench/results/dense.json]

Each luminair measurement runs in a fresh process (peak RSS is that process's): settings, then
`--runs` proofs (median reported) and a verification. EZKL (optional, `--ezkl`, needs the ezkl
package) runs once per model: gen_settings, compile, gen_srs (local, no download), witness, setup,
prove, verify. Reported per model: multiply-adds, prove seconds, seconds per million
multiply-adds, multiply-adds per second, proof bytes, verify ms, peak RSS."""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAX_WORK = 100_000_000
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "examples"))


def write_model(hidden: int, folder: Path) -> tuple[Path, Path]:
    import make_models

    model, x = make_models.make_mlp((784, hidden, 10), make_models.SEED + hidden)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "network.onnx").write_bytes(model.SerializeToString())
    (folder / "input.json").write_text(json.dumps({"input_data": [x]}))
    return folder / "network.onnx", folder / "input.json"


def _luminair(model: str, data: str, runs: int, q: mp.Queue) -> None:
    from common import peak_rss_mb, timed

    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json
    from luminair.verifier import verify

    cx = load_model(model)
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = read_input_json(data, cx)
    settings_t, settings = timed(lambda: cx.gen_settings(), 1)
    trace = cx.gen_trace(feed)
    proofs: list = []
    prove_t, _ = timed(lambda: proofs.append(cx.prove(trace, settings)), runs)
    # settings.bin past 4 MiB (hidden 2048: 6.5 MB of weights) needs a larger work budget to be read
    verify_t, r = timed(lambda: verify(proofs[-1].data, settings.data, max_work=MAX_WORK), 1)
    cells = sum(1 << p.component.log_size for p in settings.plans)
    q.put({
        "settings_s": round(settings_t[0], 3), "prove_s": round(statistics.median(prove_t), 3),
        "prove_s_runs": [round(t, 3) for t in prove_t], "verify_ms": round(1000 * verify_t[0], 1),
        "verified": r.success, "security_bits": r.security_bits, "proof_bytes": len(proofs[-1].data),
        "settings_bytes": len(settings.data), "trace_rows": cells, "peak_rss_mb": peak_rss_mb(),
    })


def run_luminair(model: Path, data: Path, runs: int) -> dict:
    q: mp.Queue = mp.get_context("fork").Queue()
    p = mp.get_context("fork").Process(target=_luminair, args=(str(model), str(data), runs, q))
    p.start()
    p.join()
    return q.get() if p.exitcode == 0 else {"error": f"exit code {p.exitcode}"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, nargs="*", default=[128, 256, 512, 1024])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ezkl", action="store_true")
    ap.add_argument("--out", default=str(HERE / "results" / "dense.json"))
    args = ap.parse_args()
    from common import machine

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for h in args.hidden:
            model, data = write_model(h, Path(tmp) / f"mlp_784_{h}_10")
            macs = 784 * h + h * 10
            row: dict = {"model": f"mlp_784_{h}_10", "multiply_adds": macs, "luminair": run_luminair(model, data, args.runs)}
            lum = row["luminair"]
            if "prove_s" in lum:
                lum["s_per_million_macs"] = round(lum["prove_s"] / (macs / 1e6), 3)
                lum["macs_per_s"] = round(macs / lum["prove_s"])
            if args.ezkl:
                from ezkl_bench import run_ezkl

                try:
                    row["ezkl"] = run_ezkl(model, data, Path(tmp) / f"ezkl_{h}")
                    row["ezkl_prove_over_luminair_prove"] = round(row["ezkl"]["times_s"]["prove"] / lum["prove_s"], 1)
                except Exception as e:  # noqa: BLE001 - report EZKL's failure beside our figures
                    row["ezkl"] = {"error": f"{type(e).__name__}: {e}"}
            results.append(row)
            print(f"# {row['model']}: " + json.dumps({k: v for k, v in row.items() if k != "model"})[:400], file=sys.stderr)
    out = {"benchmark": "dense", "preset": "default", "machine": machine(), "results": results}
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
