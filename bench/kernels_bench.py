"""The prover's kernels (prover/stark/kernels.py): compiled (numba) against their numpy / hashlib
twins and this machine's limit for the same operation, the JIT's first compile, and the CLI's wall
time as a user sees it. Prints one JSON document (medians of --runs).

    python bench/kernels_bench.py kernels [--runs 5]
    python bench/kernels_bench.py compile
    python bench/kernels_bench.py cli [--models mlp_16_16_4 ...] [--runs 3] [--modes auto numpy]
                                      [--presets default small] [--ezkl]

`kernels`: per operation, ns of one thread's CPU time (the machine is shared: CPU time is steadier
than wall time), for a Merkle node (two 26-byte children, no column), a leaf byte (rows of 16
columns), a proof-of-work nonce, a butterfly (2^16 and 2^20 forward and inverse transforms), a
DEEP quotient cell (one column at one point); `limit` is bench/kernel_limits.c built with the
system compiler (-O3 -march=native): a BLAKE2s compression one message at a time and 16 at a
time (SIMD vectors), and a vectorized butterfly loop; null without a compiler. `compile`: the
first run's JIT compile of every kernel (an empty numba cache in a fresh process) and the load of
the cached ones. `cli`: `luminair prove` in a fresh
process per run, after one uncounted warm-up run (bytecode and numba caches as an installed copy
has them): wall time including process start, the proving stages apart, peak RSS; with
--ezkl, EZKL's setup and prove on the same model (bench/ezkl_bench.py) where it runs."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from common import machine  # noqa: E402


def _cpu_ns(fn: Callable[[], Any], units: int, runs: int) -> float:
    """Median CPU ns per unit of fn() over runs (after one warm-up call)."""
    fn()
    out = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        out.append((time.process_time() - t) / units * 1e9)
    return round(statistics.median(out), 3)


def _limits() -> dict[str, Any]:
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return {"blake2s_compress_ns": None, "blake2s_16lane_ns": None, "butterfly_ns": None, "note": "no C compiler"}
    with tempfile.TemporaryDirectory() as d:
        exe = Path(d) / "limits"
        subprocess.run([cc, "-O3", "-march=native", str(HERE / "kernel_limits.c"), "-o", str(exe)], check=True)
        got = json.loads(subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout)
    got.pop("checksum", None)
    return got


def cmd_kernels(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    os.environ["LUMINAIR_KERNELS"] = "numba"
    from luminair.prover.stark import circle_fft as cf
    from luminair.prover.stark import kernels, merkle_tree as mt, pcs_prover as pp, pow_grind
    from luminair.prover.stark.jit import blake2s as jb
    from luminair.prover.stark.jit import deep, m31
    from luminair.verifier.fields import P
    from luminair.verifier.merkle import DIGEST_BYTES, LEAF_PREFIX, NODE_PREFIX

    rng = np.random.default_rng(1)
    runs = args.runs
    out: dict[str, Any] = {"machine": machine(), "kernel_threads": kernels.threads()}

    # BLAKE2s: Merkle nodes, leaves of 16 columns (64 bytes a row), proof-of-work nonces
    n = 1 << 16
    children = rng.integers(0, 1 << 32, size=13 * n, dtype=np.uint64).astype(np.uint32)
    digests = np.empty((n, DIGEST_BYTES), dtype=np.uint8)
    none = np.empty((0, n), dtype=np.uint32)
    rows16 = rng.integers(0, P, size=(16, n), dtype=np.uint64).astype(np.uint32)
    node_h, leaf_h = mt._prefix_state(NODE_PREFIX), mt._prefix_state(LEAF_PREFIX)
    prefix = hashlib.blake2s(b"bench").digest()
    words = np.frombuffer(prefix, dtype="<u4").copy()
    pairs = children.view(np.uint8)
    compiled = {
        "merkle_node_ns": _cpu_ns(lambda: jb.hash_rows(node_h, 64, children, 13, none, digests, DIGEST_BYTES), n, runs),
        "leaf_byte_ns": _cpu_ns(lambda: jb.hash_rows(leaf_h, 64, children[:0], 0, rows16, digests, DIGEST_BYTES), 64 * n, runs),
        "pow_nonce_ns": _cpu_ns(lambda: jb.first_pow_nonce(words, 64, 0, n), n, runs),
    }
    from luminair.verifier.merkle import leaf_hash, node_hash

    row_bytes = rows16.T.astype("<u4").tobytes()
    m = 1 << 13
    twin = {
        "merkle_node_ns": _cpu_ns(lambda: [node_hash(pairs[52 * i : 52 * i + 26].tobytes(), pairs[52 * i + 26 : 52 * i + 52].tobytes())
                                           for i in range(m)], m, runs),
        "leaf_byte_ns": _cpu_ns(lambda: [leaf_hash(row_bytes[64 * i : 64 * i + 64]) for i in range(m)], 64 * m, runs),
        "pow_nonce_ns": _cpu_ns(lambda: pow_grind.first_valid_nonce(hashlib.blake2s(prefix), 64, 0, m), m, runs),
    }
    # the twins above include the Python a hash costs them; the tree builder's own loop is faster:
    cols = [rng.integers(0, P, size=1 << 16, dtype=np.uint64) for _ in range(2)]
    os.environ["LUMINAIR_KERNELS"] = "numpy"
    layers = [mt._row_bytes([]) for _ in range(16)] + [mt._row_bytes(cols)]  # 2 columns at the leaves
    twin["merkle_tree_2^16x2_ns_per_hash"] = _cpu_ns(lambda: mt._hash_range(16, 0, layers, 0, 1 << 16), 2 << 16, runs)
    os.environ["LUMINAIR_KERNELS"] = "numba"

    # FFT: one column, forward and inverse
    fft: dict[str, Any] = {}
    for log in (16, 20):
        data = rng.integers(0, P, size=1 << log, dtype=np.uint64)
        res = np.empty(1 << log, dtype=np.uint64)
        scratch = np.empty(1 << log, dtype=np.uint32)
        bfs = log * (1 << (log - 1))
        twf, offf = cf._flat_twiddles("circle", log, False)
        twi, offi = cf._flat_twiddles("circle", log, True)
        reps = 4 if log == 16 else 1
        fft[f"2^{log}"] = {
            "forward_ns": _cpu_ns(lambda: [m31.forward(data, res, scratch, twf, offf, log, 0) for _ in range(reps)], reps * bfs, runs),
            "inverse_ns": _cpu_ns(lambda: [m31.inverse(data, res, scratch, twi, offi, log, 1) for _ in range(reps)], reps * bfs, runs),
        }
        os.environ["LUMINAIR_KERNELS"] = "numpy"
        batch = data.reshape(1, -1)
        fft[f"2^{log}"]["numpy_twin_forward_ns"] = _cpu_ns(lambda: cf.circle_evaluate(batch), bfs, runs)
        os.environ["LUMINAIR_KERNELS"] = "numba"
    compiled["fft"] = fft

    # DEEP quotients: 32 columns sampled at one point, 2^16 domain points
    log = 16
    evals = {(0, c): rng.integers(0, P, size=1 << log, dtype=np.uint64).astype(np.uint32) for c in range(32)}
    from luminair.verifier.circle import qpoint_from_t
    from luminair.verifier.pcs import Sample

    z = qpoint_from_t((5, 6, 7, 8))
    samples = [Sample(0, c, z, (c, 1, 2, 3)) for c in range(32)]
    cells = 32 << log
    compiled["deep_cell_ns"] = _cpu_ns(lambda: _single_thread(kernels, lambda: pp.quotient_column(log, samples, evals, (3, 1, 4, 1))), cells, runs)
    os.environ["LUMINAIR_KERNELS"] = "numpy"
    twin["deep_cell_ns"] = _cpu_ns(lambda: pp.quotient_column(log, samples, evals, (3, 1, 4, 1)), cells, runs)
    os.environ["LUMINAIR_KERNELS"] = "numba"
    del deep

    limit = _limits()
    out["compiled"] = compiled
    out["numpy_twin"] = twin
    out["limit"] = limit
    gap = {}
    for key in ("blake2s_compress_ns", "blake2s_16lane_ns"):  # one message at a time; 16 lanes (SIMD)
        if limit.get(key):
            tag = key[len("blake2s_"):-len("_ns")]
            gap[f"merkle_node_vs_c_{tag}"] = round(compiled["merkle_node_ns"] / limit[key], 3)
            gap[f"pow_nonce_vs_c_{tag}"] = round(compiled["pow_nonce_ns"] / limit[key], 3)
    if limit.get("butterfly_ns"):
        gap["butterfly_2^16_vs_c"] = round(fft["2^16"]["forward_ns"] / limit["butterfly_ns"], 3)
        gap["butterfly_2^20_vs_c"] = round(fft["2^20"]["forward_ns"] / limit["butterfly_ns"], 3)
    out["ratio_to_limit"] = gap
    return out


def _single_thread(kernels: Any, fn: Callable[[], Any]) -> Any:
    real = kernels.threads
    kernels.threads = lambda: 1
    try:
        return fn()
    finally:
        kernels.threads = real


EXAMPLE_AIRS = Path(__file__).resolve().parent.parent / "examples"  # example_airs.py
_COMPILE_SNIPPET = """
import json, os, sys, time
t = time.perf_counter()
os.environ["LUMINAIR_KERNELS"] = "numba"
sys.path.insert(0, {examples!r})
from example_airs import prove_example
from luminair.verifier.config import PRESETS
t1 = time.perf_counter()
def both():  # every kernel: columns long enough for the compiled field operations, LogUp, FRI folds
    prove_example("fibonacci", {"log_size": 13, "n_columns": 8}, PRESETS["default"])
    prove_example("square_lookup", {"log_size": 13, "table_log_size": 10}, PRESETS["default"])
