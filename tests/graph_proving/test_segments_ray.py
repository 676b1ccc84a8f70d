"""Segments and inputs proven as Ray tasks on a local cluster of two worker processes: the same
bytes as in-process, even when a worker is killed in the middle of a task (Ray runs it again;
proving is deterministic)."""

import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import ray

from luminair.prover.scheduler import RayScheduler
from luminair.prover.segments import prove_many, prove_segmented
from luminair.verifier import verify

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_segments import FEED, OTHER, _residual  # noqa: E402


def _killable(marker: str, fn, *args):
    """fn(*args), the first attempt announcing its pid in `marker` and waiting to be killed."""
    if not os.path.exists(marker):
        with open(marker + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(marker + ".tmp", marker)
        time.sleep(60)  # (killed long before this ends)
    return fn(*args)


class KillOnce(RayScheduler):
    """Runs the first task of `stage` through _killable and kills its worker once it is running."""

    def __init__(self, marker: str, stage: str) -> None:
        super().__init__(num_cpus=2)
        self.marker, self.stage = marker, stage

    def map(self, fn, args, stage, progress=None):
        if stage != self.stage:
            return super().map(fn, args, stage, progress)
        wrapped = [((self.marker, fn, *args[0]))] + [(None, fn, *a) for a in args[1:]]
        return super().map(_maybe_killable, wrapped, stage, progress)


def _maybe_killable(marker, fn, *args):
    return fn(*args) if marker is None else _killable(marker, fn, *args)


@pytest.fixture(scope="module")
def cluster():
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield
    ray.shutdown()


def test_segments_on_ray_with_a_worker_killed_mid_task(cluster, tmp_path):
    cx = _residual()
    settings = cx.gen_settings(preset="fast")
    here = prove_segmented(cx, FEED, settings, segments=3)
    marker = str(tmp_path / "pid")
    sched = KillOnce(marker, "segment proofs")
    import threading

    def killer():
        while not os.path.exists(marker):
            time.sleep(0.05)
        os.kill(int(open(marker).read()), signal.SIGKILL)

    t = threading.Thread(target=killer)
    t.start()
    there = prove_segmented(cx, FEED, settings, segments=3, scheduler=sched)
    t.join(timeout=60)
    assert not t.is_alive(), "the first task's worker was never killed"
    assert there.data == here.data
    assert verify(there.data, settings.data, min_security_bits=0).success
    stages = [s for s, _ in sched.task_seconds]
    assert stages.count("boundary roots") == 3 and stages.count("segment proofs") == 3


def test_a_list_of_inputs_on_ray_gives_the_in_process_proofs(cluster):
    cx = _residual()
    settings = cx.gen_settings(preset="fast")
    sched = RayScheduler(num_cpus=2)
    there = prove_many(cx, [FEED, OTHER], settings, scheduler=sched)
    here = prove_many(cx, [FEED, OTHER], settings)
    assert [p.data for p in there] == [p.data for p in here]
    for p, feed in zip(there, (FEED, OTHER)):
        r = verify(p.data, settings.data, min_security_bits=0)
        assert r.success and np.array_equal(np.array(r.outputs["y"]["values"]), cx.run(feed, exact=True)["y"].reshape(-1))


def test_a_symbolic_batch_in_shards_on_ray(cluster):
    from luminair.prover import Graph
    from luminair.prover.segments import prove_shards
    from luminair.prover.symbolic import SymbolicModel

    rng = np.random.default_rng(2)
    w = rng.uniform(-0.5, 0.5, (8, 3))

    def build(batch: int) -> Graph:
        cx = Graph()
        (cx.input("x", (batch, 8)) @ cx.constant(w, "w")).relu().output("y")
        return cx

    model = SymbolicModel(build, {"batch": (1, 8)})
    settings = model.gen_settings(preset="fast")
    xs = rng.uniform(-1, 1, (5, 8))
    there = prove_shards(model, settings, {"x": xs}, 2, scheduler=RayScheduler(num_cpus=2))
    here = prove_shards(model, settings, {"x": xs}, 2)
    assert [p.data for p, _ in there] == [p.data for p, _ in here] and len(there) == 3
    got = []
    for (p, _), b in zip(there, (2, 2, 1)):
        r = verify(p.data, settings.data, min_security_bits=0)
        assert r.success and r.symbols == {"batch": b}, r.error_message
        got += r.outputs["y"]["values"]
    assert np.array_equal(np.array(got), model.graph_at({"batch": 5}).run({"x": xs}, exact=True)["y"].reshape(-1))


def test_a_task_error_on_ray_is_the_tasks_own(cluster):
    from luminair.prover.stark.prove import ProverError

    with pytest.raises(ProverError, match="no cut fits"):
        RayScheduler(num_cpus=2).map(_refuse, [(1,)], "refusals")


def _refuse(_x):
    from luminair.prover.stark.prove import ProverError

    raise ProverError("no cut fits 0.01 GiB a segment")


def test_an_unreachable_ray_address_is_one_line_not_a_hang(tmp_path):
    import subprocess

    from luminair.prover.scheduler import SchedulerError, _reachable

    with pytest.raises(SchedulerError, match="Ray at 127.0.0.1:1: cannot connect"):
        _reachable("127.0.0.1:1")
    repo = Path(__file__).resolve().parents[2]
    model = repo / "examples" / "mlp_16_16_4"
    out = subprocess.run([sys.executable, "-m", "luminair.prover.cli", "prove", str(model / "network.onnx"), "--input",
                          str(model / "input.json"), "--out", str(tmp_path), "--segments", "2", "--ray", "127.0.0.1:1",
                          "--quiet"], capture_output=True, text=True, timeout=120, cwd=repo)
    assert out.returncode == 2, out.stderr
    assert "--ray: Ray at 127.0.0.1:1: cannot connect" in out.stderr and "Traceback" not in out.stderr, out.stderr
