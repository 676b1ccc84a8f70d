"""Circle FRI on the prover side: vectorized folds (twins of verifier.poly.fold_circle_pair and
fold_line_pair), pair-packed layer trees and their openings, in the order verifier/fri.py reads."""

from __future__ import annotations

from ...verifier.channel import Channel
from ...verifier.config import PcsConfig
from ...verifier.fields import QM31
from ...verifier.formats import FriLayerProof, FriProof
from ...verifier.fri import last_layer_log_size
from . import circle_fft as cf
from . import field_vec as fv
from .backend import U64, Array, xp
from .merkle_tree import MerkleTree
from .pow_grind import grind  # noqa: F401  (re-exported: prove.py and tests import it from here)

SecureCol = tuple[Array, Array, Array, Array]


class FriProverError(RuntimeError):
    pass


def _const(q: QM31) -> SecureCol:
    return tuple(xp.asarray(c, dtype=U64) for c in q)  # type: ignore[return-value]


def _fold_pairs(col: SecureCol, twiddle: Array, alpha: QM31) -> SecureCol:
    """(f(even) + f(odd)) + alpha * (f(even) - f(odd)) / twiddle for every storage pair."""
    even = tuple(c[0::2] for c in col)
    odd = tuple(c[1::2] for c in col)
    f0 = fv.q_add(even, odd)  # type: ignore[arg-type]
    f1 = fv.q_mul_base(fv.q_sub(even, odd), fv.batch_inverse(twiddle))  # type: ignore[arg-type]
    return fv.q_add(f0, fv.q_mul(f1, _const(alpha)))


def fold_circle(col: SecureCol, log_size: int, alpha: QM31) -> SecureCol:
    """Circle -> line fold of a whole column (storage pairs (2i, 2i+1) are (p, conj p)); twin of
    verifier.poly.fold_circle_pair."""
    return _fold_pairs(col, cf.domain_points(log_size)[1][0::2], alpha)


def fold_line(col: SecureCol, log_size: int, alpha: QM31) -> SecureCol:
    """Line fold of a whole column (pairs (x, -x)); twin of verifier.poly.fold_line_pair."""
    return _fold_pairs(col, cf.line_domain_points(log_size)[0::2], alpha)


def pair_columns(col: SecureCol) -> list[Array]:
    """8 base columns of half length: 4 coordinates at even positions, then at odd positions."""
    return [c[0::2].copy() for c in col] + [c[1::2].copy() for c in col]


class FriProver:
    def __init__(self, config: PcsConfig, quotients: dict[int, SecureCol]) -> None:
        self.config = config
        self.quotients = quotients
        self.sizes = sorted(quotients, reverse=True)
        self.max_log = self.sizes[0]
        self.m_last = last_layer_log_size(config, self.sizes[-1])
        self.first_tree: MerkleTree | None = None
        self.layers: list[tuple[SecureCol, MerkleTree]] = []
        self.last_layer: list[QM31] = []

    def commit(self, channel: Channel) -> None:
        cols: list[Array] = []
        for size in self.sizes:
            cols += pair_columns(self.quotients[size])
        self.first_tree = MerkleTree(cols)
        channel.mix_root(self.first_tree.root)
        alpha = channel.draw_felt()
        cur = fold_circle(self.quotients[self.max_log], self.max_log, alpha)
        m = self.max_log - 1
        while m > self.m_last:
            tree = MerkleTree(pair_columns(cur))
            self.layers.append((cur, tree))
            channel.mix_root(tree.root)
            beta = channel.draw_felt()
            nxt = fold_line(cur, m, beta)
            if m in self.quotients:
                beta2 = fv.q_mul(_const(beta), _const(beta))
                folded = fold_circle(self.quotients[m], m, beta)
                nxt = fv.q_add(fv.q_mul(nxt, beta2), folded)  # type: ignore[arg-type]
            cur = nxt
            m -= 1
        coeffs = cf.line_interpolate(xp.stack(cur))
        d = 1 << (self.m_last - self.config.log_blowup)
        if xp.any(coeffs[:, d:]):
            raise FriProverError("the last FRI layer is not of low degree (the quotients are not polynomials)")
        self.last_layer = [tuple(int(coeffs[k][i]) for k in range(4)) for i in range(d)]  # type: ignore[misc]
        channel.mix_felts(self.last_layer)

    def decommit(self, queries: list[int]) -> FriProof:
        assert self.first_tree is not None
        # First layer: siblings of the queried quotient positions, size by size.
        siblings: list[QM31] = []
        pair_queries: dict[int, list[int]] = {}
        for size in self.sizes:
            pos = sorted({q >> (self.max_log - size) for q in queries})
            siblings += self._siblings(self.quotients[size], pos)
            pair_queries[size - 1] = sorted({p >> 1 for p in pos})
        _, dec = self.first_tree.decommit(pair_queries)
        first = FriLayerProof(self.first_tree.root, siblings, dec)
        inner = []
        m = self.max_log - 1
        for cur, tree in self.layers:
            pos = sorted({q >> (self.max_log - m) for q in queries})
            sib = self._siblings(cur, pos)
            _, dec = tree.decommit({m - 1: sorted({p >> 1 for p in pos})})
            inner.append(FriLayerProof(tree.root, sib, dec))
            m -= 1
        return FriProof(first, inner, self.last_layer)

    @staticmethod
    def _siblings(col: SecureCol, positions: list[int]) -> list[QM31]:
        known = set(positions)
        out = []
        for i in sorted({p >> 1 for p in positions}):
            for member in (2 * i, 2 * i + 1):
                if member not in known:
                    out.append(tuple(int(c[member]) for c in col))
        return out  # type: ignore[return-value]
