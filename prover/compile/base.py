"""What a compiler is, and the combinators that stack them.

A compiler is any object with ``compile(graph)``; it rewrites the graph in place through
``graph.transform`` / ``graph.remove_unused`` (which keep user handles valid). A tuple of compilers
is a compiler that runs them in order (``graph.compile(A(), (B(), C()))``).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from luminair.prover.graph import Graph, run_compilers
from luminair.prover.graph.errors import CompileError


@runtime_checkable
class Compiler(Protocol):
    def compile(self, graph: Graph) -> Any: ...


class Sequence:
    """Run compilers in order (the same as a tuple of them)."""

    def __init__(self, *compilers: Any):
        self.compilers = compilers

    def compile(self, graph: Graph) -> None:
        run_compilers(self.compilers, graph)

    def __repr__(self) -> str:
        return f"Sequence{self.compilers!r}"


class Looped:
    """Rerun a compiler until the graph stops changing (a fixed point)."""

    def __init__(self, *compilers: Any, max_rounds: int = 100):
        self.compilers = compilers
        self.max_rounds = max_rounds
        self.rounds = 0

    def compile(self, graph: Graph) -> None:
        before = graph.signature()
        for self.rounds in range(1, self.max_rounds + 1):
            run_compilers(self.compilers, graph)
            after = graph.signature()
            if after == before:
                return
            before = after
        raise CompileError(f"{self!r} did not reach a fixed point in {self.max_rounds} rounds")

    def __repr__(self) -> str:
        return f"Looped{self.compilers!r}"