both()
t2 = time.perf_counter()
both()
t3 = time.perf_counter()
print(json.dumps({"imports_s": t1 - t, "first_proof_s": t2 - t1, "second_proof_s": t3 - t2}))
"""


def cmd_compile(args: argparse.Namespace) -> dict[str, Any]:
    """Two small proofs in fresh processes: with an empty numba cache (the first run of a fresh
    clone) and with the cache that run wrote; the difference of their first proofs is the compile,
    that of the warm process's first and second proofs the cached load."""
    runs: dict[str, list[dict[str, float]]] = {"empty_cache": [], "warm_cache": []}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            for key in ("empty_cache", "warm_cache"):
                got = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET.replace("{examples!r}", repr(str(EXAMPLE_AIRS)))], env=env, check=True, capture_output=True,
                                     text=True, cwd=ROOT)
                runs[key].append(json.loads(got.stdout))
    med = {k: {f: round(statistics.median(r[f] for r in v), 3) for f in v[0]} for k, v in runs.items()}
    return {"runs": args.runs, **med,
            "jit_compile_s": round(med["empty_cache"]["first_proof_s"] - med["warm_cache"]["first_proof_s"], 3),
            "cached_load_s": round(med["warm_cache"]["first_proof_s"] - med["warm_cache"]["second_proof_s"], 3)}


