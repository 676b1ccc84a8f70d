"""Graphs that several test modules build (each module then proves, plans or fuzzes it)."""

from __future__ import annotations

import numpy as np


def views_graph(cx) -> None:  # noqa: ANN001 - a luminair.prover.Graph
    """A private input, a broadcast, a transposed weight, a pad and a slice, Sqrt / Recip / Mod,
    both reductions, and a transposed output (inputs: x (3, 4) in (0.1, 0.9), k (4,) in (0.1, 0.5))."""
    rng = np.random.default_rng(5)
    x = cx.input("x", (3, 4))
    k = cx.input("k", (4,), private=True)
    w = cx.constant(rng.uniform(0.2, 0.9, (4, 3)), "w")
    h = (x + k.expand((3, 4))) * w.permute((1, 0))
    q = h.pad(((1, 0), (0, 2)))[0:3, 1:5]
    r = q.sqrt() + (q + 2.0).recip()
    r.max_reduce(1).output("m")
    r.permute((1, 0)).output("rt")
    (r % 0.5).sum_reduce(0).output("s")
