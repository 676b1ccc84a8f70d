"""Where a segmented proof's tasks run (prover/segments.py): in this process, or as Ray tasks on a
cluster (`luminair prove ... --ray [ADDRESS]`). Every task is a pure function of its arguments, so
Ray may retry a task whose worker died and the proof's bytes stay the same."""

from __future__ import annotations

import socket
import time
from typing import Any, Callable, Protocol, Sequence

Progress = Callable[[int, int, str], None]

RAY_HINT = "Ray is not installed: pip install 'luminair[ray]' (segments run in this process without it)"


class SchedulerError(RuntimeError):
    """A cluster that cannot be reached or started, or a task that failed for want of it."""


class RayMissing(SchedulerError):
    """Ray is not installed."""


def _reachable(address: str, timeout: float = 5.0) -> None:
    """SchedulerError unless a "host:port" (or "ray://host:port") address accepts a connection."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # ("auto" and the like: Ray's own lookup)
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as e:
        raise SchedulerError(f"Ray at {address}: cannot connect ({e.strerror or e})") from None


class Scheduler(Protocol):
    def map(self, fn: Callable[..., Any], args: Sequence[tuple], stage: str, progress: Progress | None = None) -> list[Any]:
        """fn(*a) for every a in args, results in order; progress(done, of, stage) as tasks finish."""


class InProcess:
    """Each task in turn, here."""

    def map(self, fn: Callable[..., Any], args: Sequence[tuple], stage: str, progress: Progress | None = None) -> list[Any]:
        out = []
        for i, a in enumerate(args):
            out.append(fn(*a))
            if progress:
                progress(i + 1, len(args), stage)
        return out


in_process = InProcess()


class RayScheduler:
    """Tasks on a Ray cluster: `address` (None: a local cluster of `num_cpus` workers, started here).
    A task whose worker dies is retried (max_retries) and gives the same result; task_seconds holds
    (stage, seconds) of every task that returned."""

    def __init__(self, address: str | None = None, num_cpus: int | None = None, max_retries: int = 3) -> None:
        try:
            import ray
        except ImportError:
            raise RayMissing(RAY_HINT) from None
        self.ray = ray
        if not ray.is_initialized():
            if address:
                _reachable(address)  # (ray.init retries an unreachable address without end)
            kwargs: dict[str, Any] = {"address": address} if address else {"num_cpus": num_cpus}
            try:
                ray.init(include_dashboard=False, log_to_driver=False, **kwargs)
            except Exception as e:  # noqa: BLE001 - Ray's own errors, in one line
                raise SchedulerError(f"Ray at {address or 'a local cluster'}: {type(e).__name__}: {e}") from None
        self.max_retries = max_retries
        self.task_seconds: list[tuple[str, float]] = []

    def map(self, fn: Callable[..., Any], args: Sequence[tuple], stage: str, progress: Progress | None = None) -> list[Any]:
        ray = self.ray
        remote = ray.remote(max_retries=self.max_retries)(_timed).options(name=stage)
        pending = {remote.remote(fn, *a): i for i, a in enumerate(args)}
        out: list[Any] = [None] * len(args)
        left = list(pending)
        while left:
            ready, left = ray.wait(left, num_returns=1)
            i = pending[ready[0]]
            try:
                out[i], seconds = ray.get(ready[0])
            except ray.exceptions.RayTaskError as e:  # the task's own error, as in-process
                cause = getattr(e, "cause", None)
                raise cause if isinstance(cause, Exception) else SchedulerError(f"{stage} task {i}: {e}") from None
            self.task_seconds.append((stage, seconds))
            if progress:
                progress(len(args) - len(left), len(args), stage)
        return out


def _timed(fn: Callable[..., Any], *a: Any) -> tuple[Any, float]:
    t = time.perf_counter()
    return fn(*a), time.perf_counter() - t


def scheduler_for(ray: str | bool | None, num_cpus: int | None = None) -> Scheduler:
    """The CLI's choice: None/False: in this process; True or an address: Ray (a local cluster for
    True); without Ray installed, in this process with the one-line hint on stderr."""
    if not ray:
        return in_process
    try:
        return RayScheduler(None if ray is True else str(ray), num_cpus)
    except RayMissing as e:
        import sys
        print(f"luminair: {e}", file=sys.stderr)
        return in_process
