"""Shared bench helpers: medians over runs, peak RSS of a fresh process, machine description."""

from __future__ import annotations

import os
import platform
import resource
import statistics
import time
from typing import Any, Callable


def timed(fn: Callable[[], Any], runs: int) -> tuple[list[float], Any]:
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return times, out


def med_ms(times: list[float]) -> float:
    return round(1000 * statistics.median(times), 2)


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def machine() -> dict[str, Any]:
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = round(int(f.readline().split()[1]) / 2**20, 1)
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "memory_gib": mem, "python": platform.python_version(), "platform": platform.platform()}
