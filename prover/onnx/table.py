"""The importer's op table: every ONNX op it converts, how, and its error bound against float.

Each entry says how an op is computed (the primitives it becomes, or "folded at import" for
shape arithmetic on static values) and its worst-case error against the real function for inputs
that are exact fixed-point values, in units of eps = 2^-s (one raw unit, 2^-10 at the default
scale). The bound a user gets for a whole model and input is prover.graph.error_bound, which
propagates these through the graph; the op table of docs/onnx.md is generated from this one
(``python -m luminair.prover.onnx.op_table``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from luminair.prover.graph import GraphTensor

if TYPE_CHECKING:
    from .importer import Importer, OnnxNode

Value = GraphTensor | np.ndarray
Handler = Callable[["Importer", "OnnxNode"], list[Value]]

# bound texts shared by many entries
EXACT = "exact (no rounding)"
VIEW = "exact (a view: no arithmetic)"
ONE_ROUNDING = "eps/2 (one rounding)"
FOLDED = "exact (computed at import on static values)"


@dataclass(frozen=True)
class OpEntry:
    """One ONNX op: its handler, what it becomes, and its error bound against float. ``sweep``
    (unary elementwise ops): the real interval op_table runs every fixed-point input of, at the
    default scale, for the measured worst error beside the stated bound."""

    name: str
    handler: Handler
    meaning: str
    bound: str
    sweep: tuple[float, float] | None = None


OPS: dict[str, OpEntry] = {}
HANDLERS: dict[str, Handler] = {}


def register(names: str | tuple[str, ...], fn: Handler, meaning: str, bound: str,
             sweep: tuple[float, float] | None = None) -> Handler:
    for name in (names,) if isinstance(names, str) else names:
        if name in OPS:
            raise ValueError(f"ONNX op {name} registered twice")
        OPS[name] = OpEntry(name, fn, meaning, bound, sweep)
        HANDLERS[name] = fn
    return fn


def handler(*names: str, meaning: str, bound: str, sweep: tuple[float, float] | None = None
            ) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of the ONNX ops ``names``."""

    def deco(fn: Handler) -> Handler:
        return register(names, fn, meaning, bound, sweep)

    return deco


FULL = (-32.0, 31.999)  # every 16-bit value at scale 2^10


# Ops whose inputs or outputs are sequences, maps, optionals or strings: no tensor semantics in a
# fixed-point graph, refused by name (with this reason) before anything is built.
NON_TENSOR_OPS = frozenset({
    "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength",
    "SequenceMap", "SplitToSequence", "ConcatFromSequence", "Optional", "OptionalGetElement",
    "OptionalHasElement", "StringNormalizer", "StringConcat", "StringSplit", "RegexFullMatch",
    "TfIdfVectorizer", "CastMap", "DictVectorizer", "ZipMap", "LabelEncoder",
})

# Ops whose results are random: never folded, even on static inputs.
RANDOM_OPS = frozenset({"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Bernoulli",
                        "Multinomial"})
