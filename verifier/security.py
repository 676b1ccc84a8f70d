"""Security accounting: every soundness term of one proof's AIR and configuration, in bits.

The QM31 field has p^4 ~ 2^124 elements. For an AIR whose largest trace has 2^n rows:
* FRI (conjectured, ethSTARK-style as Stwo counts it): pow_bits + log_blowup * n_queries.
* LogUp: a false data-flow or lookup statement passes only if the random (z, alpha) of a relation
  makes a denominator vanish or is a root of the cleared sum; each denominator
  sum_j alpha^j v_j - z has degree D = max(1, A - 1) for arity <= A, so the cleared sum of F
  fractions has degree <= F D (Schwartz-Zippel, both events): 124 - log2(2 F D), plus the
  interaction proof of work ground before drawing them. (Every relation holds fewer than P
  entries, air/framework.check_entry_bound, so a tuple's multiplicities cannot wrap around P.)
* Freivalds (matrix products, graph/matmul.py): a wrong product passes only if its instance's
  (mu, rho, lambda) is a root of a non-zero polynomial of degree <= M + N + 1 (its share of the
  claimed sums, independent of the LogUp challenges and of every other instance's, without a
  constant term: air/framework.py): 124 - log2(sum over instances of their degree), bounded by
  each MatOut's rows, plus the interaction proof of work ground before them.
* Segment fingerprints (a segmented proof's boundary tensors, docs/segments.md): two different
  tensors have the same fingerprint only at a root of a polynomial of degree below the boundary
  component's rows in the bundle's rho: 124 - log2(sum of those rows), without grinding (rho
  comes from the bundle's seed).
* Constraint combination (composition alpha): 124 - log2(number of constraints).
* OODS: the composition identity checked at one random point: 124 - log2(2^(n+3) + samples), the
  degree bound of the constraints (degree <= 5, the LogUp batches: below 2^(n + LOG_EXPAND + 1))
  plus the DEEP combination of the sampled values.
* FRI folding: each folding challenge errs with probability about (domain size) / |F|; the domains
  halve at every layer, so all layers together stay below 2 * 2^(n + blowup) / |F|:
  124 - (n + log_blowup + 1).
* Merkle commitments: opening a committed value two ways needs a collision of the DIGEST_BYTES
  digests (verifier/merkle.py), about 2^(4 DIGEST_BYTES) hashes: 4 DIGEST_BYTES bits.
A proof is forged if any of these events happens, so its security is the union bound,
-log2(sum over terms of 2^-term) (below the smallest term); the verifier refuses it below its floor.
"""

from __future__ import annotations

import math
from typing import Any

from .air.framework import LOG_EXPAND
from .config import PcsConfig
from .merkle import DIGEST_BYTES

FIELD_BITS = 124  # log2 |QM31| = 4 log2(2^31 - 1), rounded down


def soundness_terms(config: PcsConfig, air: Any, public_terms: int = 0) -> dict[str, float]:
    """Each term in bits (rounded down to a tenth), for `air` under `config`."""
    fractions = public_terms
    arity = 1
    constraints = 0
    freivalds = shared = 0
    for comp, info in zip(air.components, air.infos):
        fractions += len(info.entries) << comp.log_size
        freivalds += getattr(comp, "challenge_degree", 0)
        shared += getattr(comp, "shared_degree", 0)
        arity = max([arity, *(a for _, a in info.entries)])
        constraints += info.n_constraints
    denominator_degree = max(1, arity - 1)
    samples = sum(len(slot.masks) for cols in air.layout.columns for slot in cols)
    n = air.max_log_size
    terms = {
        "FRI queries + proof of work": float(config.security_bits),
        "LogUp": FIELD_BITS - math.log2(2 * max(1, fractions) * denominator_degree) + config.interaction_pow_bits,
        "constraint combination": FIELD_BITS - math.log2(max(1, constraints)),
        "OODS / DEEP": FIELD_BITS - math.log2((1 << (n + LOG_EXPAND + 1)) + samples),
        "FRI folding": float(FIELD_BITS - (n + config.log_blowup + 1)),
        "Merkle digests": float(4 * DIGEST_BYTES),
    }
    if freivalds:
        terms["Freivalds"] = FIELD_BITS - math.log2(freivalds) + config.interaction_pow_bits
    if shared:  # a segment's boundary fingerprints at the bundle's rho (docs/segments.md)
        terms["segment fingerprints"] = FIELD_BITS - math.log2(shared)
    return {k: math.floor(v * 10) / 10 for k, v in terms.items()}


def security_bits(terms: dict[str, float]) -> int:
    """The union bound of the terms, in whole bits (rounded down)."""
    return int(union_bits(terms))


def union_bits(terms: dict[str, float]) -> float:
    """-log2(sum of 2^-term): the probability that any of the events happens, in bits."""
    return -math.log2(math.fsum(2.0 ** -t for t in terms.values()))


def weakest(terms: dict[str, float]) -> str:
    return min(terms, key=lambda k: terms[k])
