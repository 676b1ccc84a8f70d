"""Profile one example's proof stage by stage and by function (issue 29, round three).

    python bench/profile_prove.py [transformer_tiny] [--preset default] [--serial] [--top 30]

Runs load/compile, gen_settings, gen_trace and prove in this process and prints each stage's time
and the peak RSS reached by its end (ru_maxrss). With --serial, the prover's thread pools run
their tasks inline so cProfile (which sees one thread) attributes the workers' time to functions;
the cumulative and own-time tables then cover settings and prove. Without it, the times are the
threaded ones the CLI sees."""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import sys
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class _Inline:
    """ThreadPoolExecutor's interface, each task run at once in the caller's thread."""

    def __init__(self, *a: Any, **k: Any) -> None:
        pass

    def __enter__(self) -> "_Inline":
        return self

    def __exit__(self, *a: Any) -> None:
        pass

    def map(self, fn: Any, *its: Any) -> Any:
        return [fn(*a) for a in zip(*its)]

    def submit(self, fn: Any, *a: Any, **k: Any) -> Future:
        f: Future = Future()
        f.set_result(fn(*a, **k))
        return f


def _serial() -> None:
    from luminair.prover.stark import circle_fft, kernels, prove

    prove.ThreadPoolExecutor = _Inline  # type: ignore[assignment]
    kernels.threads = lambda: 1
    circle_fft._threads = lambda: 1


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model", nargs="?", default="transformer_tiny")
    ap.add_argument("--preset", default="default")
    ap.add_argument("--serial", action="store_true")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--callers", default="", help="also print the callers of functions matching this")
    args = ap.parse_args()
    if args.serial:
        _serial()
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json

    folder = HERE.parent / "examples" / args.model
    rows: list[tuple[str, float, float]] = []
    t = time.perf_counter()

    def stage(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        rows.append((name, now - t, _rss_mb()))
        t = now

    cx = load_model(folder / "network.onnx")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = read_input_json(folder / "input.json", cx)
    stage("load and compile")
    prof = cProfile.Profile()
    prof.enable()
    settings = cx.gen_settings(preset=args.preset)
    stage("settings")
    trace = cx.gen_trace(feed)
    stage("execution")
    proof = cx.prove(trace, settings, on_stage=stage)
    prof.disable()
    for name, s, rss in rows:
        print(f"{name:24s} {s:7.3f} s  peak RSS {rss:7.0f} MB")
    print(f"total {sum(s for _, s, _ in rows):.2f} s, proof {len(proof.data)} bytes")
    st = pstats.Stats(prof, stream=sys.stdout)
    st.sort_stats("tottime").print_stats(args.top)
    st.sort_stats("cumtime").print_stats(r"prover|verifier", args.top)
    if args.callers:
        st.print_callers(args.callers)


if __name__ == "__main__":
    main()
