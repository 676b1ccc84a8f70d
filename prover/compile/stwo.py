"""Placeholder for the lowering to the prover's AIR components (filled by the proving issue)."""

from __future__ import annotations

from luminair.prover.graph import Graph


class StwoCompiler:
    """No-op for now: the graph of primitives is already what the prover consumes."""

    def compile(self, graph: Graph) -> None:
        return None
