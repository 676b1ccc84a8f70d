"""What the verifier checks a STARK proof against: the AIR a statement implies, the bytes that
identify it in the channel (the settings digest and the public values), the public LogUp terms it
computes itself, and the public values it reports (built by verifier/statement.py)."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

from .air.framework import Air, RelationElements
from .fields import QM31
from .packed import to_le


@dataclass
class Statement:
    """What the verifier checks a STARK proof against, built from settings + public values."""

    air: Air
    statement_bytes: bytes
    public_sum: Callable[[dict[str, RelationElements]], QM31] | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    public_terms: int = 0  # LogUp fractions the verifier adds itself (security accounting)
    training: dict[str, Any] | None = None  # a training step's statement (verifier/graph/training.py)


def statement_bytes(digest: bytes, public_values: Sequence[Sequence[int]]) -> bytes:
    parts = [digest, struct.pack("<I", len(public_values))]
    for vals in public_values:
        parts += [struct.pack("<I", len(vals)), to_le(vals)]
    return b"".join(parts)
