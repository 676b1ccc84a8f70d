"""Shared set-up of the training-step tests: a small MLP program and a cheating prover that lies
about one value of its trace while keeping every later value consistent with the lie."""

from __future__ import annotations

import numpy as np
from luminair.prover.graph.execute import eval_exact
from luminair.prover.train import TDCLM, init_mlp, mlp_program, onehot

SIZES = [8, 8, 4]
BATCH = 8
SEED = 7
MAX_WORK = 50_000_000


def program(**kw):
    kw.setdefault("preset", "fast")
    opt = kw.pop("optimizer", TDCLM(lr=0.02))
    return mlp_program(SIZES, BATCH, opt, **kw)


def batches(n: int, seed: int = 3) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [
        {"x": rng.uniform(0, 1, (BATCH, SIZES[0])), "y": onehot(rng.integers(0, SIZES[-1], BATCH), SIZES[-1])}
        for _ in range(n)
    ]


def start(prog):
    return prog.quantize(init_mlp(SIZES, 0)), prog.init_state()


def relie(graph, trace, node_id: int, index: int, delta: int) -> None:
    """Change one value of node ``node_id`` and recompute every later node from it (no bounds pass),
    then the public outputs: the trace is honest everywhere except at that one node."""
    s = graph.numeric_format.scale_bits
    vals = trace.values
    vals[node_id] = vals[node_id].copy()
    vals[node_id][index] += delta
    for node in graph.nodes():
        if node.id <= node_id or not node.srcs:
            continue
        args = [view.gather(vals[src.id]) for src, view in node.srcs]
        vals[node.id] = np.asarray(eval_exact(node, args, s), dtype=np.int64)
    from luminair.verifier.fields import P

    n_in = sum(1 for n in graph.inputs().values() if not n.private)
    for k, (name, (node, view)) in enumerate(graph.outputs().items()):
        idx = view.src_indices()
        raw = np.where(idx >= 0, vals[node.id][np.maximum(idx, 0)], 0)
        trace.public[n_in + k] = [int(v) % P for v in raw]
