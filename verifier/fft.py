"""Reference circle and line FFTs in pure Python (docs/protocol.md, section 3).

The verifier uses these only to recompute small preprocessed commitments (the square-lookup
example's table root); the prover's numpy FFT (prover/stark/circle_fft.py) is cross-tested against them.

Evaluations are in bit-reversed storage order of the canonic circle domain (or line domain);
coefficients are in natural order in the basis documented in verifier/poly.py. Layer j of the
transform pairs indices that differ in bit j, and the twiddle of a pair depends only on the bits
above j (its position in the layer's domain).
"""

from __future__ import annotations

from functools import lru_cache

from .circle import domain_point, line_domain_x
from .fields import P, batch_inverse


@lru_cache(maxsize=64)
def circle_twiddles(log_size: int) -> tuple[tuple[int, ...], ...]:
    """Per layer j: the twiddle of each pair (layer 0: y of circle points, layer j>0: x of the line
    domain of log size n-j)."""
    layers = [tuple(domain_point(2 * i, log_size)[1] for i in range(1 << (log_size - 1)))]
    for j in range(1, log_size):
        m = log_size - j
        layers.append(tuple(line_domain_x(2 * i, m) for i in range(1 << (m - 1))))
    return tuple(layers)


@lru_cache(maxsize=64)
def line_twiddles(log_size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(line_domain_x(2 * i, log_size - j) for i in range(1 << (log_size - j - 1)))
        for j in range(log_size)
    )


def _forward(values: list[int], twiddles: tuple[tuple[int, ...], ...]) -> list[int]:
    v = list(values)
    for j in range(len(twiddles) - 1, -1, -1):
        half = 1 << j
        for h, t in enumerate(twiddles[j]):
            base = h << (j + 1)
            for idx in range(base, base + half):
                a, b = v[idx], v[idx + half] * t % P
                v[idx], v[idx + half] = (a + b) % P, (a - b) % P
    return v


def _inverse(values: list[int], twiddles: tuple[tuple[int, ...], ...]) -> list[int]:
    v = list(values)
    for j in range(len(twiddles)):
        half = 1 << j
        inv = batch_inverse(list(twiddles[j]))
        for h, t in enumerate(inv):
            base = h << (j + 1)
            for idx in range(base, base + half):
                a, b = v[idx], v[idx + half]
                v[idx], v[idx + half] = (a + b) % P, (a - b) * t % P
    n_inv = pow(len(v), P - 2, P)
    return [x * n_inv % P for x in v]


def circle_evaluate(coeffs: list[int]) -> list[int]:
    """Coefficients (natural order) -> evaluations on the canonic circle domain (bit-reversed)."""
    n = len(coeffs).bit_length() - 1
    return _forward(coeffs, circle_twiddles(n))


def circle_interpolate(evals: list[int]) -> list[int]:
    n = len(evals).bit_length() - 1
    return _inverse(evals, circle_twiddles(n))


def line_evaluate(coeffs: list[int]) -> list[int]:
    n = len(coeffs).bit_length() - 1
    return _forward(coeffs, line_twiddles(n))


def line_interpolate(evals: list[int]) -> list[int]:
    n = len(evals).bit_length() - 1
    return _inverse(evals, line_twiddles(n))
