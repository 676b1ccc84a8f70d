"""Circle FRI verifier (circle-stark.md section 12, with pair-packed leaves).

Quotient columns Q_l (one per committed log size l, largest L) are proven low-degree together:
* first layer: one tree committing every Q_l; a leaf holds the fold pair (positions 2i, 2i+1) as
  8 base columns of log size l-1 (4 coordinates of the even member, then of the odd member);
* cur = circle-fold of Q_L with alpha_0 (a line evaluation of log size L-1);
* inner layer at log size m (L-1 down to m_last+1, m_last = log_last_layer + log_blowup, or one below
  the smallest column's log size if that is lower): commit cur
  (pair-packed), draw beta_m, cur = line-fold(cur, beta_m); if some Q_m exists,
  cur = cur * beta_m^2 + circle-fold(Q_m, beta_m);
* last layer: cur must equal a line polynomial with 2^log_last_layer coefficients, sent in clear.
Only the fold partners the verifier cannot compute travel in the proof (`siblings`).
"""

from __future__ import annotations

from .channel import Channel
from .circle import domain_point, line_domain_x
from .config import PcsConfig
from .errors import FriError, MerkleError
from .fields import QM31, q_add, q_mul
from .formats import FriLayerProof, FriProof
from .merkle import verify_decommitment
from .poly import eval_line_poly, fold_circle_pair, fold_line_pair


def last_layer_log_size(config: PcsConfig, min_log_size: int) -> int:
    """m_last: log_last_layer + log_blowup, lowered for small proofs to one below the smallest
    column's log size (folding must start above the last layer). Prover and verifier both derive
    it from the config and the AIR's column sizes."""
    return min(config.log_last_layer + config.log_blowup, min_log_size - 1)


def n_inner_layers(max_log_size: int, min_log_size: int, config: PcsConfig) -> int:
    return max_log_size - 1 - last_layer_log_size(config, min_log_size)


class _Siblings:
    def __init__(self, layer: str, values: list[QM31]) -> None:
        self.layer = layer
        self.values = values
        self.i = 0

    def take(self) -> QM31:
        if self.i >= len(self.values):
            raise FriError(f"{self.layer}: too few fold siblings in the proof")
        v = self.values[self.i]
        self.i += 1
        return v

    def done(self) -> None:
        if self.i != len(self.values):
            raise FriError(f"{self.layer}: {len(self.values) - self.i} unused fold siblings")


def _open_pairs(
    layer: str,
    known: dict[int, QM31],
    siblings: _Siblings,
) -> dict[int, tuple[QM31, QM31]]:
    """Pair index -> (even, odd) values, completing missing members from the siblings."""
    pairs: dict[int, tuple[QM31, QM31]] = {}
    for i in sorted({p >> 1 for p in known}):
        even = known.get(2 * i)
        odd = known.get(2 * i + 1)
        pairs[i] = (even if even is not None else siblings.take(), odd if odd is not None else siblings.take())
    return pairs


def _pair_columns(pairs: dict[int, tuple[QM31, QM31]]) -> list[list[int]]:
    order = sorted(pairs)
    cols = [[pairs[i][0][k] for i in order] for k in range(4)]
    cols += [[pairs[i][1][k] for i in order] for k in range(4)]
    return cols


class FriVerifier:
    def __init__(self, config: PcsConfig, quotient_log_sizes: list[int], proof: FriProof) -> None:
        self.config = config
        self.sizes = sorted(set(quotient_log_sizes), reverse=True)
        self.max_log = self.sizes[0]
        self.proof = proof
        self.m_last = last_layer_log_size(config, self.sizes[-1])
        self.alphas: list[QM31] = []

    def commit(self, channel: Channel) -> None:
        """Mix the layer roots and the last layer, drawing the folding randomness in between."""
        expected = n_inner_layers(self.max_log, self.sizes[-1], self.config)
        if expected < 0 or self.sizes[-1] <= self.m_last or self.m_last < self.config.log_blowup:
            raise FriError(
                f"config: last layer log size {self.m_last} leaves no room to fold a column of log "
                f"size {self.sizes[-1]}"
            )
        if len(self.proof.inner_layers) != expected:
            raise FriError(f"proof has {len(self.proof.inner_layers)} inner layers, expected {expected}")
        channel.mix_root(self.proof.first_layer.root)
        self.alphas.append(channel.draw_felt())
        for layer in self.proof.inner_layers:
            channel.mix_root(layer.root)
            self.alphas.append(channel.draw_felt())
        coefficients = 1 << (self.m_last - self.config.log_blowup)
        if len(self.proof.last_layer) != coefficients:
            raise FriError(f"last layer has {len(self.proof.last_layer)} coefficients, expected {coefficients}")
        channel.mix_felts(self.proof.last_layer)

    def decommit(self, queries: list[int], quotients: dict[int, dict[int, QM31]]) -> None:
        """Check every layer at the query positions (storage positions on the largest domain)."""
        first = self.proof.first_layer
        sib = _Siblings("layer 0 (first layer)", first.siblings)
        q_pairs: dict[int, dict[int, tuple[QM31, QM31]]] = {}
        log_sizes: list[int] = []
        columns: list[list[int]] = []
        pair_queries: dict[int, list[int]] = {}
        for size in self.sizes:
            q_pairs[size] = _open_pairs(sib.layer, quotients[size], sib)
            log_sizes += [size - 1] * 8
            columns += _pair_columns(q_pairs[size])
            pair_queries[size - 1] = sorted(q_pairs[size])
        sib.done()
        self._check_tree(sib.layer, first, log_sizes, pair_queries, columns)

        alpha0 = self.alphas[0]
        cur = {
            i: fold_circle_pair(e, o, domain_point(2 * i, self.max_log)[1], alpha0)
            for i, (e, o) in q_pairs[self.max_log].items()
        }
        m = self.max_log - 1
        for k, layer in enumerate(self.proof.inner_layers):
            name = f"layer {k + 1}"
            sib = _Siblings(name, layer.siblings)
            pairs = _open_pairs(name, cur, sib)
            sib.done()
            self._check_tree(name, layer, [m - 1] * 8, {m - 1: sorted(pairs)}, _pair_columns(pairs))
            beta = self.alphas[k + 1]
            nxt = {
                i: fold_line_pair(e, o, line_domain_x(2 * i, m), beta) for i, (e, o) in pairs.items()
            }
            if m in q_pairs:
                beta2 = q_mul(beta, beta)
                for i, (e, o) in q_pairs[m].items():
                    nxt[i] = q_add(q_mul(nxt[i], beta2), fold_circle_pair(e, o, domain_point(2 * i, m)[1], beta))
            cur = nxt
            m -= 1
        for pos in sorted(cur):
            expect = eval_line_poly(self.proof.last_layer, _lift(line_domain_x(pos, m)))
            if expect != cur[pos]:
                raise FriError(f"last layer: folded value at position {pos} does not match the last-layer polynomial")

    @staticmethod
    def _check_tree(
        name: str,
        layer: FriLayerProof,
        log_sizes: list[int],
        queries: dict[int, list[int]],
        columns: list[list[int]],
    ) -> None:
        try:
            verify_decommitment(
                name,
                layer.root,
                log_sizes,
                queries,
                columns,
                layer.decommitment.hash_witness,
                layer.decommitment.column_witness,
            )
        except MerkleError as e:
            raise FriError(e.detail) from None


def _lift(x: int) -> QM31:
    return (x, 0, 0, 0)
