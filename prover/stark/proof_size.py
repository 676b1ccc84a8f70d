"""An estimate of a proof's size before it is made: what a preset sized for time needs to stay
within its byte budget (prover/presets.py preset_config). It counts, from the AIR's layout and the
config alone, what every region of verifier/formats.StarkProof carries: sampled values, queried
values and Merkle paths of each trace tree, FRI siblings, paths and last layer. Public values (the
statement's, not the proof system's) are not counted. Checked against real proofs in
tests/stark/test_proof_size.py."""

from __future__ import annotations

from ...verifier.air.framework import Air
from ...verifier.config import PcsConfig
from ...verifier.fri import _layer_bytes, fri_schedule, quotient_group_bits
from ...verifier.merkle import DIGEST_BYTES

_FIXED = 256  # header, settings digest, roots, claimed sums, nonces (their exact count varies a little)


def _paths(queries: int, height: int) -> int:
    """Digests of `queries` Merkle paths in a tree of 2^height leaves: one a level below the
    levels where the paths have met (about log2 queries from the root)."""
    q = min(queries, 1 << height)
    return q * max(0, height - (q.bit_length() - 1)) * DIGEST_BYTES


def estimate_proof_bytes(air: Air, config: PcsConfig) -> int:
    """About the proof's bytes less its public values (within a few percent on this project's
    models; an overestimate where queries collide)."""
    b = config.log_blowup
    q = config.n_queries
    lay = air.layout
    total = _FIXED + 16 * sum(len(slot.masks) for cols in lay.columns for slot in cols)
    for cols in lay.columns:
        height = max(slot.log_size for slot in cols) + b
        total += 4 * sum(min(q, 1 << (slot.log_size + b)) for slot in cols) + _paths(q, height)
    sizes = sorted({slot.log_size + b for cols in lay.columns for slot in cols}, reverse=True)
    m_last, schedule = fri_schedule(sizes, config)
    bits = quotient_group_bits(sizes, config)
    top = sizes[0]
    total += DIGEST_BYTES + _paths(q, top - bits[top]) + q * ((1 << bits[top]) - 1) * 16  # first layer
    total += sum(_layer_bytes(m, steps, sizes, config) for m, steps in schedule)  # with later quotients' siblings
    return total + (16 << max(0, m_last - b))