_PEAK = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)")


def _cli_env() -> dict[str, str]:
    """The CLI's environment as an installed copy has it: bytecode written and read (an install
    compiles it; PYTHONDONTWRITEBYTECODE, set on some shared machines, would make every run
    compile the sources again, about 0.35 s), here under a bench-owned prefix so that the checkout
    stays clean."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "luminair-bench-pycache"))
    return env


def _cli_run(model: str, mode: str, out_dir: Path, preset: str = "default") -> dict[str, Any]:
    """One `luminair prove` in a fresh process (its peak RSS read by a wrapper whose only child it is);
    `model`: an example's name, or a folder holding network.onnx and input.json."""
    ex = Path(model) if Path(model).is_dir() else ROOT / "examples" / model
    exe = Path(sys.executable).with_name("luminair")
    cmd = [str(exe), "prove", str(ex / "network.onnx"), "--input", str(ex / "input.json"), "--out", str(out_dir),
           "--preset", preset, "--quiet", "--json"]
    env = {**_cli_env(), "LUMINAIR_KERNELS": mode}
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t  # includes the wrapper's own start (~20 ms)
    if proc.returncode:
        raise RuntimeError(f"{model}: luminair prove failed: {proc.stderr.decode()[-2000:]}")
    summary = json.loads(proc.stdout)
    stages = summary["time_s"]
    proving = {k: v for k, v in stages.items() if k not in ("load_and_compile", "settings", "execution", "trace columns")}
    return {"wall_s": wall, "proving_s": sum(proving.values()), "stages": stages, "proof_bytes": summary["proof_bytes"],
            "security": summary["security"], "digest": hashlib.sha256((out_dir / "proof.bin").read_bytes()).hexdigest()[:16],
            "peak_rss_mb": round(int(proc.stderr.decode().split()[-1]) / 1024, 1)}


