"""Calibration of the global fixed-point scale from sample inputs (as EZKL's `calibrate_settings`
chooses its scales): the largest scale 2^s, s in [MIN_SCALE_BITS, MAX_SCALE_BITS], at which every
node's exact fixed-point value over every sample stays within the 16-bit range with `headroom_bits`
to spare (|raw| < 2^(15 - headroom_bits): inputs a little past the samples still fit). A node that
no input reaches (a constant, a mask folded from constants) is the same for every input: it needs
only to fit, with no headroom. A larger scale is a finer resolution: the most accurate format the
samples allow."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from luminair.verifier.numeric import MAX_SCALE_BITS, MIN_SCALE_BITS, VALUE_BITS, NumericError, NumericFormat

from . import execute as ex
from .ops import Op

if TYPE_CHECKING:
    from .graph import Graph

DEFAULT_HEADROOM_BITS = 1


@dataclass(frozen=True)
class Calibration:
    scale_bits: int
    headroom_bits: int
    samples: int
    peak_raw: int  # the largest |raw value| of any node over the samples at the chosen scale
    peak_node: str  # where it is

    def as_dict(self) -> dict[str, Any]:
        return {"scale_bits": self.scale_bits, "headroom_bits": self.headroom_bits, "samples": self.samples,
                "peak_raw": self.peak_raw, "peak_node": self.peak_node}


def _input_dependent(graph: Graph) -> set[int]:
    """Ids of the nodes that some input reaches."""
    reached: set[int] = set()
    for node in graph.nodes():  # topological
        if node.op is Op.INPUT or any(src.id in reached for src, _ in node.srcs):
            reached.add(node.id)
    return reached


def _peak(graph: Graph, samples: Sequence[Mapping[str, Any]], fmt: NumericFormat) -> tuple[int, str]:
    """The largest |raw| of any input-dependent node over the samples at fmt, and the node;
    NumericError where a value leaves the range or an op its domain."""
    best, where = 0, ""
    varying = _input_dependent(graph)
    for sample in samples:
        vals = ex.execute_exact(graph.nodes(), graph._check_inputs(sample), fmt)
        for node in graph.nodes():
            v = vals[node.id]
            if v.size and not node.index and node.id in varying:
                m = int(np.abs(v).max())
                if m > best:
                    best, where = m, node.where()
    return best, where


def calibrate(graph: Graph, samples: Sequence[Mapping[str, Any]], headroom_bits: int = DEFAULT_HEADROOM_BITS) -> Calibration:
    """The largest scale whose exact runs of the samples fit with headroom (see the module
    docstring); sets graph.numeric_format to it. Raises NumericError naming the node, element and
    value (and this calibration) where no scale holds the samples."""
    if not samples:
        raise ValueError("calibrate needs at least one sample input")
    if not 0 <= headroom_bits < VALUE_BITS - 1:
        raise ValueError(f"headroom_bits must be in [0, {VALUE_BITS - 2}], got {headroom_bits}")
    limit = 1 << (VALUE_BITS - 1 - headroom_bits)
    last: Exception | None = None
    for s in range(MAX_SCALE_BITS, MIN_SCALE_BITS - 1, -1):
        fmt = NumericFormat(s)
        try:
            peak, where = _peak(graph, samples, fmt)
        except NumericError as e:
            last = e
            continue
        if peak < limit:
            graph.numeric_format = fmt
            return Calibration(s, headroom_bits, len(samples), peak, where)
        last = NumericError(f"{where}: raw value {peak} leaves less than {headroom_bits} bit(s) of headroom")
    raise NumericError(f"calibration over {len(samples)} sample(s), headroom {headroom_bits} bit(s): no scale "
                       f"2^{MIN_SCALE_BITS}..2^{MAX_SCALE_BITS} holds them; at 2^{MIN_SCALE_BITS}: {last}")
