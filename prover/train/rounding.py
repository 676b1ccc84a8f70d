"""Deterministic stochastic rounding of a parameter update, built from primitive ops.

The update lr * u (u: the optimizer's direction, |u| <= u_bound) is rounded to the parameter's
grid of 2^-s with noise n, an integer in [0, 2^bits) per element derived from (seed, step, parameter
index) by ``verifier.graph.training.sr_noise`` (the verifier recomputes it):

    T   = u * c                  c = lr * 2^bits (a constant), so T_raw ~ lr * u * 2^(s + bits)
    D   = T + n                  n read as raw units
    Q   = D - (D mod 2^bits)     Mod by the raw constant 2^bits: floor to a multiple of 2^bits
    q   = Q * 2^-bits            exact (a multiple of 2^bits times 2^(s - bits) raw)
    new = p - q

so new_raw = p_raw - floor((T_raw + n) / 2^bits): over uniform n this is p_raw - T_raw / 2^bits
exactly in expectation (unbiased rounding of the update to one raw unit).
"""

from __future__ import annotations

import math

from ..graph import GraphError, GraphTensor
from ..graph.hl_math import mul_const

T_HEADROOM = 16.0  # |T| <= 16 (half the range at scale 10) leaves room for the noise


def noise_bits(lr: float, u_bound: float, scale_bits: int) -> int:
    """The most noise bits (<= scale_bits) for which lr * 2^bits * u_bound stays within T_HEADROOM
    and the noise below 2^bits raw units fits in the value range."""
    if not (lr > 0 and math.isfinite(lr)):
        raise GraphError(f"the learning rate must be a positive number, got {lr!r}")
    room = T_HEADROOM * min(1.0, 2.0 ** (10 - scale_bits))  # |T| in real units at this scale
    bits = min(scale_bits, math.floor(math.log2(room / (lr * u_bound))))
    if bits < 1:
        raise GraphError(
            f"learning rate {lr} with update bound {u_bound} leaves no room for stochastic rounding at "
            f"scale 2^{scale_bits}: use a smaller learning rate or scale"
        )
    return bits


def sr_step(p: GraphTensor, u: GraphTensor, lr: float, bits: int, noise: GraphTensor) -> GraphTensor:
    """p - lr * u, stochastically rounded with ``noise`` (raw integers in [0, 2^bits))."""
    s = p.graph.numeric_format.scale_bits
    if not 1 <= bits <= s:
        raise GraphError(f"noise bits must be in [1, {s}], got {bits}")
    unit = 2.0 ** (bits - s)  # the real value of raw 2^bits
    t = mul_const(u, lr * (1 << bits))
    d = t + noise
    q = (d - d % unit) * (2.0**-bits)
    return p - q


def effective_lr(lr: float, bits: int, scale_bits: int) -> float:
    """The learning rate the fixed-point step applies: c = lr * 2^bits as mul_const quantizes it."""
    m, e = math.frexp(lr * (1 << bits))  # mul_const: mantissa in [0.5, 1) times a power of two
    if e <= 0:
        return math.floor(m * (1 << scale_bits) + 0.5) / (1 << scale_bits) * 2.0**e / (1 << bits)
    c = math.floor(lr * (1 << bits) * (1 << scale_bits) + 0.5) / (1 << scale_bits)
    return c / (1 << bits)
