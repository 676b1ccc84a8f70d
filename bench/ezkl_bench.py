"""EZKL beside luminair on the same ONNX model and input.json (optional: needs `pip install ezkl`).

    python bench/ezkl_bench.py [--models mlp_16_16_4 mlp_64_64_10 lenet attention layernorm] [--runs 3]
                               [--workdir /tmp/ezkl-bench]

lenet, attention and layernorm are bench/accuracy_bench.py's blocks (issue 29's side-by-side shapes).
luminair runs --runs times and EZKL --ezkl-runs times, medians reported; luminair both in process (its stages) and as the
CLI a user runs (`luminair prove`, process start included), with the ratios to EZKL's prove and to
its setup + prove.

EZKL proves with Halo2 + KZG over BN254; its SRS is generated locally (`gen_srs`, no download), so
the figures include that step separately. luminair runs its default 96-bit preset. Prints JSON.
EZKL's own defaults are used (its `gen_settings` picks scales and logrows), so its quantization and
ours differ; the comparison is of cost, not of numerical agreement."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"


def run_ezkl(model: Path, data: Path, work: Path) -> dict:
    import ezkl

    work.mkdir(parents=True, exist_ok=True)
    f = {k: str(work / v) for k, v in {
        "settings": "settings.json", "circuit": "circuit.ezkl", "srs": "kzg.srs", "witness": "witness.json",
        "vk": "vk.key", "pk": "pk.key", "proof": "proof.json"}.items()}
    times = {}

    def step(name, fn, *args):
        t = time.perf_counter()
        try:
            out = fn(*args)
        except RuntimeError as e:  # EZKL's own refusal: recorded as its result, with the step it stopped at
            raise _EzklFailed(name, str(e), times) from None
        times[name] = round(time.perf_counter() - t, 3)
        return out

    step("gen_settings", ezkl.gen_settings, str(model), f["settings"])
    logrows = json.loads(Path(f["settings"]).read_text())["run_args"]["logrows"]
    step("compile_circuit", ezkl.compile_circuit, str(model), f["circuit"], f["settings"])
    step("gen_srs", ezkl.gen_srs, f["srs"], logrows)
    step("gen_witness", ezkl.gen_witness, str(data), f["circuit"], f["witness"])
    step("setup", ezkl.setup, f["circuit"], f["vk"], f["pk"], f["srs"])
    step("prove", ezkl.prove, f["witness"], f["circuit"], f["pk"], f["proof"], f["srs"])
    ok = step("verify", ezkl.verify, f["proof"], f["settings"], f["vk"], f["srs"])
    return {"logrows": logrows, "times_s": times, "verified": bool(ok),
            "proof_json_bytes": Path(f["proof"]).stat().st_size, "pk_bytes": Path(f["pk"]).stat().st_size}


class _EzklFailed(Exception):
    def __init__(self, step: str, message: str, times: dict) -> None:
        super().__init__(message)
        self.result = {"failed_at": step, "error": message, "times_s": dict(times)}


def run_luminair(model: Path, data: Path) -> dict:
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json
    from luminair.verifier import verify

    cx = load_model(model)
    cx.compile(GenericCompiler(), StwoCompiler())
    t = time.perf_counter()
    settings = cx.gen_settings()
    settings_s = time.perf_counter() - t
    trace = cx.gen_trace(read_input_json(data, cx))
    t = time.perf_counter()
    proof = cx.prove(trace, settings)
    prove_s = time.perf_counter() - t
    t = time.perf_counter()
    r = verify(proof.data, settings.data)
    return {"times_s": {"settings": round(settings_s, 3), "prove": round(prove_s, 3),
                        "verify": round(time.perf_counter() - t, 3)},
            "verified": r.success, "security_bits": r.security_bits, "proof_bytes": len(proof.data),
            "settings_bytes": len(settings.data)}


def run_cli(model: Path, data: Path, out: Path) -> float:
    """Wall seconds of `luminair prove` (default preset), process start included, with Python's
    bytecode cache on as in a user's install (a PYTHONDONTWRITEBYTECODE environment recompiles every
    module of every process: about 0.3-0.5 s of a small proof's wall time)."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "luminair.prover.cli", "prove", str(model), "--input", str(data),
                    "--out", str(out), "--quiet"], check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t


def _median_runs(fn, runs: int) -> dict:
    """fn() `runs` times: the last result, each number of its "times_s" replaced by the median."""
    import statistics

    got = [fn() for _ in range(runs)]
    last = got[-1]
    if "times_s" in last:
        last["times_s"] = {k: round(statistics.median(g["times_s"][k] for g in got if k in g.get("times_s", {})), 3)
                           for k in last["times_s"]}
        last["runs"] = runs
    return last


def _model_files(name: str, workdir: Path) -> tuple[Path, Path]:
    if name in ("lenet", "attention", "layernorm"):
        from accuracy_bench import _blocks

        return _blocks(workdir / "blocks")[name]
    return EXAMPLES / name / "network.onnx", EXAMPLES / name / "input.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="*", default=["mlp_16_16_4", "mlp_64_64_10"])
    ap.add_argument("--runs", type=int, default=1, help="luminair's runs (medians)")
    ap.add_argument("--ezkl-runs", type=int, default=1, help="EZKL's runs (a small model's takes minutes: its keys are GBs)")
    ap.add_argument("--workdir", default="/tmp/ezkl-bench")
    args = ap.parse_args()
    try:
        import ezkl  # noqa: F401
    except ImportError:
        print(json.dumps({"benchmark": "ezkl_vs_luminair", "skipped": "ezkl is not installed (pip install ezkl)"}))
        return
    sys.path.insert(0, str(HERE))
    from common import machine

    results = []
    import statistics

    for name in args.models:
        model, data = _model_files(name, Path(args.workdir))
        try:
            ezkl_result = _median_runs(lambda: run_ezkl(model, data, Path(args.workdir) / name), args.ezkl_runs)
        except _EzklFailed as e:
            ezkl_result = e.result
        ours = _median_runs(lambda: run_luminair(model, data), args.runs)
        ours["cli_wall_s"] = round(statistics.median(
            run_cli(model, data, Path(args.workdir) / f"{name}-luminair") for _ in range(args.runs)), 3)
        if "failed_at" not in ezkl_result:
            e = ezkl_result["times_s"]
            ours["ratios"] = {"ezkl_prove_over_prove": round(e["prove"] / ours["times_s"]["prove"], 1),
                              "ezkl_setup_and_prove_over_cli_wall": round((e["setup"] + e["prove"]) / ours["cli_wall_s"], 1)}
        results.append({"model": name, "ezkl": ezkl_result, "luminair": ours})
        ezkl_prove = (f"ezkl failed at {ezkl_result['failed_at']}" if "failed_at" in ezkl_result
                      else f"ezkl prove {ezkl_result['times_s']['prove']} s")
        print(f"# {name}: {ezkl_prove}, luminair prove {results[-1]['luminair']['times_s']['prove']} s", file=sys.stderr)
    print(json.dumps({"benchmark": "ezkl_vs_luminair", "machine": machine(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