def cmd_cli(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"machine": machine(), "load_average": os.getloadavg(), "runs": args.runs,
                           "caches": "warm: one uncounted run first; bytecode cached (_cli_env)", "models": {}}
    for model in args.models:
        entry: dict[str, Any] = {}
        for mode, preset in [(m, "default") for m in args.modes] + [("auto", p) for p in args.presets if p != "default"]:
            with tempfile.TemporaryDirectory() as d:
                _cli_run(model, mode, Path(d) / "out", preset)  # warm-up, not counted: bytecode and numba caches
                runs = [_cli_run(model, mode, Path(d) / "out", preset) for _ in range(args.runs)]
            entry[mode if preset == "default" else f"{mode}, --preset {preset}"] = {
                "wall_s": round(statistics.median(r["wall_s"] for r in runs), 3),
                "wall_s_runs": [round(r["wall_s"], 3) for r in runs],
                "proving_s": round(statistics.median(r["proving_s"] for r in runs), 3),
                "stages_s": {k: round(statistics.median(r["stages"][k] for r in runs), 3) for k in runs[0]["stages"]},
                "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
                "proof_bytes": runs[0]["proof_bytes"], "security": runs[0]["security"],
                "proof_digests": sorted({r["digest"] for r in runs}),
            }
        digests = {d for k, m in entry.items() if "--preset" not in k for d in m["proof_digests"]}
        entry["same_proof_on_every_kernel_path"] = len(digests) == 1
        if args.ezkl:
            entry["ezkl"] = _ezkl(model, entry)
        out["models"][model] = entry
    return out


def _ezkl(model: str, entry: dict[str, Any]) -> dict[str, Any]:
    try:
        import ezkl  # noqa: F401
    except ImportError:
        return {"skipped": "ezkl is not installed (pip install ezkl)"}
    import ezkl_bench

    ex = ROOT / "examples" / model
    with tempfile.TemporaryDirectory() as d:
        try:
            got = ezkl_bench.run_ezkl(ex / "network.onnx", ex / "input.json", Path(d))
        except ezkl_bench._EzklFailed as e:
            return e.result
    t = got["times_s"]
    ours = entry.get("auto") or next(iter(v for k, v in entry.items() if isinstance(v, dict)))
    got["prove_over_our_proving"] = round(t["prove"] / ours["proving_s"], 2)
    got["setup_plus_prove_over_our_cli_wall"] = round((t["setup"] + t["prove"]) / ours["wall_s"], 2)
    got["prove_over_our_cli_wall"] = round(t["prove"] / ours["wall_s"], 2)
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["kernels", "compile", "cli"])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--models", nargs="+", default=["mlp_16_16_4", "mlp_784_128_10"])
    ap.add_argument("--modes", nargs="+", default=["auto", "numpy"])
    ap.add_argument("--presets", nargs="+", default=["default"], help="cli: also these presets (auto kernels)")
    ap.add_argument("--ezkl", action="store_true")
    args = ap.parse_args()
    fn = {"kernels": cmd_kernels, "compile": cmd_compile, "cli": cmd_cli}[args.command]
    print(json.dumps(fn(args), indent=2))


if __name__ == "__main__":
    main()
