"""Circle FRI on the prover side: vectorized folds (twins of verifier.poly.fold_circle_pair and
fold_line_pair), group-packed layer trees and their openings, in the order verifier/fri.py reads."""

from __future__ import annotations

from ...verifier.channel import Channel
from ...verifier.config import PcsConfig
from ...verifier.fields import QM31
from ...verifier.formats import FriLayerProof, FriProof
from ...verifier.fri import fri_schedule, quotient_group_bits
from functools import lru_cache

from . import circle_fft as cf
from . import field_vec as fv
from . import kernels
from .backend import U32, U64, Array, xp
from .merkle_tree import MerkleTree
from .pow_grind import grind  # noqa: F401  (re-exported: prove.py and tests import it from here)

SecureCol = tuple[Array, Array, Array, Array]


class FriProverError(RuntimeError):
    pass


def _const(q: QM31) -> SecureCol:
    return tuple(xp.asarray(c, dtype=U64) for c in q)  # type: ignore[return-value]


def _fold_pairs(col: SecureCol, inv_twiddle: Array, alpha: QM31) -> SecureCol:
    """(f(even) + f(odd)) + alpha * (f(even) - f(odd)) / twiddle for every storage pair."""
    n = col[0].shape[0] // 2
    if kernels.loaded() and kernels.mode() != "numpy" and all(c.dtype == U64 and c.flags.c_contiguous for c in col):
        out = tuple(xp.empty(n, dtype=U64) for _ in range(4))
        kernels.m31().fold_pairs(*col, inv_twiddle, *(U64(a) for a in alpha), *out)
        return out  # type: ignore[return-value]
    even = tuple(c[0::2] for c in col)
    odd = tuple(c[1::2] for c in col)
    f0 = fv.q_add(even, odd)  # type: ignore[arg-type]
    f1 = fv.q_mul_base(fv.q_sub(even, odd), inv_twiddle)  # type: ignore[arg-type]
    return fv.q_add(f0, fv.q_mul(f1, _const(alpha)))


@lru_cache(maxsize=64)
def _inverse_twiddles(kind: str, log_size: int) -> Array:
    """1 / y of the circle domain's pairs, or 1 / x of the line domain's (made once per size)."""
    # the circle domain's even storage positions are its half coset
    t = cf.half_coset(log_size)[1] if kind == "circle" else cf.line_domain_points(log_size)[0::2]
    return fv.batch_inverse(xp.ascontiguousarray(t))


def fold_circle(col: SecureCol, log_size: int, alpha: QM31) -> SecureCol:
    """Circle -> line fold of a whole column (storage pairs (2i, 2i+1) are (p, conj p)); twin of
    verifier.poly.fold_circle_pair."""
    return _fold_pairs(col, _inverse_twiddles("circle", log_size), alpha)


def fold_line(col: SecureCol, log_size: int, alpha: QM31) -> SecureCol:
    """Line fold of a whole column (pairs (x, -x)); twin of verifier.poly.fold_line_pair."""
    return _fold_pairs(col, _inverse_twiddles("line", log_size), alpha)


def group_columns(col: SecureCol, bits: int = 1) -> list[Array]:
    """4 << bits base columns of 2^-bits the length: for each member t of the groups of 2^bits
    consecutive positions, its 4 coordinates (verifier/fri.py's leaf layout). As uint32 (canonical
    values fit): the layer trees keep them until the openings."""
    return [xp.ascontiguousarray(c[t :: 1 << bits], dtype=U32) for t in range(1 << bits) for c in col]


class FriProver:
    def __init__(self, config: PcsConfig, quotients: dict[int, SecureCol]) -> None:
        self.config = config
        self.quotients = quotients
        self.sizes = sorted(quotients, reverse=True)
        self.max_log = self.sizes[0]
        self.m_last, self.schedule = fri_schedule(self.sizes, config)
        self.bits = quotient_group_bits(self.sizes, config)
        self.first_tree: MerkleTree | None = None
        self.layers: list[tuple[SecureCol, MerkleTree]] = []
        self.last_layer: list[QM31] = []

    def commit(self, channel: Channel) -> None:
        cols: list[Array] = []
        for size in self.sizes:
            cols += group_columns(self.quotients[size], self.bits[size])
        self.first_tree = MerkleTree(cols)
        channel.mix_root(self.first_tree.root)
        alpha = channel.draw_felt()
        cur = fold_circle(self.quotients[self.max_log], self.max_log, alpha)
        for m, steps in self.schedule:
            tree = MerkleTree(group_columns(cur, steps))
            self.layers.append((cur, tree))
            channel.mix_root(tree.root)
            betas = [channel.draw_felt() for _ in range(steps)]
            for level, beta in zip(range(m, m - steps, -1), betas):
                nxt = fold_line(cur, level, beta)
                if level in self.quotients:
                    beta2 = fv.q_mul(_const(beta), _const(beta))
                    folded = fold_circle(self.quotients[level], level, beta)
                    nxt = fv.q_add(fv.q_mul(nxt, beta2), folded)  # type: ignore[arg-type]
                cur = nxt
        coeffs = cf.line_interpolate(xp.stack(cur))
        d = 1 << (self.m_last - self.config.log_blowup)
        if xp.any(coeffs[:, d:]):
            raise FriProverError("the last FRI layer is not of low degree (the quotients are not polynomials)")
        self.last_layer = [tuple(int(coeffs[k][i]) for k in range(4)) for i in range(d)]  # type: ignore[misc]
        channel.mix_felts(self.last_layer)

    def decommit(self, queries: list[int]) -> FriProof:
        assert self.first_tree is not None
        # First layer: the groups of the queried quotient positions, size by size.
        siblings: list[QM31] = []
        leaf_queries: dict[int, list[int]] = {}
        for size in self.sizes:
            bits = self.bits[size]
            pos = sorted({q >> (self.max_log - size) for q in queries})
            siblings += self._siblings(self.quotients[size], pos, bits)
            leaf_queries[size - bits] = sorted({p >> bits for p in pos})
        _, dec = self.first_tree.decommit(leaf_queries)
        first = FriLayerProof(self.first_tree.root, siblings, dec)
        inner = []
        for (cur, tree), (m, steps) in zip(self.layers, self.schedule):
            pos = sorted({q >> (self.max_log - m) for q in queries})
            sib = self._siblings(cur, pos, steps)
            _, dec = tree.decommit({m - steps: sorted({p >> steps for p in pos})})
            inner.append(FriLayerProof(tree.root, sib, dec))
        return FriProof(first, inner, self.last_layer)

    @staticmethod
    def _siblings(col: SecureCol, positions: list[int], bits: int) -> list[QM31]:
        known = set(positions)
        out = []
        for g in sorted({p >> bits for p in positions}):
            for member in range(g << bits, (g + 1) << bits):
                if member not in known:
                    out.append(tuple(int(c[member]) for c in col))
        return out  # type: ignore[return-value]
